import { describe, it, expect } from 'vitest';
import { parseConcatenatedJson } from '../../../server/events/json-body';
import { normalizeTagReads } from '../../../server/events/uhf';
import type { TagRead } from '../../../server/events/uhf';
import { CONTEXT, fixtureJson, fixtureText, jsonOf, valueOf } from './helpers';

const SGTIN = { epc: '3074257BF7194E4000001A85', epcUri: 'urn:epc:id:sgtin:0614141.812345.6789' };
const SSCC = { epc: '3174257BF4499602D2000000', epcUri: 'urn:epc:id:sscc:0614141.1234567890' };
const GRAI = { epc: '3374257BF40C0E400000162E', epcUri: 'urn:epc:id:grai:0614141.12345.5678' };
const GIAI = { epc: '3474257BF40000000000162E', epcUri: 'urn:epc:id:giai:0614141.5678' };

/** 2026-03-02 at the given UTC time of day: every fixture is from that morning. */
const at = (hour: number, minute: number, second: number, ms: number): number =>
  Date.UTC(2026, 2, 2, hour, minute, second, ms);

const reads = (json: unknown): TagRead[] => valueOf(normalizeTagReads(json, CONTEXT));

describe('normalizeTagReads: Zebra FX/ATR IoT Connector', () => {
  it('reads a single event, with the reader id from data.MAC and a +0000 timestamp', () => {
    expect(reads(fixtureJson('readers/zebra-fx-single.json'))).toEqual<TagRead[]>([
      { ...SGTIN, tid: null, readerId: '84:24:8D:12:34:56', antenna: 1, rssi: -58, readAt: at(8, 15, 53, 123) },
    ]);
  });

  it('reads an array of events, falling back to the principal without a MAC', () => {
    expect(reads(fixtureJson('readers/zebra-fx-array.json'))).toEqual<TagRead[]>([
      { ...SGTIN, tid: null, readerId: CONTEXT.principal, antenna: 1, rssi: -61, readAt: at(8, 15, 53, 123) },
      { ...SSCC, tid: null, readerId: CONTEXT.principal, antenna: 2, rssi: -49, readAt: at(8, 15, 53, 140) },
      {
        epc: 'E28011702000014CD9B5A08E',
        epcUri: 'urn:epc:raw:96.xE28011702000014CD9B5A08E',
        tid: null,
        readerId: CONTEXT.principal,
        antenna: 2,
        rssi: -70,
        readAt: at(8, 15, 53, 171),
      },
    ]);
  });

  it('reads the concatenated batch once parseConcatenatedJson has split it', () => {
    const json = jsonOf(parseConcatenatedJson(fixtureText('readers/zebra-fx-concatenated.txt')));
    expect(reads(json)).toEqual<TagRead[]>([
      { ...GRAI, tid: null, readerId: CONTEXT.principal, antenna: 3, rssi: -55, readAt: at(8, 15, 54, 1) },
      { ...GIAI, tid: null, readerId: CONTEXT.principal, antenna: 3, rssi: -66, readAt: at(8, 15, 54, 20) },
    ]);
  });

  it('skips the connector heartbeats', () => {
    expect(reads([{ type: 'heartbeat', timestamp: '2026-03-02T08:15:53.123+0000', data: { uptime: 5 } }])).toEqual([]);
  });

  it('skips its other events (GPI, errors), but reads any event that carries an idHex', () => {
    const timestamp = '2026-03-02T08:15:53.123+0000';
    const gpi = { type: 'GPI', timestamp, data: { pin: 1, state: 'HIGH' } };
    const tag = { type: 'SIMPLE', timestamp, data: { idHex: SGTIN.epc, antenna: 1, peakRssi: -58 } };
    expect(reads([gpi, tag, { ...tag, type: 'NEWKIND' }]).map((read) => read.epc)).toEqual([SGTIN.epc, SGTIN.epc]);
    expect(normalizeTagReads([{ type: 'SIMPLE', timestamp, data: { antenna: 1 } }], CONTEXT).ok).toBe(false);
  });
});

describe('normalizeTagReads: Impinj R700 IoT interface', () => {
  it('skips a tagInventory event that names no EPC (any field may be missing)', () => {
    const noEpc = {
      eventType: 'tagInventory',
      timestamp: '2026-03-02T08:15:53Z',
      tagInventoryEvent: { antennaPort: 1 },
    };
    expect(reads([noEpc])).toEqual([]);
  });

  it('reads tagInventory events and skips the others', () => {
    expect(reads(fixtureJson('readers/impinj-r700-webhook.json'))).toEqual<TagRead[]>([
      {
        ...SGTIN,
        tid: 'E2801170200014CD9B5A08EC',
        readerId: 'impinj-12-34-56',
        antenna: 1,
        rssi: -56.5, // -5650 centi-dBm
        readAt: at(8, 16, 13, 944), // from ...13.944189383Z
      },
      // epc only in base64url (`_`), no epcHex, no TID
      { ...SSCC, tid: null, readerId: 'impinj-12-34-56', antenna: 2, rssi: -61.25, readAt: at(8, 16, 14, 10) },
    ]);
  });

  it('decodes epc in standard base64 and in base64url alike', () => {
    const event = (epc: string): unknown => ({ eventType: 'tagInventory', tagInventoryEvent: { epc } });
    expect(reads([event('MXQle/RJlgLSAAAA'), event('MXQle_RJlgLSAAAA')])).toMatchObject([SSCC, SSCC]);
  });

  it('takes the TID from base64 `tid` when tidHex is missing', () => {
    const json = [{ eventType: 'tagInventory', tagInventoryEvent: { epcHex: SGTIN.epc, tid: '4oARcCAAFM2bWgjs' } }];
    expect(reads(json)).toMatchObject([{ tid: 'E2801170200014CD9B5A08EC' }]);
  });

  it('fills every missing field from the context', () => {
    expect(reads({ eventType: 'tagInventory', tagInventoryEvent: { epcHex: SGTIN.epc.toLowerCase() } })).toEqual<
      TagRead[]
    >([{ ...SGTIN, tid: null, readerId: CONTEXT.principal, antenna: null, rssi: null, readAt: CONTEXT.receivedAt }]);
  });

  it('uses lastSeenTime when the envelope has no timestamp', () => {
    const json = [
      { eventType: 'tagInventory', tagInventoryEvent: { epcHex: SGTIN.epc, lastSeenTime: '2026-03-02T08:16:13.944Z' } },
    ];
    expect(reads(json)).toMatchObject([{ readAt: at(8, 16, 13, 944) }]);
  });

  it('answers an empty batch for a body of non-inventory events only', () => {
    const json = [{ timestamp: '2026-03-02T08:16:14.5Z', eventType: 'inventoryStatus', inventoryStatusEvent: {} }];
    expect(reads(json)).toEqual([]);
  });
});

describe('normalizeTagReads: Impinj Speedway Connect', () => {
  it('reads the fixture, with a microsecond ISO timestamp and the principal as reader', () => {
    expect(reads(fixtureJson('readers/speedway-connect.json'))).toEqual<TagRead[]>([
      {
        ...GRAI,
        tid: 'E28011002000564500000002',
        readerId: CONTEXT.principal,
        antenna: 7,
        rssi: -51,
        readAt: at(8, 17, 54, 368), // .36879 truncated
      },
    ]);
  });

  it('also takes firstSeenTimestamp as microseconds since the epoch, number or digit string', () => {
    const micros = at(8, 17, 54, 368) * 1000 + 790;
    const record = (firstSeenTimestamp: unknown): unknown => ({ antennaPort: 1, epc: GRAI.epc, firstSeenTimestamp });
    expect(reads([record(micros), record(String(micros))])).toMatchObject([
      { readAt: at(8, 17, 54, 368) },
      { readAt: at(8, 17, 54, 368) },
    ]);
  });

  it('skips heartbeats, so a body of heartbeats only is an empty batch', () => {
    expect(reads({ isHeartBeat: true })).toEqual([]);
    expect(reads([{ isHeartBeat: true, firstSeenTimestamp: '2026-03-02T08:17:54Z' }, { isHeartBeat: true }])).toEqual(
      [],
    );
  });
});

describe('normalizeTagReads: generic form', () => {
  it('reads the fixture, filling missing fields from the context', () => {
    expect(reads(fixtureJson('readers/generic.json'))).toEqual<TagRead[]>([
      { ...SGTIN, tid: null, readerId: 'handheld-07', antenna: 1, rssi: -60.5, readAt: at(8, 18, 0, 0) },
      {
        epc: 'E2003412012345678901ABCD',
        epcUri: 'urn:epc:raw:96.xE2003412012345678901ABCD',
        tid: null,
        readerId: 'handheld-07',
        antenna: null,
        rssi: null,
        readAt: CONTEXT.receivedAt,
      },
    ]);
  });

  it('takes readAt as ms since the epoch and a hex tid, upper-casing both ids', () => {
    expect(reads({ epc: SGTIN.epc.toLowerCase(), readAt: 1_772_439_480_000, tid: 'e2801170' })).toEqual<TagRead[]>([
      {
        ...SGTIN,
        tid: 'E2801170',
        readerId: CONTEXT.principal,
        antenna: null,
        rssi: null,
        readAt: 1_772_439_480_000,
      },
    ]);
  });

  it('falls back to the principal for an empty readerId', () => {
    expect(reads({ epc: SGTIN.epc, readerId: '  ' })).toMatchObject([{ readerId: CONTEXT.principal }]);
  });
});

describe('normalizeTagReads: batches', () => {
  it('accepts an empty array as an empty batch', () => {
    expect(reads([])).toEqual([]);
  });

  it('accepts formats mixed in one array, skipping what is not a read, in body order', () => {
    const json = [
      { isHeartBeat: true },
      { epc: GIAI.epc },
      { type: 'SIMPLE', timestamp: '2026-03-02T08:15:53.123+0000', data: { idHex: SGTIN.epc, antenna: 4 } },
      { eventType: 'antennaDisconnected', antennaDisconnectedEvent: { antennaPort: 2 } },
      { eventType: 'tagInventory', tagInventoryEvent: { epcHex: SSCC.epc } },
      { antennaPort: 5, epc: GRAI.epc, isHeartBeat: false },
    ];
    expect(reads(json).map((read) => [read.epc, read.antenna])).toEqual([
      [GIAI.epc, null],
      [SGTIN.epc, 4],
      [SSCC.epc, null],
      [GRAI.epc, 5],
    ]);
  });
});

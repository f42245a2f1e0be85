import { describe, it, expect } from 'vitest';
import { normalizeTagReads } from '../../../server/events/uhf';
import { CONTEXT, errorsOf, fixtureJson } from './helpers';

const errors = (json: unknown) => errorsOf(normalizeTagReads(json, CONTEXT));
const zebra = (data: Record<string, unknown>, timestamp: unknown = '2026-03-02T08:15:53.123+0000'): unknown => ({
  type: 'SIMPLE',
  timestamp,
  data: { antenna: 1, peakRssi: -60, ...data },
});

describe('normalizeTagReads: the body is rejected as a whole', () => {
  it('rejects a batch with one invalid EPC, pointing at it, and keeps none of the good reads', () => {
    const json = fixtureJson('readers/zebra-fx-array.json') as { data: Record<string, unknown> }[];
    expect(json).toHaveLength(3);
    json[2] = { ...json[2], data: { ...json[2]?.data, idHex: '3074-257B' } };
    expect(errors(json)).toEqual([{ path: '/2/data/idHex', message: expect.stringMatching(/hex digits/) as string }]);
  });

  it('reports every bad record, not only the first', () => {
    const result = errors([{ epc: 'XYZ' }, { epc: '3074257BF7194E4000001A85' }, { epc: '307' }]);
    expect(result.map((error) => error.path)).toEqual(['/0/epc', '/2/epc']);
  });

  it('uses paths without an index when the body is a single object', () => {
    expect(errors(zebra({ idHex: 'ZZ' }))).toEqual([{ path: '/data/idHex', message: expect.any(String) as string }]);
  });
});

describe('normalizeTagReads: EPC validation', () => {
  it.each([
    ['a missing EPC', {}, /required/],
    ['an empty EPC', { epc: '' }, /empty/],
    ['non-hex characters', { epc: '30G4' }, /hex digits/],
    ['an odd number of digits', { epc: '307425' + '7' }, /even number/],
    ['more than 496 bits', { epc: '30'.repeat(63) }, /at most 124/],
    ['a number instead of a string', { epc: 3074 }, /hex string/],
  ])('rejects %s (generic form)', (_case, extra, message) => {
    // `readerId` keeps the record recognizable as the generic form even without `epc`.
    expect(errors({ readerId: 'r1', ...extra })).toEqual([
      { path: '/epc', message: expect.stringMatching(message) as string },
    ]);
  });

  it('rejects a Zebra event without idHex at data/idHex', () => {
    expect(errors([zebra({})])).toEqual([{ path: '/0/data/idHex', message: "idHex (the tag's EPC) is required" }]);
  });

  it('rejects a Speedway Connect read without epc', () => {
    expect(errors([{ antennaPort: 1, isHeartBeat: false }])).toEqual([
      { path: '/0/epc', message: "epc (the tag's EPC) is required" },
    ]);
  });

  it('rejects R700 epc that is not base64', () => {
    const json = [{ eventType: 'tagInventory', tagInventoryEvent: { epc: 'MHQl!cZT' } }];
    expect(errors(json)).toEqual([
      { path: '/0/tagInventoryEvent/epc', message: expect.stringMatching(/base64/) as string },
    ]);
  });

  it('rejects an R700 tagInventory event without its tagInventoryEvent', () => {
    expect(errors([{ eventType: 'tagInventory' }])).toEqual([
      { path: '/0/tagInventoryEvent', message: 'tagInventoryEvent is required' },
    ]);
  });
});

describe('normalizeTagReads: other fields', () => {
  it('rejects a timestamp that is no date-time at all', () => {
    expect(errors([zebra({ idHex: '3074257BF7194E4000001A85' }, '2026-03-02 at noon')])).toEqual([
      { path: '/0/timestamp', message: expect.stringMatching(/ISO 8601/) as string },
    ]);
    expect(errors({ epc: '3074257BF7194E4000001A85', readAt: 'soon' })[0]?.path).toBe('/readAt');
  });

  it('rejects a Zebra timestamp sent as a number (Zebra writes strings)', () => {
    expect(errors(zebra({ idHex: '3074257BF7194E4000001A85' }, 1_772_439_353_123))[0]?.path).toBe('/timestamp');
  });

  it('rejects antenna, RSSI, reader id and TID of the wrong type, each at its path', () => {
    const result = errors({ epc: '3074257BF7194E4000001A85', antenna: '1', rssi: 'strong', readerId: 7, tid: 'T1D' });
    expect(result.map((error) => error.path)).toEqual(['/tid', '/readerId', '/antenna', '/rssi']);
  });

  it('rejects a negative or fractional antenna', () => {
    expect(errors({ epc: '3074257BF7194E4000001A85', antenna: -1 })[0]?.path).toBe('/antenna');
    expect(errors({ epc: '3074257BF7194E4000001A85', antenna: 1.5 })[0]?.path).toBe('/antenna');
  });

  it('treats null fields as absent', () => {
    const result = normalizeTagReads(
      { epc: '3074257BF7194E4000001A85', antenna: null, rssi: null, readAt: null },
      CONTEXT,
    );
    expect(result.ok).toBe(true);
  });
});

describe('normalizeTagReads: unrecognizable bodies', () => {
  it('rejects an object of no known format at its path', () => {
    expect(errors([{ epc: '3074257BF7194E4000001A85' }, { tag: 'x' }])).toEqual([
      { path: '/1', message: expect.stringMatching(/^Unrecognized tag record/) as string },
    ]);
  });

  it('rejects a non-object element', () => {
    expect(errors([{ epc: '3074257BF7194E4000001A85' }, 'E200'])).toEqual([
      { path: '/1', message: 'Expected a tag read object' },
    ]);
  });

  it('rejects a scalar or null body at the root', () => {
    expect(errors('3074257BF7194E4000001A85')).toEqual([
      { path: '', message: 'Expected a tag read object or an array of them' },
    ]);
    expect(errors(null)[0]?.path).toBe('');
  });
});

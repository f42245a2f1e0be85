import type { FieldError } from '../../contract/errors';
import { pointer } from '../types';
import { antenna, base64Id, hexId, isObject, readerName, readTime, rssi } from './fields';
import type { JsonObject } from './fields';
import type { ExtractedRead } from './tag-read';

/**
 * One extractor per reader format. Each gets a record already recognized as its format and the
 * record's JSON Pointer (`''` for a body that is a single object), pushes every problem it finds
 * into `errors`, and returns the read, or null when the record is skipped (heartbeats,
 * non-inventory events) or invalid (then `errors` has grown).
 */
type Extractor = (record: JsonObject, base: string, errors: FieldError[], localZone: string) => ExtractedRead | null;

export type ReaderFormat = 'zebra' | 'impinjR700' | 'speedwayConnect' | 'generic';

const GENERIC_KEYS = ['epc', 'readerId', 'readAt', 'antenna', 'rssi', 'tid'];
const has = (record: JsonObject, key: string): boolean => Object.hasOwn(record, key);
const missing = (value: unknown): boolean => value === undefined || value === null;

/**
 * Tells the formats apart by the keys only one of them uses. Order matters: Zebra nests its
 * fields under `data`, R700 under `tagInventoryEvent`; Speedway Connect and the generic form
 * both carry a top-level hex `epc`, so Speedway's own keys are checked before falling back.
 */
export function detectFormat(record: JsonObject): ReaderFormat | null {
  if (isObject(record.data) && !has(record, 'epc')) return 'zebra';
  if (has(record, 'tagInventoryEvent') || has(record, 'eventType')) return 'impinjR700';
  if (has(record, 'isHeartBeat') || has(record, 'firstSeenTimestamp') || has(record, 'antennaPort')) {
    return 'speedwayConnect';
  }
  // Any of the generic form's keys: then a missing `epc` is reported as such, at `/epc`.
  if (GENERIC_KEYS.some((key) => has(record, key))) return 'generic';
  return null;
}

const ZEBRA_TAG_TYPES = new Set(['SIMPLE', 'CUSTOM']);

/**
 * A Zebra record's field pointers below the record's own: built once, since every read of every
 * batch would otherwise build the same strings again (the record's pointer is prefixed per read).
 */
const ZEBRA_PATHS = {
  idHex: pointer('data', 'idHex'),
  MAC: pointer('data', 'MAC'),
  antenna: pointer('data', 'antenna'),
  peakRssi: pointer('data', 'peakRssi'),
  timestamp: pointer('timestamp'),
};

/**
 * Zebra FX/ATR IoT Connector tag data event:
 * `{type, timestamp, data: {idHex, antenna, peakRssi, reads, eventNum, format, MAC?}}`.
 * `reads` is the reader's own count of sightings folded into this event; the gateway counts the
 * event as one read (its dedup window does the folding on our side).
 */
const zebra: Extractor = (record, base, errors, localZone) => {
  const data = record.data as JsonObject; // detectFormat checked it is an object
  // The connector's heartbeats and its other events (GPI, GPO, errors) share the envelope and
  // carry no tag: skipped. Tag data is SIMPLE or CUSTOM; an event of any other type that does
  // carry an idHex is still read, so no tag is lost to a type name we do not know.
  const type = typeof record.type === 'string' ? record.type.toUpperCase() : null;
  if (type === 'HEARTBEAT' || (type !== null && !ZEBRA_TAG_TYPES.has(type) && missing(data.idHex))) return null;
  const before = errors.length;
  const epc = requiredEpc(data.idHex, base + ZEBRA_PATHS.idHex, 'idHex', errors);
  const readerId = readerName(data.MAC, base + ZEBRA_PATHS.MAC, 'MAC', errors);
  const port = antenna(data.antenna, base + ZEBRA_PATHS.antenna, errors);
  const dbm = rssi(data.peakRssi, base + ZEBRA_PATHS.peakRssi, errors);
  const readAt = readTime(record.timestamp, base + ZEBRA_PATHS.timestamp, 'timestamp', errors, 'none', localZone);
  return epc !== null && errors.length === before
    ? { epc, tid: null, readerId, antenna: port, rssi: dbm, readAt }
    : null;
};

/**
 * Impinj R700 IoT device interface event: `{timestamp, hostname?, eventType,
 * tagInventoryEvent: {epc? (base64), epcHex?, tid?, tidHex?, antennaPort?, peakRssiCdbm?, ...}}`.
 * Other event types (`antennaConnected`, `inventoryStatus`, ...) are skipped.
 */
const impinjR700: Extractor = (record, base, errors, localZone) => {
  if (!missing(record.eventType) && record.eventType !== 'tagInventory') return null;
  const eventPath = base + pointer('tagInventoryEvent');
  const event = record.tagInventoryEvent;
  if (!isObject(event)) {
    const message = missing(event) ? 'tagInventoryEvent is required' : 'tagInventoryEvent must be an object';
    errors.push({ path: eventPath, message });
    return null;
  }
  // Any field may be missing (SPEC §5): an event without an EPC names no tag, so it is skipped.
  if (missing(event.epcHex) && missing(event.epc)) return null;
  const at = (key: string): string => eventPath + pointer(key);
  const before = errors.length;
  // epcHex and epc say the same thing; the hex one is taken when both are sent.
  const epc = missing(event.epcHex)
    ? base64Id(event.epc, at('epc'), 'epc', errors)
    : hexId(event.epcHex, at('epcHex'), 'epcHex', errors);
  const tid = missing(event.tidHex)
    ? base64Id(event.tid, at('tid'), 'tid', errors)
    : hexId(event.tidHex, at('tidHex'), 'tidHex', errors);
  // The envelope's timestamp is when the event was made; lastSeenTime is the fallback.
  const readAt = missing(record.timestamp)
    ? readTime(event.lastSeenTime, at('lastSeenTime'), 'lastSeenTime', errors, 'none', localZone)
    : readTime(record.timestamp, base + pointer('timestamp'), 'timestamp', errors, 'none', localZone);
  const fields = {
    tid,
    readerId: readerName(record.hostname, base + pointer('hostname'), 'hostname', errors),
    antenna: antenna(event.antennaPort, at('antennaPort'), errors),
    rssi: rssi(event.peakRssiCdbm, at('peakRssiCdbm'), errors, 100),
    readAt,
  };
  return epc !== null && errors.length === before ? { epc, ...fields } : null;
};

/**
 * Impinj Speedway Connect, one object per tag:
 * `{antennaPort, epc (hex), tid?, firstSeenTimestamp, peakRssi, isHeartBeat}`. Its JSON output
 * writes `firstSeenTimestamp` as an ISO date-time with microseconds; numeric microseconds since
 * the epoch (older outputs) are accepted too. It names no reader, so the principal is used.
 */
const speedwayConnect: Extractor = (record, base, errors, localZone) => {
  if (record.isHeartBeat === true) return null;
  const at = (key: string): string => base + pointer(key);
  const before = errors.length;
  const epc = requiredEpc(record.epc, at('epc'), 'epc', errors);
  const fields = {
    tid: hexId(record.tid, at('tid'), 'tid', errors),
    readerId: null,
    antenna: antenna(record.antennaPort, at('antennaPort'), errors),
    rssi: rssi(record.peakRssi, at('peakRssi'), errors),
    readAt: readTime(
      record.firstSeenTimestamp,
      at('firstSeenTimestamp'),
      'firstSeenTimestamp',
      errors,
      'us',
      localZone,
    ),
  };
  return epc !== null && errors.length === before ? { epc, ...fields } : null;
};

/** The gateway's generic form `{epc, antenna?, rssi?, readerId?, readAt?, tid?}`. */
const generic: Extractor = (record, base, errors, localZone) => {
  const at = (key: string): string => base + pointer(key);
  const before = errors.length;
  const epc = requiredEpc(record.epc, at('epc'), 'epc', errors);
  const fields = {
    tid: hexId(record.tid, at('tid'), 'tid', errors),
    readerId: readerName(record.readerId, at('readerId'), 'readerId', errors),
    antenna: antenna(record.antenna, at('antenna'), errors),
    rssi: rssi(record.rssi, at('rssi'), errors),
    readAt: readTime(record.readAt, at('readAt'), 'readAt', errors, 'ms', localZone),
  };
  return epc !== null && errors.length === before ? { epc, ...fields } : null;
};

export const EXTRACTORS: Record<ReaderFormat, Extractor> = { zebra, impinjR700, speedwayConnect, generic };

/** The record's EPC, as hex: a missing one is an error of its own. */
function requiredEpc(value: unknown, path: string, label: string, errors: FieldError[]): string | null {
  if (missing(value)) {
    errors.push({ path, message: `${label} (the tag's EPC) is required` });
    return null;
  }
  return hexId(value, path, label, errors);
}

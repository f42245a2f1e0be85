import { parseIsoDateTime } from '../../time';
import { isObject, type JsonObject } from './fields';
import type { ReaderFormat } from './formats';

/**
 * Reader status messages (SPEC §16): what Zebra's IoT Connector management events and Impinj's
 * IoT device interface status events say about the reader itself. They are not tag reads: they
 * count no read and go to no inventory or outbox, only to the reader's record. A status message
 * is read leniently: a field of an unexpected type is left out, never a reason to refuse a body
 * that also carries tag reads.
 */

/** SPEC §16 `health`: each member only when the reader sent it. */
export interface ReaderHealth {
  cpuPercent?: number;
  ramUsedPercent?: number;
  temperatureC?: number;
  ntpOffsetMs?: number;
  droppedByReader?: number;
  retainedByReader?: number;
  inventoryStatus?: string;
}

export type ReaderAlarmCode = 'reader_error' | 'reader_warning' | 'reader_overflow';

export interface ReaderAlarm {
  code: ReaderAlarmCode;
  message: string;
  /** Ms since the epoch: the message's own timestamp, else its receive time. */
  at: number;
  /** Overflow only: events the reader purged from its own buffer. */
  eventsPurged?: number;
}

/** One status message, as the reader's record takes it. */
export interface ReaderStatus {
  readerId: string;
  /** Members to set on the reader's health; null: the message says nothing about it. */
  health: ReaderHealth | null;
  /** Antenna port → connected. */
  antennas: [number, boolean][];
  alarm: ReaderAlarm | null;
  /** The message as received (`lastStatus`). */
  raw: JsonObject;
}

const finite = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;
const object = (value: unknown): JsonObject => (isObject(value) ? value : {});
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;
const port = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535 ? value : undefined;

/** A name the message gives its reader (Zebra `data.MAC`, Impinj `hostname`), trimmed; else undefined. */
const nameIn = (value: unknown): string | undefined => {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  return trimmed.length > 0 ? trimmed : undefined;
};

/** Sets `key` when `value` is a number. */
function put(health: ReaderHealth, key: keyof Omit<ReaderHealth, 'inventoryStatus'>, value: number | undefined): void {
  if (value !== undefined) health[key] = value;
}

/** A counter the firmware sends either once or per data path (`dataPathStatistics[]`): their sum. */
function gatewayCounter(gateway: JsonObject, key: string): number | undefined {
  const direct = finite(gateway[key]);
  if (direct !== undefined) return direct;
  const paths = gateway.dataPathStatistics;
  if (!Array.isArray(paths)) return undefined;
  let sum: number | undefined;
  for (const path of paths) {
    const value = finite(object(path)[key]);
    if (value !== undefined) sum = (sum ?? 0) + value;
  }
  return sum;
}

/** A Zebra heartbeat's `data` as SPEC §16's health and antenna states. */
function zebraHeartbeat(data: JsonObject): Pick<ReaderStatus, 'health' | 'antennas'> {
  const system = object(data.system);
  const radio = object(data.radio_control);
  const gateway = object(data.reader_gateway);
  const health: ReaderHealth = {};
  const cpu = object(system.cpu);
  const user = finite(cpu.user);
  const sys = finite(cpu.system);
  put(health, 'cpuPercent', user !== undefined || sys !== undefined ? (user ?? 0) + (sys ?? 0) : finite(radio.cpu));
  const ram = object(system.ram);
  const used = finite(ram.used);
  const total = finite(ram.total);
  put(health, 'ramUsedPercent', used !== undefined && total ? Math.round((used / total) * 100) : undefined);
  put(health, 'temperatureC', finite(object(system.temperature).ambient));
  put(health, 'ntpOffsetMs', finite(object(system.ntp).offset));
  put(health, 'droppedByReader', gatewayCounter(gateway, 'numDataMessagesDropped'));
  put(health, 'retainedByReader', gatewayCounter(gateway, 'numDataMessagesRetained'));
  const antennas: [number, boolean][] = [];
  for (const [key, state] of Object.entries(object(radio.antennas))) {
    const antenna = /^\d{1,5}$/.test(key) ? port(Number(key)) : undefined;
    if (antenna === undefined || (state !== 'connected' && state !== 'disconnected')) continue;
    antennas.push([antenna, state === 'connected']);
  }
  return { health: Object.keys(health).length > 0 ? health : null, antennas };
}

const ZEBRA_ALARMS: Record<string, ReaderAlarmCode> = { ERROR: 'reader_error', WARNING: 'reader_warning' };

/** The Impinj event types that are status messages; `eventType` is sent with or without the `Event` suffix. */
const IMPINJ_STATUS = new Set(['antennaConnected', 'antennaDisconnected', 'inventoryStatus', 'overflow']);

/** A status message's time, or the receive time when it has none that parses. */
function instantOr(value: unknown, localZone: string, receivedAt: number): number {
  const parsed = typeof value === 'string' ? parseIsoDateTime(value, localZone) : null;
  return parsed !== null && Number.isFinite(parsed) ? Math.floor(parsed) : receivedAt;
}

/**
 * The record as a status message, or null when it is not one (a tag read, or an event the
 * reader's record has no use for). `defaultReaderId` names the reader when the record names
 * none (Zebra management events never do: `?readerId=`, the MQTT client id, else the principal).
 */
export function readerStatus(
  record: JsonObject,
  format: ReaderFormat,
  defaultReaderId: string,
  receivedAt: number,
  localZone: string,
): ReaderStatus | null {
  const at = (value: unknown): number => instantOr(value, localZone, receivedAt);
  if (format === 'zebra') {
    const type = typeof record.type === 'string' ? record.type.toUpperCase() : '';
    const data = object(record.data);
    const code = ZEBRA_ALARMS[type];
    // Tag data, the common case, first: nothing more to look at.
    if (type !== 'HEARTBEAT' && (!code || data.idHex !== undefined)) return null;
    const readerId = nameIn(data.MAC) ?? defaultReaderId;
    // Past the line above, no alarm code means a heartbeat.
    if (type === 'HEARTBEAT' || !code) return { readerId, ...zebraHeartbeat(data), alarm: null, raw: record };
    const message = text(data.message) ?? text(data.description) ?? type.toLowerCase();
    return { readerId, health: null, antennas: [], alarm: { code, message, at: at(record.timestamp) }, raw: record };
  }
  if (format !== 'impinjR700' || typeof record.eventType !== 'string') return null;
  const name = record.eventType.endsWith('Event') ? record.eventType.slice(0, -'Event'.length) : record.eventType;
  if (!IMPINJ_STATUS.has(name)) return null;
  const body = object(record[`${name}Event`]);
  const readerId = nameIn(record.hostname) ?? defaultReaderId;
  const status: ReaderStatus = { readerId, health: null, antennas: [], alarm: null, raw: record };
  if (name === 'antennaConnected' || name === 'antennaDisconnected') {
    const antenna = port(body.antennaPort);
    if (antenna !== undefined) status.antennas.push([antenna, name === 'antennaConnected']);
  } else if (name === 'inventoryStatus') {
    const inventoryStatus = text(body.status);
    if (inventoryStatus !== undefined) status.health = { inventoryStatus };
  } else {
    const purged = finite(body.eventsPurged);
    status.alarm = {
      code: 'reader_overflow',
      message:
        purged === undefined
          ? 'The reader’s event buffer overflowed'
          : `The reader’s event buffer overflowed: ${purged} events purged`,
      at: at(record.timestamp),
      ...(purged === undefined ? {} : { eventsPurged: purged }),
    };
  }
  return status;
}

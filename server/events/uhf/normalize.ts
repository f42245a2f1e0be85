import type { FieldError } from '../../contract/errors';
import { fail, ok, pointer } from '../types';
import type { ReceiveContext, Validation } from '../types';
import { detectFormat, EXTRACTORS } from './formats';
import { isObject } from './fields';
import { readerStatus, type ReaderStatus } from './reader-status';
import { toTagRead } from './tag-read';
import type { TagRead } from './tag-read';

/** A UHFTagRead body as processed: its tag reads, its reader status messages, and who else was heard. */
export interface UhfBatch {
  reads: TagRead[];
  statuses: ReaderStatus[];
  /**
   * Readers heard by records that are neither (a Speedway heartbeat, a Zebra GPI event), and the
   * default reader for an empty body: an idle Impinj R700 webhook posts `[]` as a keep-alive.
   */
  heard: string[];
}

const UNRECOGNIZED =
  'Unrecognized tag record: expected a Zebra IoT Connector event {type, timestamp, data: {idHex, ...}}, ' +
  'an Impinj R700 event {eventType, tagInventoryEvent}, a Speedway Connect read ' +
  '{epc, antennaPort, firstSeenTimestamp, isHeartBeat} or the generic form {epc, ...}';

/**
 * Turns a UHFTagRead body into tag reads. The body is one record or an array of records, and
 * the formats may be mixed in one array (a concatenated body arrives here already as an array,
 * see `parseConcatenatedJson`). Heartbeats and non-inventory events are skipped, so a body of
 * only those is a valid, empty batch. Any invalid or unrecognizable record rejects the whole
 * body: storing part of a batch would leave the reader unable to tell what to resend.
 */
export function normalizeTagReads(json: unknown, context: ReceiveContext): Validation<TagRead[]> {
  const batch = normalizeUhfBody(json, context);
  return batch.ok ? ok(batch.value.reads) : batch;
}

/**
 * The body's tag reads (as `normalizeTagReads`), its reader status messages (SPEC §16) and the
 * readers heard otherwise. Status messages never make a body invalid.
 */
export function normalizeUhfBody(json: unknown, context: ReceiveContext): Validation<UhfBatch> {
  let records: [unknown, string][];
  if (Array.isArray(json)) records = (json as unknown[]).map((record, index) => [record, pointer(index)]);
  else if (isObject(json)) records = [[json, '']];
  else return fail([{ path: '', message: 'Expected a tag read object or an array of them' }]);

  const errors: FieldError[] = [];
  const reads: TagRead[] = [];
  const statuses: ReaderStatus[] = [];
  const heard = new Set<string>();
  if (records.length === 0) heard.add(context.defaultReaderId);
  for (const [record, path] of records) {
    if (!isObject(record)) {
      errors.push({ path, message: 'Expected a tag read object' });
      continue;
    }
    const format = detectFormat(record);
    if (format === null) {
      errors.push({ path, message: UNRECOGNIZED });
      continue;
    }
    const status = readerStatus(record, format, context.defaultReaderId, context.receivedAt, context.timeZone);
    if (status !== null) {
      statuses.push(status);
      continue;
    }
    const before = errors.length;
    const read = EXTRACTORS[format](record, path, errors, context.timeZone);
    if (read !== null) reads.push(toTagRead(read, context));
    else if (errors.length === before) heard.add(namedReader(record) ?? context.defaultReaderId);
  }
  return errors.length > 0 ? fail(errors) : ok({ reads, statuses, heard: [...heard] });
}

/** The reader a skipped record names (Impinj `hostname`, Zebra `data.MAC`, generic `readerId`), if any. */
function namedReader(record: Record<string, unknown>): string | undefined {
  const data = isObject(record.data) ? record.data : {};
  for (const value of [record.hostname, data.MAC, record.readerId]) {
    if (typeof value === 'string' && value.trim().length > 0) return value.trim();
  }
  return undefined;
}

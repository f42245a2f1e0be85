import type { FieldError } from '../../contract/errors';
import { forEachRecord } from '../large-body';
import type { LargeJson } from '../large-json';
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

const NOT_RECORDS = 'Expected a tag read object or an array of them';

/** What the records of one body came to so far. */
interface Gathered {
  reads: TagRead[];
  statuses: ReaderStatus[];
  heard: Set<string>;
  errors: FieldError[];
}

const gathered = (): Gathered => ({ reads: [], statuses: [], heard: new Set(), errors: [] });

/**
 * One record at `path`: a tag read, a reader status message (SPEC §16), a skipped record whose
 * reader was heard, or its problems.
 */
function normalizeRecord(record: unknown, path: string, context: ReceiveContext, into: Gathered): void {
  if (!isObject(record)) {
    into.errors.push({ path, message: 'Expected a tag read object' });
    return;
  }
  const format = detectFormat(record);
  if (format === null) {
    into.errors.push({ path, message: UNRECOGNIZED });
    return;
  }
  const status = readerStatus(record, format, context.defaultReaderId, context.receivedAt, context.timeZone);
  if (status !== null) {
    into.statuses.push(status);
    return;
  }
  const before = into.errors.length;
  const read = EXTRACTORS[format](record, path, into.errors, context.timeZone);
  if (read !== null) into.reads.push(toTagRead(read, context));
  else if (into.errors.length === before) into.heard.add(namedReader(record) ?? context.defaultReaderId);
}

/** The body's outcome: every record valid (status messages never make it invalid), or its errors. */
function outcome(into: Gathered, records: number, context: ReceiveContext): Validation<UhfBatch> {
  if (into.errors.length > 0) return fail(into.errors);
  if (records === 0) into.heard.add(context.defaultReaderId);
  return ok({ reads: into.reads, statuses: into.statuses, heard: [...into.heard] });
}

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
 * readers heard otherwise.
 */
export function normalizeUhfBody(json: unknown, context: ReceiveContext): Validation<UhfBatch> {
  const into = gathered();
  if (Array.isArray(json)) {
    const records = json as unknown[];
    for (let index = 0; index < records.length; index++) normalizeRecord(records[index], pointer(index), context, into);
    return outcome(into, records.length, context);
  }
  if (!isObject(json)) return fail([{ path: '', message: NOT_RECORDS }]);
  normalizeRecord(json, '', context, into);
  return outcome(into, 1, context);
}

/**
 * `normalizeUhfBody` for a large body (events/large-body.ts): the records are parsed a piece at
 * a time, in slices that yield to the event loop, and only what they come to is kept. Same
 * records, paths and outcome as the whole body parsed at once; text that is not JSON (a stored
 * payload never checked) rejects the body.
 */
export async function normalizeLargeUhfBody(body: LargeJson, context: ReceiveContext): Promise<Validation<UhfBatch>> {
  let into = gathered();
  let records = 0;
  // Paths are known only once the shape is: a single object's is '', a list's are indexes.
  let single: unknown = undefined;
  let shape;
  try {
    shape = await forEachRecord(body, (record, index) => {
      if (index === 0) single = record;
      records += 1;
      normalizeRecord(record, pointer(index), context, into);
    });
  } catch (error) {
    return fail([
      { path: '', message: `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` },
    ]);
  }
  if (shape === 'scalar') return fail([{ path: '', message: NOT_RECORDS }]);
  if (shape === 'object') {
    into = gathered();
    normalizeRecord(single, '', context, into);
    records = 1;
  }
  return outcome(into, records, context);
}

/** The reader a skipped record names (Impinj `hostname`, Zebra `data.MAC`, generic `readerId`), if any. */
function namedReader(record: Record<string, unknown>): string | undefined {
  const data = isObject(record.data) ? record.data : {};
  for (const value of [record.hostname, data.MAC, record.readerId]) {
    if (typeof value === 'string' && value.trim().length > 0) return value.trim();
  }
  return undefined;
}

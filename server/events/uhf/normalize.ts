import type { FieldError } from '../../contract/errors';
import { forEachRecord } from '../large-body';
import type { LargeJson } from '../large-json';
import { fail, ok, pointer } from '../types';
import type { ReceiveContext, Validation } from '../types';
import { detectFormat, EXTRACTORS } from './formats';
import { isObject } from './fields';
import { toTagRead } from './tag-read';
import type { TagRead } from './tag-read';

const UNRECOGNIZED =
  'Unrecognized tag record: expected a Zebra IoT Connector event {type, timestamp, data: {idHex, ...}}, ' +
  'an Impinj R700 event {eventType, tagInventoryEvent}, a Speedway Connect read ' +
  '{epc, antennaPort, firstSeenTimestamp, isHeartBeat} or the generic form {epc, ...}';

const NOT_RECORDS = 'Expected a tag read object or an array of them';

/** One record at `path`: its read is added to `reads`, or its problems to `errors` (a skipped record adds neither). */
function normalizeRecord(
  record: unknown,
  path: string,
  context: ReceiveContext,
  reads: TagRead[],
  errors: FieldError[],
): void {
  if (!isObject(record)) {
    errors.push({ path, message: 'Expected a tag read object' });
    return;
  }
  const format = detectFormat(record);
  if (format === null) {
    errors.push({ path, message: UNRECOGNIZED });
    return;
  }
  const read = EXTRACTORS[format](record, path, errors, context.timeZone);
  if (read !== null) reads.push(toTagRead(read, context));
}

/**
 * Turns a UHFTagRead body into tag reads. The body is one record or an array of records, and
 * the formats may be mixed in one array (a concatenated body arrives here already as an array,
 * see `parseConcatenatedJson`). Heartbeats and non-inventory events are skipped, so a body of
 * only those is a valid, empty batch. Any invalid or unrecognizable record rejects the whole
 * body: storing part of a batch would leave the reader unable to tell what to resend.
 */
export function normalizeTagReads(json: unknown, context: ReceiveContext): Validation<TagRead[]> {
  const errors: FieldError[] = [];
  const reads: TagRead[] = [];
  if (Array.isArray(json)) {
    const records = json as unknown[];
    for (let index = 0; index < records.length; index++)
      normalizeRecord(records[index], pointer(index), context, reads, errors);
  } else if (isObject(json)) normalizeRecord(json, '', context, reads, errors);
  else return fail([{ path: '', message: NOT_RECORDS }]);
  return errors.length > 0 ? fail(errors) : ok(reads);
}

/**
 * `normalizeTagReads` for a large body (events/large-body.ts): the records are parsed a piece at
 * a time, in slices that yield to the event loop, and only the reads are kept. Same records,
 * paths and outcome as the whole body parsed at once; text that is not JSON (a stored payload
 * never checked) rejects the body.
 */
export async function normalizeLargeTagReads(body: LargeJson, context: ReceiveContext): Promise<Validation<TagRead[]>> {
  const errors: FieldError[] = [];
  const reads: TagRead[] = [];
  // Paths are known only once the shape is: a single object's is '', a list's are indexes.
  let single: unknown = undefined;
  let shape;
  try {
    shape = await forEachRecord(body, (record, index) => {
      if (index === 0) single = record;
      normalizeRecord(record, pointer(index), context, reads, errors);
    });
  } catch (error) {
    return fail([
      { path: '', message: `The body is not valid JSON: ${error instanceof Error ? error.message : String(error)}` },
    ]);
  }
  if (shape === 'scalar') return fail([{ path: '', message: NOT_RECORDS }]);
  if (shape === 'object') {
    reads.length = 0;
    errors.length = 0;
    normalizeRecord(single, '', context, reads, errors);
  }
  return errors.length > 0 ? fail(errors) : ok(reads);
}

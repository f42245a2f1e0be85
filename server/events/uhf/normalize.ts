import type { FieldError } from '../../contract/errors';
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

/**
 * Turns a UHFTagRead body into tag reads. The body is one record or an array of records, and
 * the formats may be mixed in one array (a concatenated body arrives here already as an array,
 * see `parseConcatenatedJson`). Heartbeats and non-inventory events are skipped, so a body of
 * only those is a valid, empty batch. Any invalid or unrecognizable record rejects the whole
 * body: storing part of a batch would leave the reader unable to tell what to resend.
 */
export function normalizeTagReads(json: unknown, context: ReceiveContext): Validation<TagRead[]> {
  let records: [unknown, string][];
  if (Array.isArray(json)) records = (json as unknown[]).map((record, index) => [record, pointer(index)]);
  else if (isObject(json)) records = [[json, '']];
  else return fail([{ path: '', message: 'Expected a tag read object or an array of them' }]);

  const errors: FieldError[] = [];
  const reads: TagRead[] = [];
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
    const read = EXTRACTORS[format](record, path, errors, context.timeZone);
    if (read !== null) reads.push(toTagRead(read, context));
  }
  return errors.length > 0 ? fail(errors) : ok(reads);
}

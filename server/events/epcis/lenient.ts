import { pointer } from '../types';
import { isDateTime, isRecord, type Report } from './util';

/*
 * Lenient mode (route setting `epcisLenient`) accepts the deviations real clients commonly send
 * and rewrites them to valid EPCIS 2.0, each with a warning. The validator works on a deep copy
 * in lenient mode, so these functions may write into the object they are given; strict mode
 * never calls a setter. CBV 1.2 URN values are corrected in cbv.ts (checkVocabulary).
 * Everything not listed here stays an error in lenient mode too.
 */

export const DEFAULT_SCHEMA_VERSION = '2.0';

export const OFFSET = /^[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00)$/;

/** True for any spelling of EPCISDocument but the right one (`EpcisDocument`, `epcisdocument`). */
export const isDocumentTypeVariant = (type: string): boolean =>
  type !== 'EPCISDocument' && type.toLowerCase() === 'epcisdocument';

/**
 * Fixes `type` of a document whose type is a case variant of EPCISDocument; reports an error in
 * strict mode.
 */
export function fixDocumentType(report: Report, doc: Record<string, unknown>, type: string): void {
  if (report.lenient) {
    doc.type = 'EPCISDocument';
    report.warn('/type', `document type "${type}" corrected to "EPCISDocument"`);
  } else {
    report.error('/type', `must be "EPCISDocument" (case-sensitive), got "${type}"`);
  }
}

/** Fills `schemaVersion` and `creationDate` of an EPCISDocument that lacks them (lenient only). */
export function fillDocumentHeader(report: Report, doc: Record<string, unknown>): void {
  if (doc.schemaVersion === undefined) {
    if (report.lenient) {
      doc.schemaVersion = DEFAULT_SCHEMA_VERSION;
      report.warn('/schemaVersion', `missing schemaVersion set to "${DEFAULT_SCHEMA_VERSION}"`);
    } else {
      report.error('/schemaVersion', 'required');
    }
  }
  if (doc.creationDate === undefined) {
    if (report.lenient) {
      const now = new Date().toISOString();
      doc.creationDate = now;
      report.warn('/creationDate', `missing creationDate set to the time of receipt (${now})`);
    } else {
      report.error('/creationDate', 'required');
    }
  }
}

/**
 * Checks `eventTimeZoneOffset`; in lenient mode an offset without a colon (`+0000`, `-0500`, as
 * many readers and Java formatters write it) becomes `+00:00` / `-05:00` when that form is valid.
 */
export function checkOffset(report: Report, event: Record<string, unknown>, path: string): void {
  const value = event.eventTimeZoneOffset;
  if (value === undefined) {
    report.error(path, 'required');
    return;
  }
  if (typeof value === 'string' && OFFSET.test(value)) return;
  if (typeof value === 'string' && /^[+-]\d{4}$/.test(value)) {
    const fixed = `${value.slice(0, 3)}:${value.slice(3)}`;
    if (report.lenient && OFFSET.test(fixed)) {
      event.eventTimeZoneOffset = fixed;
      report.warn(path, `eventTimeZoneOffset "${value}" corrected to "${fixed}"`);
      return;
    }
  }
  report.error(
    path,
    `must be an offset ±hh:mm between -14:00 and +14:00 (e.g. "+01:00"), got ${JSON.stringify(value)}`,
  );
}

/** The date-time members of EPCIS 2.0: document header, event, error declaration, sensor data. */
const DATE_TIME_KEYS = new Set([
  'creationDate',
  'eventTime',
  'recordTime',
  'declarationTime',
  'time',
  'startTime',
  'endTime',
]);
const COMPACT_OFFSET = /^(\d{4}-\d{2}-\d{2}T.+[+-])(\d{2})(\d{2})$/;

/**
 * Lenient only: date-times whose offset has no colon (`2026-03-02T08:00:00.000+0000`, as Java's
 * formatters and many readers write them) get one, wherever they are in the document, each with
 * a warning. Runs before validation, so the validator sees the corrected values.
 */
export function fixCompactOffsets(report: Report, node: unknown, path = ''): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => fixCompactOffsets(report, item, path + pointer(i)));
    return;
  }
  if (!isRecord(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const at = path + pointer(key);
    if (typeof value !== 'string') fixCompactOffsets(report, value, at);
    else if (DATE_TIME_KEYS.has(key)) {
      const match = COMPACT_OFFSET.exec(value);
      const fixed = match ? `${match[1]}${match[2]}:${match[3]}` : null;
      if (fixed !== null && isDateTime(fixed)) {
        node[key] = fixed;
        report.warn(at, `date-time "${value}" corrected to "${fixed}"`);
      }
    }
  }
}

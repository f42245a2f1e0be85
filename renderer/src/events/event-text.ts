import type { EventRecord } from '../../../server/contract/dto';

/**
 * How the inspector words an event: its times in the gateway's time zone, its error paths, and a
 * one-line result. Pure functions, so the table, the detail and the tests agree.
 */

const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone: building an Intl.DateTimeFormat is far dearer than using one. */
function timeFormat(timeZone: string): Intl.DateTimeFormat {
  let format = timeFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      fractionalSecondDigits: 3,
      hourCycle: 'h23',
    });
    timeFormats.set(timeZone, format);
  }
  return format;
}

/**
 * `2026-11-24 11:42:07.123`: the instant as the wall clock reads in `timeZone` (an IANA name),
 * with milliseconds, whatever this computer's own zone or locale. Intl does the zone rules; the
 * parts are put in ISO order so every row lines up and sorts by eye. The zone is named by the
 * caller (once per column in the table, after the time in the detail).
 */
export function formatZonedTime(iso: string, timeZone: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const part: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const { type, value } of timeFormat(timeZone).formatToParts(date)) part[type] = value;
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second}.${part.fractionalSecond}`;
}

/** True when `timeZone` is a zone this browser's Intl knows (a stored setting always should be). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    timeFormat(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** What carried an event, as the protocols are written (SPEC §15): a new transport is a type error here. */
export const TRANSPORT_WORDS = { http: 'HTTP', mqtt: 'MQTT' } as const satisfies Record<
  EventRecord['transport'],
  string
>;

export const WHOLE_DOCUMENT = 'the whole document';

/**
 * A JSON Pointer (SPEC §10 error `path`) in words: `` and `/` are the whole document; `/0/epc`
 * reads `[0] › epc`, `/events/3/bizStep` reads `events[3] › bizStep` (indexes as the API counts
 * them, from 0). `~1` and `~0` are decoded back to `/` and `~`.
 */
export function readablePath(path: string | null | undefined): string {
  if (!path || path === '/') return WHOLE_DOCUMENT;
  const segments = (path.startsWith('/') ? path.slice(1) : path)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const words: string[] = [];
  for (const segment of segments) {
    const last = words.length - 1;
    if (/^\d+$/.test(segment)) {
      if (last >= 0) words[last] = `${words[last]}[${segment}]`;
      else words.push(`[${segment}]`);
    } else words.push(segment === '' ? '""' : segment);
  }
  return words.join(' › ');
}

/** Result counts in people's words ("2 unique EPCs", not `uniqueEpcs: 2`): singular, plural. */
const RESULT_WORDS: Record<string, [string, string]> = {
  reads: ['read', 'reads'],
  uniqueEpcs: ['unique EPC', 'unique EPCs'],
  duplicatesSuppressed: ['duplicate suppressed', 'duplicates suppressed'],
  eventCount: ['event', 'events'],
  items: ['item', 'items'],
  tables: ['table', 'tables'],
  rows: ['row', 'rows'],
};

/** A key the list above does not know is split at its capitals (`fooBar` → "foo bar"). */
function words(key: string, count?: number): string {
  const known = RESULT_WORDS[key];
  if (known) return count === 1 ? known[0] : known[1];
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/**
 * The Result column: what processing made of the event, in one line. Errors first (where and
 * why, and how many more), else the processor's result (`3 reads · 2 unique EPCs`), else what the
 * event is waiting for.
 */
export function resultSummary(event: Pick<EventRecord, 'status' | 'result' | 'errors' | 'errorCount'>): string {
  const errors = event.errors ?? [];
  const [first] = errors;
  if (first) {
    const total = event.errorCount ?? errors.length;
    const more = total > 1 ? ` (+${total - 1} more)` : '';
    return `${readablePath(first.path)}: ${first.message}${more}`;
  }
  if (event.status === 'queued') return 'Waiting to be processed';
  const result = event.result;
  if (result === null || result === undefined) return event.status === 'processed' ? 'Stored' : '—';
  if (typeof result !== 'object' || Array.isArray(result)) return JSON.stringify(result);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
    // Lists (the split EPCIS events' ids) are in the detail; the count says enough here.
    if (typeof value === 'number') parts.push(`${value.toLocaleString('en-US')} ${words(key, value)}`);
    else if (typeof value === 'string' || typeof value === 'boolean') parts.push(`${words(key)} ${String(value)}`);
  }
  return parts.length > 0 ? parts.join(' · ') : 'Stored';
}

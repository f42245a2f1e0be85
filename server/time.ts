/**
 * Dates and times: calendar arithmetic in an IANA time zone (access-token expiry: a token is
 * valid until 00:00 of the day after its expiry date *in the gateway's time zone*, recomputed at
 * every check), the ISO 8601 date-times clients send, and ISO text for instants.
 */

import { Temporal } from 'temporal-polyfill';

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The zone's IANA name in its proper case (`utc` → `UTC`, `europe/berlin` → `Europe/Berlin`), or
 * null when it names no zone. Zones are matched case-insensitively, so storing what was sent would
 * show and export a spelling nobody chose on purpose. Only the case is fixed: a valid name ICU
 * maps to another (`Asia/Kolkata` → `Asia/Calcutta`, `US/Eastern`) is kept as the operator wrote
 * it, since ICU versions (Node's, Electron's) differ in which one they call canonical. UTC
 * offsets (`+01:00`, accepted by newer ICU) are not IANA names.
 */
export function canonicalTimeZone(zone: string): string | null {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  if (!/^[A-Za-z]/.test(resolved) || !/^[A-Za-z]/.test(zone)) return null;
  const folded = zone.toLowerCase();
  zonesByFoldedName ??= new Map(Intl.supportedValuesOf('timeZone').map((name) => [name.toLowerCase(), name]));
  return zonesByFoldedName.get(folded) ?? (resolved.toLowerCase() === folded ? resolved : zone);
}

let zonesByFoldedName: Map<string, string> | undefined;

export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Parses `YYYY-MM-DD` into a real calendar date (rejects 2025-02-30). */
export function parseDate(value: string): { year: number; month: number; day: number } | null {
  const match = DATE_PATTERN.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  return { year, month, day };
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function partsFormatter(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The wall-clock fields of an instant in a zone. */
function wallClock(
  instant: number,
  zone: string,
): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const fields: Record<string, number> = {};
  for (const part of partsFormatter(zone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return {
    year: fields.year ?? 1970,
    month: fields.month ?? 1,
    day: fields.day ?? 1,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
  };
}

/**
 * The instant a wall-clock time in the zone stands for, with Temporal's rules (the polyfill until
 * Node ships Temporal). Disambiguation is `'later'`, chosen on purpose and the same in every zone,
 * east or west of UTC: a time skipped by a DST change (02:30 on a spring-forward night, or the
 * midnight Santiago skips) moves forward by the gap (03:30, 01:00); a repeated one (an autumn
 * night) takes its later occurrence (standard time). NaN outside Temporal's range (±273,790 years).
 */
export function instantOfWallTime(wall: WallTime, zone: string): number {
  try {
    return Temporal.PlainDateTime.from(
      {
        year: wall.year,
        month: wall.month,
        day: wall.day,
        hour: wall.hour ?? 0,
        minute: wall.minute ?? 0,
        second: wall.second ?? 0,
        millisecond: wall.millis ?? 0,
      },
      { overflow: 'reject' },
    ).toZonedDateTime(zone, { disambiguation: 'later' }).epochMilliseconds;
  } catch {
    return Number.NaN;
  }
}

/** A calendar date and, optionally, a time of day, as read on a clock in some zone. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  millis?: number;
}

/** The instant of local midnight starting the given calendar date in the zone. */
export function startOfDay(date: { year: number; month: number; day: number }, zone: string): number {
  return instantOfWallTime(date, zone);
}

/** Today's calendar date in the zone as `YYYY-MM-DD`. */
export function todayIn(zone: string, now = Date.now()): string {
  const w = wallClock(now, zone);
  return `${String(w.year).padStart(4, '0')}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;
}

/** Whole calendar days from one `YYYY-MM-DD` to another (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  const a = parseDate(from);
  const b = parseDate(to);
  if (!a || !b) return 0;
  return Math.round((Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / 86_400_000);
}

/** The first instant at which a token with this expiry date is no longer valid. */
export function expiryInstant(expiryDate: string, zone: string): number {
  const date = parseDate(expiryDate);
  if (!date) return 0;
  const next = new Date(Date.UTC(date.year, date.month - 1, date.day + 1));
  return startOfDay({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() }, zone);
}

const DAY_MS = 86_400_000;
/** Instants from 1970 up to the year 10000 take the fast path; anything else goes to `Date`. */
const FAST_UNTIL = 253_402_300_800_000;
let isoDay = Number.NaN;
let isoDayPrefix = '';
const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/**
 * `new Date(ms).toISOString()`, exactly, but the date part is formatted once per day and the time
 * of day by arithmetic: a GET inventory page formats two instants per row, and `Date` objects
 * for them were a visible share of the main thread under load (figures: docs/performance.md,
 * P06).
 */
export function iso(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= FAST_UNTIL) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== isoDay) {
    isoDay = day;
    isoDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
  }
  const time = ms - day * DAY_MS;
  const hours = Math.floor(time / 3_600_000);
  const minutes = Math.floor(time / 60_000) % 60;
  const seconds = Math.floor(time / 1000) % 60;
  return `${isoDayPrefix}${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(time % 1000)}Z`;
}

/**
 * ISO 8601 date-times as readers and clients really write them, parsed to ms since the epoch.
 *
 * `Date.parse` is not enough: it is implementation-defined outside one exact format, so
 * `2025-01-08T15:36:53.123+0000` (Zebra, offset without colon) and nanosecond fractions
 * (`.123456789Z`, Impinj R700) are not reliably accepted. This parser takes:
 * `YYYY-MM-DD` `T` (or space) `hh:mm[:ss[.fraction]]` and an offset `Z`, `±hh`, `±hhmm` or
 * `±hh:mm`. Fractions finer than a millisecond are truncated, not rounded, so a read never moves
 * into the next millisecond. A time without an offset (ISO 8601 local time) is read on the clock
 * of `localZone`, the gateway's time zone: a reader or client on the site's LAN keeps the site's
 * time. Without a `localZone` it is refused.
 */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,12}))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** Ms since the epoch, or null when the text is not such a date-time (or not a real date). */
export function parseIsoDateTime(text: string, localZone?: string): number | null {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return null;
  // Optional groups that did not take part are undefined, whatever RegExpExecArray's type says.
  const m: (string | undefined)[] = match;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  // Only the first three fraction digits matter; padEnd turns `.5` into 500 ms.
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  if (day < 1 || day > daysInMonth(year, month)) return null;

  if (m[8] === undefined && m[9] === undefined) {
    if (localZone === undefined) return null;
    const ms = instantOfWallTime({ year, month, day, hour, minute, second, millis }, localZone);
    return Number.isFinite(ms) ? ms : null;
  }
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offsetHours = Number(m[10]);
    const offsetMins = m[11] === undefined ? 0 : Number(m[11]);
    if (offsetHours > 23 || offsetMins > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }

  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  // Date.UTC maps years 0-99 to 1900-1999; setting the year afterwards keeps it literal.
  date.setUTCFullYear(year, month - 1, day);
  const ms = date.getTime() - offsetMinutes * 60_000;
  return Number.isFinite(ms) ? ms : null;
}

/** Days in a month of the proleptic Gregorian calendar (February 29 in leap years). */
export function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one; year 2000+ avoids the 0-99 mapping.
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 ? (leap ? 29 : 28) : new Date(Date.UTC(2001, month, 0)).getUTCDate();
}

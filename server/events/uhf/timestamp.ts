import { instantOfWallTime } from '../../time';

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

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one; year 2000+ avoids the 0-99 mapping.
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 ? (leap ? 29 : 28) : new Date(Date.UTC(2001, month, 0)).getUTCDate();
}

import type { FieldError } from '../../contract/errors';
import { hexProblem, MAX_EPC_HEX_DIGITS } from './epc';
import { parseIsoDateTime } from '../../time';

/**
 * Readers for the fields of one tag record. Each takes the raw value and its absolute JSON
 * Pointer, returns the normalized value, or null when the field is absent, and pushes an error
 * when the field is present but unusable. Absent means missing *or* JSON null: readers write
 * null for values they did not measure. A present field of the wrong type is an error rather
 * than ignored, since it means the body is not the format we took it for.
 */

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const absent = (value: unknown): value is null | undefined => value === undefined || value === null;

/** A hex identifier (EPC, TID), upper-cased. */
export function hexId(value: unknown, path: string, label: string, errors: FieldError[]): string | null {
  if (absent(value)) return null;
  if (typeof value !== 'string') {
    errors.push({ path, message: `${label} must be a hex string` });
    return null;
  }
  const problem = hexProblem(value);
  if (problem !== null) {
    errors.push({ path, message: `${label} ${problem}` });
    return null;
  }
  return value.toUpperCase();
}

/**
 * An identifier sent as base64 bytes (Impinj R700 `epc`/`tid`), in either alphabet: firmware
 * versions differ between standard base64 and base64url. Returned as upper-case hex.
 */
export function base64Id(value: unknown, path: string, label: string, errors: FieldError[]): string | null {
  if (absent(value)) return null;
  if (typeof value !== 'string') {
    errors.push({ path, message: `${label} must be a base64 string` });
    return null;
  }
  const digits = value.replace(/=+$/, '');
  // Node's decoder skips characters outside the alphabet instead of failing, so check first;
  // a length of 4n+1 characters cannot encode whole bytes.
  if (digits.length === 0 || !/^[A-Za-z0-9+/_-]+$/.test(digits) || digits.length % 4 === 1) {
    errors.push({ path, message: `${label} must be base64 or base64url encoded bytes` });
    return null;
  }
  const hex = Buffer.from(digits, 'base64').toString('hex').toUpperCase();
  if (hex.length > MAX_EPC_HEX_DIGITS) {
    errors.push({ path, message: `${label} must be at most 62 bytes` });
    return null;
  }
  return hex;
}

/** An antenna port: a whole number 0-65535 (LLRP's antenna id is 16 bits). */
export function antenna(value: unknown, path: string, errors: FieldError[]): number | null {
  if (absent(value)) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 65535) {
    errors.push({ path, message: 'Antenna must be a whole number from 0 to 65535' });
    return null;
  }
  return value;
}

/** RSSI in dBm; `divisor` 100 turns Impinj centi-dBm into dBm. */
export function rssi(value: unknown, path: string, errors: FieldError[], divisor = 1): number | null {
  if (absent(value)) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    errors.push({ path, message: 'RSSI must be a number' });
    return null;
  }
  return value / divisor;
}

/** A reader name or MAC; an empty one counts as absent so the principal is used instead. */
export function readerName(value: unknown, path: string, label: string, errors: FieldError[]): string | null {
  if (absent(value)) return null;
  if (typeof value !== 'string') {
    errors.push({ path, message: `${label} must be a string` });
    return null;
  }
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : null;
}

/**
 * The last date-time text parsed, per zone: a reader's batch stamps its reads with a handful of
 * distinct times (Zebra's batch often one), so most reads repeat the previous one's text.
 */
let lastTime: { text: string; zone: string; ms: number | null } = { text: '', zone: '', ms: null };

function isoTime(text: string, zone: string): number | null {
  if (text === lastTime.text && zone === lastTime.zone) return lastTime.ms;
  const ms = parseIsoDateTime(text, zone);
  lastTime = { text, zone, ms };
  return ms;
}

/**
 * A read time in ms since the epoch. Strings are ISO 8601 date-times with an offset. Numbers are
 * taken in `numberUnit`: `ms` for the generic form, `us` for Speedway Connect, whose older
 * outputs give microseconds since the epoch (also as a digit string); `none` refuses numbers.
 */
export function readTime(
  value: unknown,
  path: string,
  label: string,
  errors: FieldError[],
  numberUnit: 'ms' | 'us' | 'none',
  localZone: string,
): number | null {
  if (absent(value)) return null;
  const scale = numberUnit === 'us' ? 1000 : 1;
  let ms: number | null = null;
  if (typeof value === 'string') {
    ms = /^\d+$/.test(value) && numberUnit === 'us' ? Number(value) / scale : isoTime(value, localZone);
  } else if (typeof value === 'number' && numberUnit !== 'none') {
    ms = value / scale;
  }
  // Number.isFinite also refuses NaN; 8.64e15 is the largest instant a Date can hold.
  if (ms === null || !Number.isFinite(ms) || ms < 0 || ms > 8.64e15) {
    const numbers = { ms: ' or ms since the epoch', us: ' or microseconds since the epoch', none: '' }[numberUnit];
    errors.push({ path, message: `${label} must be an ISO 8601 date-time${numbers}` });
    return null;
  }
  return Math.floor(ms);
}

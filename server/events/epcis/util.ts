import { isIPv6 } from 'node:net';
import type { FieldError } from '../../contract/errors';
import { daysInMonth } from '../../time';

/** The JSON-LD context of EPCIS 2.0, assumed for a bare event sent without one (SPEC §10). */
export const EPCIS_CONTEXT = 'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld';

/** Errors beyond this many are counted, not listed: a 100k-event document must not answer with 100k errors (SPEC §13). */
export const MAX_ERRORS = 100;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `Array.isArray` narrows `unknown` to `any[]`; this keeps the items `unknown`. */
export const isArray = (value: unknown): value is unknown[] => Array.isArray(value);

export const isNonEmptyArray = (value: unknown): value is unknown[] => Array.isArray(value) && value.length > 0;

/**
 * Errors (capped) and lenient-mode warnings of one validation run. `lenient` travels with it so
 * that every checker can decide between correcting a known deviation and reporting it.
 */
export class Report {
  readonly errors: FieldError[] = [];
  readonly warnings: FieldError[] = [];
  /** Every error found, listed or not: the answer's `errorCount` when more than the cap. */
  errorTotal = 0;

  constructor(readonly lenient: boolean) {}

  error(path: string, message: string): void {
    this.errorTotal++;
    if (this.errors.length < MAX_ERRORS) this.errors.push({ path, message });
  }

  warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }

  /**
   * The errors to answer with (the first 100). The walk goes on past the cap, counting only, so
   * `errorTotal` is the real total: linear in the body, and nothing more is kept.
   */
  result(): FieldError[] {
    return this.errors;
  }
}

// An absolute URI by RFC 3986 §3 (`URI = scheme ":" hier-part ["?" query] ["#" fragment]`), as
// JSON Schema's `format: "uri"` reads it: ASCII only, `%` only as a percent-escape, one `#`,
// brackets only around an IP literal in the authority. A compact IRI (`example:myField`,
// `ext1:float`) is such a URI too, which is what makes it a valid extension key.
const PCT = '%[0-9A-Fa-f]{2}';
const PCHAR = `(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@]|${PCT})`;
const TAIL = `(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?`;
const URI_WITH_AUTHORITY = new RegExp(
  `^[A-Za-z][A-Za-z0-9+.-]*://(?:(?:[A-Za-z0-9\\-._~!$&'()*+,;=:]|${PCT})*@)?` +
    `(\\[[^\\]]*\\]|(?:[A-Za-z0-9\\-._~!$&'()*+,;=]|${PCT})*)(?::[0-9]*)?(?:/${PCHAR}*)*${TAIL}$`,
);
const URI_WITHOUT_AUTHORITY = new RegExp(`^[A-Za-z][A-Za-z0-9+.-]*:(?!//)(?:${PCHAR}|/)*${TAIL}$`);
const IP_FUTURE = /^v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;

export function isUri(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (URI_WITHOUT_AUTHORITY.test(value)) return true;
  const match = URI_WITH_AUTHORITY.exec(value);
  if (!match) return false;
  const host = match[1] ?? '';
  if (!host.startsWith('[')) return true;
  const literal = host.slice(1, -1);
  // IPv6address of RFC 3986 has no zone id (`%25eth0` is RFC 6874, which JSON Schema does not take).
  return IP_FUTURE.test(literal) || (isIPv6(literal) && !literal.includes('%'));
}

/** A key the standard does not define is allowed only as a URI / prefixed name (`example:myField`). */
export const isExtensionKey = (key: string): boolean => isUri(key);

/**
 * The extension key to suggest for an unknown key: the key under an `example:` prefix when it has
 * none, with every character a URI cannot hold replaced by `_` (`"ex:my field"` → `"ex:my_field"`).
 */
export function suggestedExtensionKey(key: string): string {
  const prefixed = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(key) ? key : `example:${key}`;
  const suggestion = prefixed.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, '_');
  return isUri(suggestion) ? suggestion : 'example:myField';
}

// RFC 3339 date-time. The offset is mandatory: EPCIS times are instants, and a local time cannot
// be placed on the time line (JSON Schema's date-time format requires it too).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch of an RFC 3339 date-time with offset, or null when it is not one. */
export function parseDateTime(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const m = DATE_TIME.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [offH, offM] = [Number(m[10] ?? 0), Number(m[11] ?? 0)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60 || offH > 23 || offM > 59) return null;
  // Fractions beyond milliseconds (the GS1 samples carry microseconds) are truncated.
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // A leap second (:60) is counted as :59.999, the nearest instant JavaScript can hold.
  date.setUTCHours(hour, minute, Math.min(second, 59), second === 60 ? 999 : millis);
  const sign = m[9] === '-' ? -1 : 1;
  const instant = date.getTime() - sign * (offH * 60 + offM) * 60_000;
  // A leap second is only ever inserted as the last second of a UTC day (23:59:60Z).
  if (second === 60 && new Date(instant).getUTCHours() * 60 + new Date(instant).getUTCMinutes() !== 23 * 60 + 59)
    return null;
  return instant;
}

export const isDateTime = (value: unknown): value is string => parseDateTime(value) !== null;

/** Structural equality of JSON values (used to merge @context values without duplicates). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isArray(a) || isArray(b)) {
    return isArray(a) && isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
}

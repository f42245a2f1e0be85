import type { FieldError } from '../contract/errors';

/**
 * The outcome of validating/normalizing a payload. `warnings` carry lenient-mode corrections
 * (EPCIS) and are returned to the client beside the result; `errors` make the request a 422.
 * Paths are JSON Pointers into the submitted body (`/epcisBody/eventList/0/action`, `` for the root).
 */
export type Validation<T> =
  | { ok: true; value: T; warnings: FieldError[] }
  /** `errorCount`: the total, when a validator listed only the first errors it found (SPEC §13). */
  | { ok: false; errors: FieldError[]; errorCount?: number };

/** Parsing raw body text; `ok:false` means malformed JSON (a 400 `invalid_json`, not a 422). */
export type BodyParse = { ok: true; json: unknown } | { ok: false; message: string };

/** Facts about the request that processors may fall back to (reader id, trigger source, read time). */
export interface ReceiveContext {
  /** `external:<username>`, `user:<username>`, `token:<token name>` or `anonymous`. */
  principal: string;
  /** The reader a read names when its payload names none: the MQTT client id, else the principal (SPEC §15). */
  defaultReaderId: string;
  /** Milliseconds since the epoch at which the gateway received the request. */
  receivedAt: number;
  /** The gateway's time zone (setting `timeZone`): date-times sent without an offset are read in it. */
  timeZone: string;
}

export const ok = <T>(value: T, warnings: FieldError[] = []): Validation<T> => ({ ok: true, value, warnings });
export const fail = <T = never>(errors: FieldError[]): Validation<T> => ({ ok: false, errors });

/** Builds a JSON Pointer from path segments, escaping `~` and `/` as RFC 6901 requires. */
export function pointer(...segments: (string | number)[]): string {
  let path = '';
  for (const segment of segments) {
    const text = String(segment);
    // Most segments (field names, indexes) need no escaping: skip the two regex passes.
    path += '/' + (text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text);
  }
  return path;
}

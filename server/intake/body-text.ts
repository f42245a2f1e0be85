import { isUtf8 } from 'node:buffer';
import { SqlUtf8 } from '../db/sql-literal';
import { LARGE_BODY_BYTES } from '../events/large-body';
import type { Payload } from '../repositories/event-payload';

/** Why a body whose bytes are not UTF-8 is refused (400 `invalid_json`, SPEC §4). */
export const NOT_UTF8 = 'The body is not valid JSON: it is not UTF-8';

/**
 * A body's bytes as the intake carries them, or null when they are not UTF-8: it is stored
 * exactly as received, and bytes that are not UTF-8 would come back as U+FFFD. A short body
 * becomes text; a large one stays bytes (`SqlUtf8`, issue 38.3), since decoding 100 MiB into
 * one string holds the main thread for most of a second. Every transport decodes through here.
 */
export function payloadOf(raw: Buffer): Payload | null {
  if (!isUtf8(raw)) return null;
  return raw.length <= LARGE_BODY_BYTES ? raw.toString('utf8') : new SqlUtf8(raw);
}

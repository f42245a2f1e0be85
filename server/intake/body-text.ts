import { isUtf8 } from 'node:buffer';

/** Why a body whose bytes are not UTF-8 is refused (400 `invalid_json`, SPEC §4). */
export const NOT_UTF8 = 'The body is not valid JSON: it is not UTF-8';

/**
 * A body's text, or null when its bytes are not UTF-8: it is stored exactly as received, and
 * bytes that are not UTF-8 would come back as U+FFFD. Every transport decodes through here.
 */
export function utf8Text(raw: Buffer): string | null {
  return isUtf8(raw) ? raw.toString('utf8') : null;
}

import { createHash } from 'node:crypto';
import { LARGE_BODY_CHARS } from '../events/large-body';
import { sha256Hex } from '../secrets';
import { Slices } from '../slices';

/** Characters hashed per step of `bodyHash`. */
const HASH_STEP_CHARS = 4 * 1024 * 1024;

/**
 * SHA-256 (hex) of the body's UTF-8 bytes, which are exactly the bytes received (valid UTF-8
 * decodes and encodes back to itself): what an idempotency key records. A small body is hashed at
 * once (no promise); a large one a few megabytes per turn of the event loop, each cut between
 * whole characters.
 */
export function bodyHash(text: string): string | Promise<string> {
  return text.length <= LARGE_BODY_CHARS ? sha256Hex(text) : largeBodyHash(text);
}

async function largeBodyHash(text: string): Promise<string> {
  const hash = createHash('sha256');
  const slices = new Slices();
  for (let from = 0; from < text.length;) {
    let to = Math.min(text.length, from + HASH_STEP_CHARS);
    // Never between the two halves of a surrogate pair: each half alone would encode as U+FFFD.
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to++;
    hash.update(text.slice(from, to), 'utf8');
    from = to;
    if (slices.spent) await slices.yieldTurn();
  }
  return hash.digest('hex');
}

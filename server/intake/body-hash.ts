import { createHash } from 'node:crypto';
import type { Payload } from '../repositories/event-payload';
import { sha256Hex } from '../secrets';
import { Slices } from '../slices';

/** Bytes hashed per step of `bodyHash`. */
const HASH_STEP_BYTES = 4 * 1024 * 1024;

/**
 * SHA-256 (hex) of the body's UTF-8 bytes, which are exactly the bytes received (valid UTF-8
 * decodes and encodes back to itself): what an idempotency key records. A body given as text is
 * hashed at once (no promise); a large one, given as bytes, a few megabytes per turn of the event
 * loop.
 */
export function bodyHash(payload: Payload): string | Promise<string> {
  return typeof payload === 'string' ? sha256Hex(payload) : largeBodyHash(payload.bytes);
}

async function largeBodyHash(bytes: Buffer): Promise<string> {
  const hash = createHash('sha256');
  const slices = new Slices();
  for (let from = 0; from < bytes.length; from += HASH_STEP_BYTES) {
    hash.update(bytes.subarray(from, from + HASH_STEP_BYTES));
    if (slices.spent) await slices.yieldTurn();
  }
  return hash.digest('hex');
}

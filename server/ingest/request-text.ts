import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { Context } from 'koa';
import { AppError } from '../errors';
import { LARGE_BODY_CHARS } from '../events/large-body';
import { sha256Hex } from '../secrets';
import { Slices } from '../slices';
import type { BodyTicket } from './body-budget';
import { readBody } from './request-body';

/**
 * The body as text (`readBody`, then UTF-8 only). Its bytes are not kept: once decoded they are
 * garbage, where a caller holding the Buffer across its awaits would keep a 100 MiB body twice
 * for as long as the request runs (issue 38.3).
 */
export async function readBodyText(ctx: Context, limit: number, ticket: BodyTicket): Promise<string> {
  const raw = await readBody(ctx, limit);
  ticket.measured(raw.length);
  // Stored exactly as received: bytes that are not UTF-8 would come back as U+FFFD, so they are refused.
  if (!isUtf8(raw)) throw new AppError('invalid_json', 'The body is not valid JSON: it is not UTF-8');
  return raw.toString('utf8');
}

/** Characters hashed per step of `bodyHash`. */
const HASH_STEP_CHARS = 4 * 1024 * 1024;

/**
 * SHA-256 (hex) of the body's UTF-8 bytes, which are exactly the bytes received (valid UTF-8
 * decodes and encodes back to itself): what an idempotency key records. A large body is hashed a
 * few megabytes per turn of the event loop, each cut between whole characters.
 */
export async function bodyHash(text: string): Promise<string> {
  if (text.length <= LARGE_BODY_CHARS) return sha256Hex(text);
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

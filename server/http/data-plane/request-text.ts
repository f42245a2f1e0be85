import { isUtf8 } from 'node:buffer';
import type { Context } from 'koa';
import { AppError } from '../../errors';
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

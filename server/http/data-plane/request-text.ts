import type { Context } from 'koa';
import { AppError } from '../../errors';
import { NOT_UTF8, utf8Text } from '../../intake/body-text';
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
  const text = utf8Text(raw);
  if (text === null) throw new AppError('invalid_json', NOT_UTF8);
  return text;
}

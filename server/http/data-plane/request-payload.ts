import type { Context } from 'koa';
import { AppError } from '../../errors';
import { NOT_UTF8, payloadOf } from '../../intake/body-text';
import type { Payload } from '../../repositories/event-payload';
import type { BodyTicket } from './body-budget';
import { readBody } from './request-body';

/**
 * The body as the intake takes it (`readBody`, then UTF-8 only): text, or a large body's bytes.
 * A short body's bytes are not kept: once decoded they are garbage, where a caller holding the
 * Buffer across its awaits would keep the body twice for as long as the request runs.
 */
export async function readBodyPayload(ctx: Context, limit: number, ticket: BodyTicket): Promise<Payload> {
  const raw = await readBody(ctx, limit);
  ticket.measured(raw.length);
  const payload = payloadOf(raw);
  if (payload === null) throw new AppError('invalid_json', NOT_UTF8);
  return payload;
}

import type { Context, Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { AppError } from '../errors';
import { payloadTooLarge } from '../ingest/request-body';
import { continueIfAwaited } from './expect-continue';

/**
 * A JSON body parser with the gateway's answers, for `/token` and the admin API (the data plane
 * reads its bodies itself): over `limit` → 413 `payload_too_large`, refused before reading when
 * Content-Length says so; malformed → 400 `invalid_json`. Bodies of other types are not read
 * (the route decides what that means). A client waiting on `Expect: 100-continue` is invited
 * only when its body is JSON within the limit, the one case in which it will be read.
 */
export function jsonBodyParser(limit: number): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: String(limit),
    strict: true,
    onerror: (error: Error & { status?: number }, ctx: Context) => {
      throw error.status === 413
        ? payloadTooLarge(ctx, limit)
        : new AppError('invalid_json', 'The request body is not valid JSON');
    },
  });
  return (ctx, next) => {
    const length = ctx.request.length;
    if (length !== undefined && length > limit) throw payloadTooLarge(ctx, limit);
    if (ctx.is('json')) continueIfAwaited(ctx.req, ctx.res);
    return parse(ctx, next) as Promise<void>;
  };
}

import type { Context, Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { AppError } from '../errors';
import { payloadTooLarge } from './data-plane/request-body';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../json-depth';
import { continueIfAwaited } from './data-plane/expect-continue';

/**
 * A JSON body parser with the gateway's answers, for `/token` and the admin API (the data plane
 * reads its bodies itself): over `limit` → 413 `payload_too_large`, refused before reading when
 * Content-Length says so; malformed, or nested deeper than SPEC §13 allows → 400 `invalid_json`.
 * Bodies of other types are not read (the route decides what that means); `form: true` also reads
 * `application/x-www-form-urlencoded` (OAuth2's token requests). A client waiting on
 * `Expect: 100-continue` is invited only when its body is of a type read here and within the
 * limit, the one case in which it will be read.
 */
export function jsonBodyParser(limit: number, options: { form?: boolean } = {}): Middleware {
  const parse = bodyParser({
    enableTypes: options.form ? ['json', 'form'] : ['json'],
    jsonLimit: String(limit),
    formLimit: String(limit),
    strict: true,
    onerror: (error: Error & { status?: number }, ctx: Context) => {
      throw error.status === 413
        ? payloadTooLarge(ctx, limit)
        : new AppError('invalid_json', 'The request body is not valid JSON');
    },
  });
  return async (ctx, next) => {
    const length = ctx.request.length;
    if (length !== undefined && length > limit) throw payloadTooLarge(ctx, limit);
    if (ctx.is('json') || (options.form && ctx.is('urlencoded'))) continueIfAwaited(ctx.req, ctx.res);
    await parse(ctx, async () => {
      const raw = (ctx.request as { rawBody?: unknown }).rawBody;
      if (ctx.is('json') && typeof raw === 'string' && jsonTooDeep(raw)) {
        throw new AppError('invalid_json', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
      }
      await next();
    });
  };
}

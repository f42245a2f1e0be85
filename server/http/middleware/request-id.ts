import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries `X-Request-Id`: the client's own when it sent a sane one, else a new one. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const sent = ctx.get('X-Request-Id');
    const id = ACCEPTABLE.test(sent) ? sent : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}

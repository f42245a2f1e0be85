import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

/**
 * Printable ASCII, up to 128 characters: any id a client or proxy is likely to send (UUIDs,
 * `trace/123`, `job 7`) is echoed; control characters or a novel's length are not.
 */
const ACCEPTABLE = /^[\x20-\x7e]{1,128}$/;

/** Every response carries `X-Request-Id`: the client's own when it sent a sane one, else a new one. */
export function requestId(): Middleware {
  return (ctx, next) => {
    const sent = ctx.get('X-Request-Id');
    const id = ACCEPTABLE.test(sent) ? sent : randomUUID();
    ctx.state.requestId = id;
    // Straight to Node (nothing is sent yet): Koa's `set` builds arrays per call (issue 37).
    ctx.res.setHeader('X-Request-Id', id);
    return next();
  };
}

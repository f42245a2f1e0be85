import type { Middleware } from 'koa';
import type { ResponseCounters } from '../../metrics/response-counters';

/**
 * Counts every response by status class for `/_metrics`. Sits just inside the request id and
 * outside the problem handler, so it sees the final status of answers and refusals alike.
 */
export function countResponses(counters: ResponseCounters): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      // Nothing gets past the problem handler; if it ever does, Koa answers it as a 500.
      counters.count(500);
      throw error;
    }
    counters.count(ctx.status);
  };
}

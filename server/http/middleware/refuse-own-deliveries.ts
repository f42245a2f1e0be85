import type { Middleware } from 'koa';
import { GATEWAY_ID_HEADER } from '../../delivery/http-delivery';
import { AppError } from '../../errors';

/**
 * Refuses, with 508 `loop_detected`, a request that carries this gateway's own `X-Gateway-Id`:
 * one of its deliveries has come back to it (a destination whose URL leads to the gateway itself,
 * through a name, a proxy or an address the check on save could not see). Answered before the
 * body is read, so a loop costs one refused request per attempt instead of doubling its events
 * at every turn; the sender retries it like any 5xx and the destination shows the 508.
 */
export function refuseOwnDeliveries(gatewayId: string): Middleware {
  return (ctx, next) => {
    const marks = ctx.req.headers[GATEWAY_ID_HEADER];
    // Node joins a repeated header with ", ": any one of the values is enough.
    if (
      marks !== undefined &&
      String(marks)
        .split(',')
        .some((mark) => mark.trim() === gatewayId)
    ) {
      throw new AppError(
        'loop_detected',
        'This request is a delivery of this gateway to itself: a destination points back at the gateway (change its URL)',
      );
    }
    return next();
  };
}

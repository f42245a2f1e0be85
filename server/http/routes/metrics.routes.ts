import type { Context } from 'koa';
import { EXPOSITION_CONTENT_TYPE } from '../../metrics/exposition';
import type { GatewayMetrics } from '../../metrics/gateway-metrics';

/**
 * GET /GWENDPOINTAPI/_metrics, without authentication like `/_health`: scrapers on the LAN
 * rarely carry credentials, and the body holds counts only (see `GatewayMetrics`).
 */
export function metricsHandler(metrics: Pick<GatewayMetrics, 'render'>) {
  return async (ctx: Context): Promise<void> => {
    const text = await metrics.render();
    ctx.status = 200;
    // Before the body: Koa keeps a Content-Type already set instead of its plain `text/plain`.
    ctx.type = EXPOSITION_CONTENT_TYPE;
    ctx.body = text;
    ctx.set('Cache-Control', 'no-store');
  };
}

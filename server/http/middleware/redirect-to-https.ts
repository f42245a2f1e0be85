import type { Middleware } from 'koa';
import type { ClientAddressState } from './client-address';

/** `gateway.local:8080`, `[fd00::2]:8080`, `10.0.0.5` → the host part, or null when it is not a host. */
function hostOf(header: string): string | null {
  const host = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.split(':')[0];
  return /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]{1,253})$/.test(host) ? host : null;
}

/**
 * tlsMode `on` (SPEC §12): the HTTP port answers every request with 308 to the same path on
 * HTTPS, so a method and body are repeated as they were. A request a trusted proxy already
 * received over HTTPS is served: redirecting it would loop.
 */
export function redirectToHttps(httpsPort: () => number | null): Middleware {
  return async (ctx, next) => {
    const port = httpsPort();
    if (port === null || (ctx.state as ClientAddressState).clientScheme === 'https') {
      await next();
      return;
    }
    const local = ctx.req.socket.localAddress ?? '127.0.0.1';
    const host = hostOf(ctx.get('Host')) ?? (local.includes(':') ? `[${local}]` : local);
    ctx.status = 308;
    ctx.set('Location', `https://${host}${port === 443 ? '' : `:${port}`}${ctx.url}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = '';
  };
}

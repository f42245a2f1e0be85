import { isIP } from 'node:net';
import type { Context, Middleware } from 'koa';
import { AppError } from '../../errors';
import type { ClientAddressState } from './client-address';
import { hostOf, type HostAllowList } from './host-allow-list';

/**
 * The host a redirect may name, bracketed when IPv6: the request's own host when the allow-list
 * holds it, else the address the client reached (HTTP/1.0 without Host, or no allow-list). A
 * request in absolute form (`GET http://name/…`) names its host in the target, which RFC 9112
 * §3.2.2 says wins over `Host`. A name not on the list is refused, never echoed into `Location`.
 */
function redirectHost(ctx: Context, allowedHosts: HostAllowList | undefined): string {
  const target = ctx.req.url ?? '/';
  let header = ctx.get('Host');
  if (!target.startsWith('/') && target !== '*') {
    try {
      header = new URL(target).host;
    } catch {
      throw new AppError('invalid_host', 'The request target is not a valid URL');
    }
  }
  if (header !== '' && allowedHosts) {
    const name = hostOf(header);
    if (name === null) throw new AppError('invalid_host', 'The Host header is not a host name');
    if (!allowedHosts.allows(header)) {
      throw new AppError('host_not_allowed', 'This host name is not allowed (see GATEWAY_ALLOWED_HOSTS)');
    }
    return isIP(name) === 6 ? `[${name}]` : name;
  }
  const local = (ctx.req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.)/, '');
  return isIP(local) === 6 ? `[${local}]` : local;
}

/**
 * tlsMode `on` (SPEC §12): the HTTP port answers every request with 308 to the same path on
 * HTTPS, so a method and body are repeated as they were. The target is built from an allowed host
 * (see redirectHost), the HTTPS port and the request's path and query alone: an absolute-form
 * target's scheme and authority never reach `Location`. A request a trusted proxy already
 * received over HTTPS is served: redirecting it would loop.
 */
export function redirectToHttps(httpsPort: () => number | null, allowedHosts?: HostAllowList): Middleware {
  return async (ctx, next) => {
    const port = httpsPort();
    if (port === null || (ctx.state as ClientAddressState).clientScheme === 'https') {
      await next();
      return;
    }
    const host = redirectHost(ctx, allowedHosts);
    // Koa parses an absolute-form target too: `path` is its path alone (`*` has none).
    const path = ctx.path.startsWith('/') ? ctx.path : '/';
    ctx.status = 308;
    ctx.set('Location', `https://${host}${port === 443 ? '' : `:${port}`}${path}${ctx.search}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = '';
  };
}

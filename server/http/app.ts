import type { Settings } from '../contract/dto';
import { isLoopbackAddress } from '../address-ranges';
import { clientAddress, type ClientAddressState } from './middleware/client-address';
import { redirectToHttps } from './middleware/redirect-to-https';
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import type { CredentialVerifier } from '../auth/credentials';
import type { Lockout } from '../auth/lockout';
import type { GatewayHandlers } from '../contract/operations';
import { ADMIN_API_ROOT, ADMIN_ROOT, API_ROOT } from '../contract/paths';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import type { RefusalLog } from '../metrics/refusal-log';
import type { SessionsService } from '../auth/sessions.service';
import { adminAuth } from './middleware/admin-auth';
import { singleHost, type HostAllowList } from './middleware/host-allow-list';
import { refuseWhileStopping } from './graceful-stop';
import { countResponses } from './middleware/count-responses';
import { problems } from './middleware/problems';
import { refuseOwnDeliveries } from './middleware/refuse-own-deliveries';
import { requestId } from './middleware/request-id';
import { adminRouter } from './routes/admin.routes';
import { metricsHandler } from './routes/metrics.routes';
import { openApiHandler } from './routes/openapi.routes';
import { revokeHandler, tokenHandler } from './routes/token.routes';

/** HSTS for the admin (tlsMode `on`): a year, this name only (its subdomains are not the gateway's). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

export interface HealthReport {
  ok: boolean;
  body: Record<string, unknown>;
}

export interface AppDeps {
  logger: Logger;
  handlers: GatewayHandlers;
  verifier: CredentialVerifier;
  lockout: Lockout;
  sessions: SessionsService;
  health: () => Promise<HealthReport>;
  /** Issue 40: refused client requests, recorded where problem+json is written. */
  refusals?: RefusalLog;
  /** `/_metrics`; the app counts its responses into it. */
  metrics: GatewayMetrics;
  /** This gateway's `X-Gateway-Id`: a request carrying it is its own delivery come back (508). */
  gatewayId: string;
  /** The data plane (`/GWENDPOINTAPI/<base>/<route>`); everything unmatched is a 404. */
  dataPlane?: Middleware;
  /** Serves the built renderer under `/GWENDPOINTAPI/_admin/` (web admin). */
  adminAssets?: Middleware;
  /** Host names the admin API and web admin answer to (DNS rebinding); every name when absent. */
  allowedHosts?: HostAllowList;
  /** SPEC §12: trusted proxies, admin exposure, the HTTP→HTTPS redirect and the certificate. */
  network?: NetworkDeps;
}

export interface NetworkDeps {
  settings(): Pick<Settings, 'trustedProxies' | 'adminAccess'>;
  /**
   * The HTTPS port plain-HTTP requests are sent to (tlsMode `on` in the running listeners, which
   * also sends HSTS on the admin), or null to serve them.
   */
  httpsRedirectPort(): number | null;
  /** The certificate the HTTPS listener presents, or null when there is none. */
  certificatePem(): string | null;
}

/** A path with a malformed `%` escape cannot name anything: 400 rather than a decoder's 500. */
function assertDecodablePath(path: string): void {
  try {
    decodeURIComponent(path);
  } catch {
    throw new AppError('invalid_path', 'The request path holds a malformed percent-escape');
  }
}

const notFound = (): AppError => new AppError('route_not_found', 'No active route is configured at this address');

function onlyMethod(method: 'GET' | 'POST', handler: Middleware): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== method && !(method === 'GET' && ctx.method === 'HEAD')) {
      throw new AppError('method_not_allowed', `Use ${method} here`, { headers: { Allow: method } });
    }
    await handler(ctx, next);
  };
}

/**
 * One row of the top-level table: a path under `API_ROOT` (path-to-regexp syntax) and what
 * answers it. A `method` makes every other one a 405 with `Allow`; without one the handler takes
 * every method (the admin subtree, whose own router decides).
 */
interface TopLevelRoute {
  path: string;
  method?: 'GET' | 'POST';
  handler: Middleware;
}

/**
 * The gateway's own top-level paths. Each also answers with one trailing slash (decision 0301),
 * like the data plane's routes; `sensitive`: paths are case-sensitive, as the data plane's are.
 * `all` routes every method Node parses, so any other method meets the row's 405 rather than
 * falling through to the data plane.
 */
export function topLevelRouter(routes: readonly TopLevelRoute[]): Router {
  const router = new Router({ prefix: API_ROOT, sensitive: true, strict: false });
  for (const route of routes)
    router.all(route.path, route.method ? onlyMethod(route.method, route.handler) : route.handler);
  return router;
}

/**
 * The first path segment below `API_ROOT` of every row of the top-level table (`_health`,
 * `token`, …); null when a row's path is not plain text (then every path goes to the table).
 */
export function topLevelSegments(router: Router): ReadonlySet<string> | null {
  const segments = new Set<string>();
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string') return null;
    const below = layer.path.slice(API_ROOT.length + 1);
    const first = /^[^/{]*/.exec(below)?.[0] ?? '';
    const rest = below.slice(first.length);
    // A parameter or wildcard in the first segment could match anything there.
    const plain = first !== '' && !/[:(*]/.test(first);
    if (!plain || !(rest === '' || rest.startsWith('/') || rest.startsWith('{/'))) return null;
    segments.add(first);
  }
  return segments;
}

/**
 * Whether the top-level table could match `path`: its first segment below `API_ROOT/` is one of
 * the table's, or holds a `%` escape (the table's matching is left to decide those).
 */
export function mayBeTopLevel(path: string, segments: ReadonlySet<string> | null): boolean {
  const root = `${API_ROOT}/`;
  if (segments === null || !path.startsWith(root)) return true;
  const slash = path.indexOf('/', root.length);
  const first = path.slice(root.length, slash < 0 ? path.length : slash);
  return first.includes('%') || segments.has(first);
}

/**
 * Builds the Koa application without listening (`startServer` owns the socket), so tests and the
 * desktop shell create it the same way. The request id and the problem+json handler wrap
 * everything; the top-level table dispatches the gateway's own paths, and whatever it does not
 * match under `API_ROOT` goes to the data plane, whose route table owns `/<base>/<route>`.
 */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  const network = deps.network;
  const admin = adminRouter(deps.handlers);
  admin.prefix(ADMIN_API_ROOT);
  // Router middleware expects its own context extensions, which it adds itself at run time.
  const adminApi = compose([adminAuth(deps), admin.routes() as Middleware, admin.allowedMethods() as Middleware]);
  const health: Middleware = async (ctx) => {
    const report = await deps.health();
    ctx.status = report.ok ? 200 : 503;
    ctx.body = report.body;
    ctx.set('Cache-Control', 'no-store');
  };
  const certificate: Middleware = (ctx) => {
    const pem = network?.certificatePem() ?? null;
    if (pem === null) throw notFound();
    ctx.type = 'application/x-pem-file';
    ctx.set('Content-Disposition', 'attachment; filename="gateway-certificate.pem"');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = pem;
  };
  /** Everything under `_admin`, in this order: HSTS, local-only, host names, a decodable path. */
  const adminGuard: Middleware = async (ctx, next) => {
    // tlsMode `on` in the running listeners (plain HTTP only redirects): a browser that reached
    // the admin over HTTPS keeps to HTTPS for this name. Not with `both`, where HTTP is a
    // service in its own right; browsers ignore it for IP literals and over untrusted certificates.
    const httpsOnly = network !== undefined && network.httpsRedirectPort() !== null;
    if (httpsOnly && (ctx.state as ClientAddressState).clientScheme === 'https') {
      ctx.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    }
    if (network?.settings().adminAccess === 'local' && !isLoopbackAddress(ctx.request.ip)) {
      throw new AppError('admin_local_only', 'The admin answers only on this machine (adminAccess is "local")');
    }
    if (deps.allowedHosts && !deps.allowedHosts.allows(ctx.get('Host') || undefined)) {
      throw new AppError('host_not_allowed', 'This host name is not allowed for the admin (see GATEWAY_ALLOWED_HOSTS)');
    }
    assertDecodablePath(ctx.path);
    await next();
  };
  const adminApiHandler: Middleware = async (ctx) => {
    // Configuration and events are for the caller alone: no cache keeps any answer (errors too).
    ctx.set('Cache-Control', 'no-store');
    // The admin router answers 405 and OPTIONS from the routes it matched: the row that led
    // here (every method) must not count as one of them.
    (ctx as { matched?: unknown }).matched = undefined;
    await adminApi(ctx, () => Promise.resolve());
    // The router marks unknown paths 404 and known paths with another method 405 (access
    // tokens, for one, answer PUT/PATCH with 405: they cannot be edited); answer both as problems.
    if (ctx.status === 405 && ctx.body === undefined) {
      throw new AppError('method_not_allowed', 'This method is not supported here', {
        headers: { Allow: ctx.response.get('Allow') },
      });
    }
    if (ctx.status === 404 && ctx.body === undefined) throw notFound();
  };
  // The assets are the end of the line (what they pass on is Koa's 404); without them (tests,
  // the desktop shell) the rest of `_admin` is left to the data plane.
  const adminAssets: Middleware = async (ctx, next) => {
    await (deps.adminAssets ? deps.adminAssets(ctx, () => Promise.resolve()) : next());
  };

  const router = topLevelRouter([
    { path: '/_health', method: 'GET', handler: health },
    { path: '/token', method: 'POST', handler: tokenHandler(deps) },
    { path: '/token/revoke', method: 'POST', handler: revokeHandler(deps) },
    { path: '/_metrics', method: 'GET', handler: metricsHandler(deps.metrics) },
    {
      path: '/_openapi.json',
      method: 'GET',
      handler: openApiHandler({ serverUrl: API_ROOT, adminApiPath: ADMIN_API_ROOT.slice(API_ROOT.length) }),
    },
    ...(network ? [{ path: '/_tls/certificate.pem', method: 'GET' as const, handler: certificate }] : []),
    { path: `${ADMIN_API_ROOT.slice(API_ROOT.length)}{/*rest}`, handler: compose([adminGuard, adminApiHandler]) },
    { path: `${ADMIN_ROOT.slice(API_ROOT.length)}{/*rest}`, handler: compose([adminGuard, adminAssets]) },
  ]);

  app.use(requestId());
  app.use(countResponses(deps.metrics.responses));
  app.use(problems(deps.logger, deps.refusals));
  app.use(refuseWhileStopping());
  app.use(singleHost());
  app.use(refuseOwnDeliveries(deps.gatewayId));
  if (network) {
    app.use(clientAddress(() => network.settings().trustedProxies));
    app.use(redirectToHttps(() => network.httpsRedirectPort(), deps.allowedHosts));
  }
  app.use((ctx, next) => {
    // Straight to Node (nothing is sent yet): Koa's `set` builds arrays per call (issue 37).
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
    return next();
  });
  // The table is asked only about a path that one of its rows could match (its first segment is
  // one of theirs): a data route's POST does not pay for matching every row (issue 37).
  const table = router.routes() as (ctx: Koa.Context, next: Koa.Next) => Promise<void>;
  const ownSegments = topLevelSegments(router);
  app.use((ctx, next) => (mayBeTopLevel(ctx.path, ownSegments) ? table(ctx, next) : next()));
  // What the table did not take: the data plane's, when under the root.
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith(`${API_ROOT}/`) && deps.dataPlane) return void (await deps.dataPlane(ctx, next));
    throw notFound();
  });
  // Socket-level errors (client aborts, parse errors) are logged without request details.
  app.on('error', (error: Error) => deps.logger.warn('http error', { error: error.message }));
  return app;
}

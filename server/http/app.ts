import type { Settings } from '../contract/dto';
import { isLoopbackAddress } from '../address-ranges';
import { clientAddress, type ClientAddressState } from './middleware/client-address';
import { redirectToHttps } from './middleware/redirect-to-https';
import Koa, { type Middleware } from 'koa';
import compose from 'koa-compose';
import type { CredentialVerifier } from '../auth/credentials';
import type { Lockout } from '../auth/lockout';
import type { GatewayHandlers } from '../contract/operations';
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

export const API_ROOT = '/GWENDPOINTAPI';
export const ADMIN_API_PREFIX = `${API_ROOT}/_admin/api`;

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

function onlyMethod(method: string, handler: Middleware): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== method && !(method === 'GET' && ctx.method === 'HEAD')) {
      throw new AppError('method_not_allowed', `Use ${method} here`, { headers: { Allow: method } });
    }
    await handler(ctx, next);
  };
}

/**
 * Builds the Koa application without listening (`startServer` owns the socket), so tests and the
 * desktop shell create it the same way. Dispatch is by path prefix; the request id and the
 * problem+json handler wrap everything.
 */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  const admin = adminRouter(deps.handlers);
  admin.prefix(ADMIN_API_PREFIX);
  // Router middleware expects its own context extensions, which it adds itself at run time.
  const adminApi = compose([adminAuth(deps), admin.routes() as Middleware, admin.allowedMethods() as Middleware]);
  const token = onlyMethod('POST', tokenHandler(deps));
  const revoke = onlyMethod('POST', revokeHandler(deps));
  const health = onlyMethod('GET', async (ctx) => {
    const report = await deps.health();
    ctx.status = report.ok ? 200 : 503;
    ctx.body = report.body;
    ctx.set('Cache-Control', 'no-store');
  });
  const metrics = onlyMethod('GET', metricsHandler(deps.metrics));
  const certificate = onlyMethod('GET', (ctx) => {
    const pem = network?.certificatePem() ?? null;
    if (pem === null) throw notFound();
    ctx.type = 'application/x-pem-file';
    ctx.set('Content-Disposition', 'attachment; filename="gateway-certificate.pem"');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = pem;
  });
  const openApi = onlyMethod(
    'GET',
    openApiHandler({ serverUrl: API_ROOT, adminApiPath: ADMIN_API_PREFIX.slice(API_ROOT.length) }),
  );

  const network = deps.network;
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
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    const path = ctx.path;
    if (path === `${API_ROOT}/_tls/certificate.pem` && network) return void (await certificate(ctx, next));
    const isAdmin = path === `${API_ROOT}/_admin` || path.startsWith(`${API_ROOT}/_admin/`);
    // tlsMode `on` in the running listeners (plain HTTP only redirects): a browser that reached
    // the admin over HTTPS keeps to HTTPS for this name. Not with `both`, where HTTP is a
    // service in its own right; browsers ignore it for IP literals and over untrusted certificates.
    const httpsOnly = network !== undefined && network.httpsRedirectPort() !== null;
    if (isAdmin && httpsOnly && (ctx.state as ClientAddressState).clientScheme === 'https') {
      ctx.set('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    }
    if (isAdmin && network?.settings().adminAccess === 'local' && !isLoopbackAddress(ctx.request.ip)) {
      throw new AppError('admin_local_only', 'The admin answers only on this machine (adminAccess is "local")');
    }
    if (path === `${API_ROOT}/_health` || path === `${API_ROOT}/_health/`) return void (await health(ctx, next));
    if (path === `${API_ROOT}/token` || path === `${API_ROOT}/token/`) return void (await token(ctx, next));
    if (path === `${API_ROOT}/token/revoke`) return void (await revoke(ctx, next));
    if (path === `${API_ROOT}/_metrics` || path === `${API_ROOT}/_metrics/`) return void (await metrics(ctx, next));
    if (path === `${API_ROOT}/_openapi.json`) return void (await openApi(ctx, next));
    if (isAdmin) {
      if (deps.allowedHosts && !deps.allowedHosts.allows(ctx.get('Host') || undefined)) {
        throw new AppError(
          'host_not_allowed',
          'This host name is not allowed for the admin (see GATEWAY_ALLOWED_HOSTS)',
        );
      }
      assertDecodablePath(path);
    }
    if (path.startsWith(`${ADMIN_API_PREFIX}/`) || path === ADMIN_API_PREFIX) {
      // Configuration and events are for the caller alone: no cache keeps any answer (errors too).
      ctx.set('Cache-Control', 'no-store');
      await adminApi(ctx, next);
      // The router marks unknown paths 404 and known paths with another method 405 (access
      // tokens, for one, answer PUT/PATCH with 405: they cannot be edited); answer both as problems.
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new AppError('method_not_allowed', 'This method is not supported here', {
          headers: { Allow: ctx.response.get('Allow') },
        });
      }
      if (ctx.status === 404 && ctx.body === undefined) throw notFound();
      return;
    }
    if (isAdmin && deps.adminAssets) {
      return void (await deps.adminAssets(ctx, next));
    }
    if (path.startsWith(`${API_ROOT}/`) && deps.dataPlane) return void (await deps.dataPlane(ctx, next));
    throw notFound();
  });
  // Socket-level errors (client aborts, parse errors) are logged without request details.
  app.on('error', (error: Error) => deps.logger.warn('http error', { error: error.message }));
  return app;
}

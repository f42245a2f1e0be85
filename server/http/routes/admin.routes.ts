import Router from '@koa/router';
import { jsonBodyParser } from '../json-body-parser';
import type { Context, Middleware } from 'koa';
import type { GatewayHandlers, OperationName } from '../../contract/operations';
import { AppError } from '../../errors';

type Method = 'get' | 'post' | 'put' | 'delete';

export interface AdminRoute {
  method: Method;
  path: string;
  /** Success status when it is not 200. */
  status?: 201 | 204;
  /** Builds the operation's input from the request; the service validates it. */
  input?: (ctx: Context) => unknown;
}

const body = (ctx: Context): unknown => ctx.request.body;
// The path segment as sent: the service decides what a valid id is (`Number()` would read
// `0x10`, `1e1` or ` 7` as ids and make one record reachable at many addresses).
const id = (ctx: Context): unknown => ({ id: (ctx.params as Record<string, string>).id });
const idAndBody = (ctx: Context): unknown => ({ ...(ctx.request.body as object), ...(id(ctx) as object) });
const query = (ctx: Context): unknown => ({ ...ctx.query });

/** The input builders by name: the OpenAPI document tells from them where an operation's input comes from. */
export const ADMIN_INPUTS = { body, id, idAndBody, query } as const;

/**
 * The admin API (SPEC §6) as one table over the contract: `satisfies` makes a contract operation
 * without a route a compile error, and a route cannot name an operation that does not exist.
 */
export const ADMIN_ROUTES = {
  listEndpoints: { method: 'get', path: '/endpoints' },
  getEndpoint: { method: 'get', path: '/endpoints/:id', input: id },
  createEndpoint: { method: 'post', path: '/endpoints', status: 201, input: body },
  updateEndpoint: { method: 'put', path: '/endpoints/:id', input: idAndBody },
  deleteEndpoint: { method: 'delete', path: '/endpoints/:id', status: 204, input: id },

  listRoles: { method: 'get', path: '/roles' },
  getRole: { method: 'get', path: '/roles/:id', input: id },
  createRole: { method: 'post', path: '/roles', status: 201, input: body },
  updateRole: { method: 'put', path: '/roles/:id', input: idAndBody },
  deleteRole: { method: 'delete', path: '/roles/:id', status: 204, input: id },

  listUsers: { method: 'get', path: '/users' },
  getUser: { method: 'get', path: '/users/:id', input: id },
  createUser: { method: 'post', path: '/users', status: 201, input: body },
  updateUser: { method: 'put', path: '/users/:id', input: idAndBody },
  deleteUser: { method: 'delete', path: '/users/:id', status: 204, input: id },

  listExternalUsers: { method: 'get', path: '/external-users' },
  getExternalUser: { method: 'get', path: '/external-users/:id', input: id },
  createExternalUser: { method: 'post', path: '/external-users', status: 201, input: body },
  updateExternalUser: { method: 'put', path: '/external-users/:id', input: idAndBody },
  deleteExternalUser: { method: 'delete', path: '/external-users/:id', status: 204, input: id },

  listAccessTokens: { method: 'get', path: '/access-tokens' },
  getAccessToken: { method: 'get', path: '/access-tokens/:id', input: id },
  createAccessToken: { method: 'post', path: '/access-tokens', status: 201, input: body },
  regenerateAccessToken: { method: 'post', path: '/access-tokens/:id/regenerate', input: id },
  deleteAccessToken: { method: 'delete', path: '/access-tokens/:id', status: 204, input: id },

  listEvents: { method: 'get', path: '/events', input: query },
  getEvent: { method: 'get', path: '/events/:id', input: id },

  getSettings: { method: 'get', path: '/settings' },
  updateSettings: { method: 'put', path: '/settings', input: body },

  getTls: { method: 'get', path: '/tls' },
  installTls: { method: 'put', path: '/tls', input: body },
  regenerateTls: { method: 'post', path: '/tls/regenerate' },

  listAudit: { method: 'get', path: '/audit', input: query },

  exportBackup: { method: 'post', path: '/backup/export', input: body },
  importBackup: { method: 'post', path: '/backup/import', input: body },

  getStatus: { method: 'get', path: '/status' },
  getTraffic: { method: 'get', path: '/status/traffic' },
} as const satisfies Record<OperationName, AdminRoute>;

/** Routes whose answer is a file rather than JSON. */
export const FILE_RESULTS = new Set<OperationName>(['exportBackup']);

export function adminRouter(handlers: GatewayHandlers): Router {
  const router = new Router();
  // Backups travel base64 inside JSON, so this body limit is generous; data routes have their own.
  const parseJson = jsonBodyParser(64 * 1024 * 1024);
  const onlyJson: Middleware = (ctx, next) => {
    // Checked before the parser, so a body of another type is refused unread (and uninvited).
    if (ctx.method !== 'GET' && ctx.method !== 'DELETE' && ctx.request.length && !ctx.is('json')) {
      throw new AppError('unsupported_media_type', 'Send the request body as application/json');
    }
    return next();
  };
  for (const [operation, route] of Object.entries(ADMIN_ROUTES) as [OperationName, AdminRoute][]) {
    router[route.method](route.path, onlyJson, parseJson, async (ctx) => {
      const input = route.input ? route.input(ctx) : undefined;
      const handler = handlers[operation] as (input: unknown, context: { actor: string }) => Promise<unknown>;
      const result = await handler(input, { actor: String(ctx.state.actor) });
      if (FILE_RESULTS.has(operation)) return sendFile(ctx, result as { filename: string; data: string });
      ctx.status = route.status ?? 200;
      if (route.status !== 204) ctx.body = result;
    });
  }
  return router;
}

function sendFile(ctx: Context, file: { filename: string; data: string }): void {
  ctx.status = 200;
  ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
  ctx.type = 'application/octet-stream';
  ctx.body = Buffer.from(file.data, 'base64');
}

import Router from '@koa/router';
import { jsonBodyParser } from '../json-body-parser';
import type { Context, Middleware } from 'koa';
import { ADMIN_HTTP_ROUTES, type AdminHttpRoute } from '../../contract/admin-routes';
import type { GatewayHandlers, OperationName } from '../../contract/operations';
import { AppError } from '../../errors';

type Method = 'get' | 'post' | 'put' | 'delete';

export interface AdminRoute {
  method: Method;
  path: string;
  /** Success status when it is not 200. */
  status?: 201 | 202 | 204;
  /** Builds the operation's input from the request; the service validates it. */
  input?: (ctx: Context) => unknown;
}

const body = (ctx: Context): unknown => ctx.request.body;
// The path segment as sent: the service decides what a valid id is (`Number()` would read
// `0x10`, `1e1` or ` 7` as ids and make one record reachable at many addresses).
const id = (ctx: Context): unknown => ({ id: (ctx.params as Record<string, string>).id });
const idAndBody = (ctx: Context): unknown => ({ ...(ctx.request.body as object), ...(id(ctx) as object) });
const query = (ctx: Context): unknown => ({ ...ctx.query });
const idAndQuery = (ctx: Context): unknown => ({ ...ctx.query, ...(id(ctx) as object) });

/** The input builders by name: the OpenAPI document tells from them where an operation's input comes from. */
export const ADMIN_INPUTS = { body, id, idAndBody, query, idAndQuery } as const;

/** The contract's route table (server/contract/admin-routes.ts) with Koa's method names and input builders. */
export const ADMIN_ROUTES = Object.fromEntries(
  Object.entries(ADMIN_HTTP_ROUTES).map(([operation, route]: [string, AdminHttpRoute]) => [
    operation,
    {
      method: route.method.toLowerCase() as Method,
      path: route.path,
      ...(route.status ? { status: route.status } : {}),
      ...(route.input ? { input: ADMIN_INPUTS[route.input] } : {}),
    },
  ]),
) as Record<OperationName, AdminRoute>;

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
      // 204 has no body; neither has an accepted (202) operation that answers nothing.
      if (route.status !== 204 && result !== undefined) ctx.body = result;
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

import { STATUS_CODES } from 'node:http';
import type { Context, Middleware } from 'koa';
import type { ErrorCode } from '../../contract/errors';
import { API_ROOT } from '../../contract/paths';
import { AppError } from '../../errors';
import { isDatabaseUnavailable } from '../../db/unavailable';
import type { Logger } from '../../logger';
import type { RefusalLog } from '../../metrics/refusal-log';

/**
 * The one RFC 9457 problem body of the gateway (SPEC §4): `type`, `title`, `status`, `detail`,
 * the stable `code`, the request as `instance`, and whatever members the problem adds.
 */
export function problemBody(
  status: number,
  code: ErrorCode,
  detail: string,
  requestId: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: `urn:gateway:problem:${code}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    code,
    ...requestMembers(requestId),
    ...extra,
  };
}

/**
 * The members that name the request a problem answers: the request id, not the path (the three
 * kinds of 404 must be indistinguishable, SPEC §10). `instance` is a URI reference (RFC 9457): a
 * client's id may hold spaces or `%`, so it is escaped here.
 */
export const requestMembers = (requestId: string) => ({
  instance: `urn:gateway:request:${encodeURIComponent(requestId)}`,
  requestId,
});

/**
 * Whether a refusal at this path belongs in the refusal log: data routes, `/token` and any path a
 * client got wrong; not the gateway's own underscore paths (admin API, web admin, health,
 * metrics), whose callers are people at a screen or scrapers rather than readers.
 */
const OWN_PATHS = `${API_ROOT}/_`;
const isClientPath = (path: string): boolean => !path.startsWith(OWN_PATHS);

/**
 * Writes an AppError as problem+json with its stable `code`, and, given the refusal log, records
 * who was refused and why (issue 40): the one place every refusal on a data route passes.
 */
export function sendProblem(ctx: Context, error: AppError, refusals?: RefusalLog): void {
  const requestId = String(ctx.state.requestId ?? '');
  if (refusals && isClientPath(ctx.path)) {
    refusals.record({
      at: Date.now(),
      source: ctx.request.ip,
      method: ctx.method,
      path: ctx.path,
      status: error.status,
      code: error.code,
      // Set by the data plane once the path matched a configured route.
      route: typeof ctx.state.route === 'string' ? ctx.state.route : null,
    });
  }
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.body = problemBody(error.status, error.code, error.message, requestId, {
    ...(error.errors ? { errors: error.errors } : {}),
    ...(error.references ? { references: error.references } : {}),
    ...error.extra,
  });
  ctx.type = 'application/problem+json';
}

/** Errors thrown by body parsers and Koa itself, mapped onto our codes. */
function fromHttpError(error: { status?: unknown; type?: unknown; message?: unknown }): AppError | null {
  const status = typeof error.status === 'number' ? error.status : 0;
  const byStatus: Partial<Record<number, ErrorCode>> = {
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    405: 'method_not_allowed',
    404: 'route_not_found',
  };
  if (status === 400) return new AppError('invalid_json', 'The request body is not valid JSON');
  const code = byStatus[status];
  return code ? new AppError(code, typeof error.message === 'string' ? error.message : code) : null;
}

/**
 * Serializes an object body here rather than in Koa's response step, where a value that cannot be
 * written as JSON (a cycle, nesting beyond the stack) would become a plain-text 500: here it
 * throws into the handler below and becomes problem+json. The Content-Type set with the object
 * (JSON, problem+json) stays.
 */
function serializeBody(ctx: Context): void {
  const body: unknown = ctx.body;
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || isStream(body)) return;
  const text = JSON.stringify(body);
  ctx.body = text;
}

function isStream(value: object): boolean {
  return typeof (value as { pipe?: unknown }).pipe === 'function';
}

/**
 * The outermost handler after the request id: anything thrown below becomes problem+json. Only
 * AppErrors (and known HTTP errors) show their message; everything else is logged and answered
 * as a bare 500 `internal_error`, never with a stack.
 */
export function problems(logger: Logger, refusals?: RefusalLog): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      serializeBody(ctx);
    } catch (error) {
      if (error instanceof AppError) return sendProblem(ctx, error, refusals);
      const known = fromHttpError(error as object);
      if (known) return sendProblem(ctx, known, refusals);
      if (isDatabaseUnavailable(error)) {
        logger.warn('database unavailable', {
          requestId: ctx.state.requestId as string,
          error: (error as Error).message,
        });
        return sendProblem(
          ctx,
          new AppError('database_unavailable', 'The database is unavailable; retry shortly', {
            headers: { 'Retry-After': '5' },
          }),
          refusals,
        );
      }
      logger.error('request failed', {
        requestId: ctx.state.requestId as string,
        method: ctx.method,
        path: ctx.path,
        error,
      });
      sendProblem(ctx, new AppError('internal_error', 'The gateway could not complete this request'), refusals);
    }
  };
}

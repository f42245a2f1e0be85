import type { Context } from 'koa';
import type { ErrorCode } from '../../contract/errors';
import { AppError } from '../../errors';

/** The EPCIS exception names of SPEC §17, each with its status. */
const STATUS = {
  ValidationException: 400,
  QueryParameterException: 400,
  NoSuchNameException: 404,
  CaptureLimitExceededException: 413,
  ImplementationException: 500,
} as const;

export type EpcisException = keyof typeof STATUS;

/** Most EPCIS events one capture may carry (SPEC §17). */
export const CAPTURE_EVENT_LIMIT = 10_000;

/**
 * An EPCIS error as the gateway's one problem renderer writes it: `type:
 * "epcisException:<Name>"` beside the gateway's stable `code` (SPEC §17).
 */
export function epcisError(
  name: EpcisException,
  code: ErrorCode,
  detail: string,
  options: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
): AppError {
  return new AppError(code, detail, {
    status: STATUS[name],
    headers: options.headers,
    extra: { ...options.extra, type: `epcisException:${name}` },
  });
}

/** `GS1-EPCIS-Version` and `GS1-CBV-Version`: on every answer of these paths, errors included. */
export function setVersionHeaders(ctx: Context): void {
  ctx.set('GS1-EPCIS-Version', '2.0.0');
  ctx.set('GS1-CBV-Version', '2.0.0');
}

/** The capture limits as headers: on OPTIONS, and on the 413 that enforces each. */
export const limitHeaders = (bodyLimitBytes: number): Record<string, string> => ({
  'GS1-EPCIS-Capture-Limit': String(CAPTURE_EVENT_LIMIT),
  'GS1-EPCIS-Capture-File-Size-Limit': String(bodyLimitBytes),
});

/** A body over `bodyLimitBytes`, as EPCIS says it (SPEC §17). */
export const fileTooLarge = (bodyLimitBytes: number): AppError =>
  epcisError('CaptureLimitExceededException', 'payload_too_large', `The capture exceeds ${bodyLimitBytes} bytes`, {
    headers: { 'GS1-EPCIS-Capture-File-Size-Limit': String(bodyLimitBytes), Connection: 'close' },
  });

/**
 * A gateway error met on an EPCIS path in EPCIS terms where EPCIS has a name for it: a refused
 * body is a ValidationException, a query's bad parameter a QueryParameterException. Refusals
 * EPCIS leaves to the transport (401/403/429, 404 route, 405, 415, 503) keep the route's answer.
 */
export function asEpcisError(error: unknown, bodyLimitBytes: number): unknown {
  if (!(error instanceof AppError) || error.extra?.type !== undefined) return error;
  switch (error.code) {
    case 'payload_too_large':
      return fileTooLarge(bodyLimitBytes);
    case 'invalid_json':
    case 'validation_failed':
      return epcisError('ValidationException', error.code, error.message, {
        extra: { ...(error.errors ? { errors: error.errors } : {}), ...error.extra },
      });
    case 'invalid_query':
      return epcisError('QueryParameterException', error.code, error.message);
    case 'internal_error':
      return epcisError('ImplementationException', error.code, error.message);
    default:
      return error;
  }
}

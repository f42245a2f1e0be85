import type { ErrorCode, ErrorData, FieldError, RoleReference } from './contract/errors';

/** HTTP status for each code; transports without statuses (IPC) just carry the code. */
const STATUS_BY_CODE: Record<ErrorCode, number> = {
  credentials_missing: 401,
  credentials_invalid: 401,
  token_expired: 401,
  forbidden: 403,
  admin_local_only: 403,
  too_many_failures: 429,
  route_not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_json: 400,
  invalid_path: 400,
  host_not_allowed: 403,
  invalid_host: 400,
  request_incomplete: 400,
  invalid_query: 400,
  invalid_idempotency_key: 400,
  idempotency_key_reused: 409,
  receipt_not_found: 404,
  reader_not_found: 404,
  validation_failed: 400,
  overloaded: 503,
  not_found: 404,
  route_name_taken: 409,
  mqtt_topic_taken: 409,
  base_route_path_taken: 409,
  endpoint_name_taken: 409,
  username_taken: 409,
  role_name_taken: 409,
  role_in_use: 409,
  role_builtin: 409,
  token_name_taken: 409,
  last_admin: 409,
  destination_name_taken: 409,
  destination_in_use: 409,
  destination_loop: 400,
  loop_detected: 508,
  backup_invalid: 400,
  backup_version_unsupported: 400,
  port_in_use: 500,
  database_unavailable: 503,
  shutting_down: 503,
  internal_error: 500,
};

/**
 * The one error type services throw. It carries everything a client needs (code, message, field
 * errors); the HTTP layer renders it as problem+json, IPC as `{ok:false, ...}`. Anything that is
 * not an AppError is a bug and leaves the process as a bare 500 `internal_error`.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors?: FieldError[];
  readonly references?: RoleReference[];
  /** Extra members for the problem body (e.g. `error: "invalid_grant"` on /token). */
  readonly extra?: Record<string, unknown>;
  /** Extra response headers (`Retry-After`, `Allow`, `WWW-Authenticate`). */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      status?: number;
      errors?: FieldError[];
      references?: RoleReference[];
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? STATUS_BY_CODE[code];
    this.errors = options.errors;
    this.references = options.references;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  toData(): ErrorData {
    return {
      code: this.code,
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.references ? { references: this.references } : {}),
    };
  }
}

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);

export const validationFailed = (errors: FieldError[], status = 400): AppError =>
  new AppError(
    'validation_failed',
    errors.length === 1 ? (errors[0]?.message ?? 'Invalid input') : 'The input is invalid',
    {
      errors,
      status,
    },
  );

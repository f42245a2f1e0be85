/**
 * The closed set of error codes the gateway answers with, on every transport (HTTP problem+json,
 * IPC `{ok:false, code}`). Wording may change; codes never do, clients branch on them.
 */
export const ERROR_CODES = [
  // authentication and authorization (data plane, /token, admin API)
  'credentials_missing',
  'credentials_invalid',
  'token_expired',
  'forbidden',
  'admin_local_only',
  'too_many_failures',
  // request shape
  'route_not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'invalid_json',
  'invalid_path',
  'host_not_allowed',
  'invalid_host',
  'request_incomplete',
  'invalid_query',
  'invalid_idempotency_key',
  'idempotency_key_reused',
  'receipt_not_found',
  'reader_not_found',
  'validation_failed',
  'overloaded',
  // management conflicts
  'not_found',
  'route_name_taken',
  'mqtt_topic_taken',
  'base_route_path_taken',
  'endpoint_name_taken',
  'username_taken',
  'role_name_taken',
  'role_in_use',
  'role_builtin',
  'token_name_taken',
  'last_admin',
  'destination_name_taken',
  'destination_in_use',
  // delivery loops: a destination pointing at the gateway itself, a delivery come back
  'destination_loop',
  'loop_detected',
  // backups
  'backup_invalid',
  'backup_version_unsupported',
  // runtime
  'port_in_use',
  'database_unavailable',
  'shutting_down',
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One validation problem: `path` is a JSON Pointer into the submitted input (`/routes/0/name`). */
export interface FieldError {
  path: string;
  message: string;
}

/** A reference that keeps a role in use (body of 409 `role_in_use`). */
export interface RoleReference {
  kind: 'route' | 'user' | 'accessToken';
  id: number;
  name: string;
}

/** The transport-neutral shape of a failure: HTTP adds `type/title/status`, IPC sends it as is. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  errors?: FieldError[];
  references?: RoleReference[];
}

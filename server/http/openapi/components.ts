import { EVENT_STATUSES } from '../../contract/dto';
import { ERROR_CODES } from '../../contract/errors';

/** A piece of the OpenAPI document: plain JSON, checked by the tests rather than by types. */
export type Json = Record<string, unknown>;

export const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string): Json => ({
  $ref: `#/components/${kind}/${name}`,
});

/** Every response carries the request id (SPEC §10), refusals included. */
export const withRequestId = (headers: Json = {}): Json => ({
  'X-Request-Id': ref('headers', 'XRequestId'),
  ...headers,
});

export const jsonResponse = (description: string, schema: Json, headers: Json = {}): Json => ({
  description,
  headers: withRequestId(headers),
  content: { 'application/json': { schema } },
});

const problemResponse = (description: string, headers: Json = {}): Json => ({
  description,
  headers: withRequestId(headers),
  content: { 'application/problem+json': { schema: ref('schemas', 'Problem') } },
});

const securitySchemes = {
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description:
      'On data routes with authType `basic`: an active external user assigned to the route. On `/token`: a dashboard user (instead of the JSON body).',
  },
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description:
      'A bearer token from `POST /token` (`gwbt_…`). On data routes with authType `OAuth2` an access token (`gwat_…`) is also taken in this form. The admin API takes only the bearer token of an active user with role `admin`.',
  },
  accessToken: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      "An access token (`gwat_…`) as the whole `Authorization` value, on data routes with authType `OAuth2` whose roles include the token's role. Never accepted by the admin API.",
  },
};

const fieldError = {
  type: 'object',
  required: ['path', 'message'],
  properties: {
    path: { type: 'string', description: 'JSON Pointer into the submitted input (`/routes/0/name`).' },
    message: { type: 'string' },
  },
};

const schemas = {
  FieldError: fieldError,
  RoleReference: {
    type: 'object',
    required: ['kind', 'id', 'name'],
    properties: {
      kind: { type: 'string', enum: ['route', 'user', 'accessToken'] },
      id: { type: 'integer' },
      name: { type: 'string' },
    },
  },
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details, plus a stable `code` that clients branch on (the wording may change).',
    required: ['type', 'title', 'status', 'detail', 'code'],
    properties: {
      type: { type: 'string', format: 'uri', description: '`urn:gateway:problem:<code>`' },
      title: { type: 'string', description: 'The HTTP reason phrase.' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      code: { type: 'string', enum: [...ERROR_CODES] },
      instance: { type: 'string', format: 'uri', description: '`urn:gateway:request:<request id>`' },
      requestId: { type: 'string' },
      errors: { type: 'array', items: ref('schemas', 'FieldError') },
      references: { type: 'array', items: ref('schemas', 'RoleReference'), description: 'With `role_in_use`.' },
      error: { type: 'string', description: 'On `/token`, the OAuth2 error: `invalid_grant` or `invalid_request`.' },
    },
  },
  EventProcessed: {
    type: 'object',
    required: ['id', 'eventType', 'status', 'result'],
    properties: {
      id: { type: 'string' },
      eventType: ref('schemas', 'EventType'),
      status: { const: 'processed' },
      result: {
        type: 'object',
        description: 'What the event type made of the payload (e.g. `{reads, uniqueEpcs, duplicatesSuppressed}`).',
      },
      warnings: {
        type: 'array',
        items: ref('schemas', 'FieldError'),
        description: 'Corrections made on a lenient EPCIS route; CustomTrigger fields that were ignored.',
      },
    },
  },
  EventQueued: {
    type: 'object',
    required: ['id', 'status'],
    properties: { id: { type: 'string' }, status: { const: 'queued' } },
  },
  EventRejected: {
    description: 'A payload the event type refuses: the event is kept with status `rejected`, `id` names it.',
    allOf: [
      ref('schemas', 'Problem'),
      { type: 'object', required: ['id', 'errors'], properties: { id: { type: 'string' } } },
    ],
  },
  Receipt: {
    type: 'object',
    required: ['id', 'eventType', 'status', 'receivedAt'],
    properties: {
      id: { type: 'string' },
      eventType: ref('schemas', 'EventType'),
      status: { type: 'string', enum: [...EVENT_STATUSES] },
      receivedAt: { type: 'string', format: 'date-time' },
      processedAt: { type: 'string', format: 'date-time' },
      result: { type: 'object' },
      errors: { type: 'array', items: ref('schemas', 'FieldError') },
      warnings: { type: 'array', items: ref('schemas', 'FieldError') },
    },
  },
  SnapshotPage: {
    type: 'object',
    required: ['items', 'nextCursor'],
    properties: {
      items: {
        type: 'array',
        items: { type: 'object' },
        description: 'Newest first; the item shape depends on the event type.',
      },
      nextCursor: { type: ['string', 'null'] },
    },
  },
  TokenRequest: {
    type: 'object',
    required: ['userName', 'password'],
    properties: { userName: { type: 'string' }, password: { type: 'string', format: 'password', writeOnly: true } },
  },
  TokenResponse: {
    type: 'object',
    required: ['access_token', 'token_type', 'expires_in', 'roles'],
    properties: {
      access_token: { type: 'string', description: '`gwbt_` + 43 base64url characters; shown once.' },
      token_type: { const: 'Bearer' },
      expires_in: { type: 'integer', description: 'Seconds (setting `bearerTokenTtlSeconds`).' },
      roles: { type: 'array', items: { type: 'string' } },
    },
  },
  Health: {
    type: 'object',
    required: ['status', 'version', 'database'],
    properties: {
      status: { type: 'string', enum: ['ok', 'degraded'] },
      reasons: {
        type: 'array',
        description: 'Why writes are not fully taken, or not passed on to destinations (503 only).',
        items: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: {
              type: 'string',
              enum: [
                'writes_failing',
                'writer_stalled',
                'queue_full',
                'database_unreachable',
                'outbox_full',
                'delivery_failing',
              ],
            },
            message: { type: 'string' },
          },
        },
      },
      version: { type: 'string' },
      database: {
        type: 'object',
        required: ['kind', 'reachable'],
        properties: { kind: { type: 'string', enum: ['sqlite', 'postgres'] }, reachable: { type: 'boolean' } },
      },
      queueDepth: { type: 'integer' },
      queue: {
        type: 'object',
        properties: {
          depth: { type: 'integer' },
          limit: { type: 'integer' },
          waitingForWriter: { type: 'integer' },
          oldestWaitMs: { type: 'integer' },
        },
      },
      writer: {
        type: 'object',
        properties: {
          lastCommitAt: { type: ['string', 'null'], format: 'date-time' },
          lastErrorAt: { type: ['string', 'null'], format: 'date-time' },
          lastError: { type: ['string', 'null'] },
          flushingMs: { type: 'integer' },
        },
      },
      disk: {
        type: 'object',
        description: 'Free space of the data folder (null with PostgreSQL or when unknown).',
        properties: { freeBytes: { type: ['integer', 'null'] } },
      },
      commit: {
        type: 'object',
        description: 'Group-commit counters since start.',
        properties: { flushes: { type: 'integer' }, events: { type: 'integer' }, jobs: { type: 'integer' } },
      },
    },
  },
};

const headers = {
  XRequestId: {
    description:
      "The client's own `X-Request-Id` when it sent a printable one of up to 128 characters, else a new one.",
    schema: { type: 'string' },
  },
  Allow: { description: 'The method this path answers.', schema: { type: 'string' } },
  RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
  WWWAuthenticate: {
    description: '`Basic realm="GWENDPOINTAPI"` or `Bearer realm="GWENDPOINTAPI"`, after the route\'s authType.',
    schema: { type: 'string' },
  },
  Location: { description: "The receipt's path.", schema: { type: 'string' } },
  ContentDisposition: { description: '`attachment; filename="…"`', schema: { type: 'string' } },
};

const parameters = {
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'Echoed on the response (printable ASCII, up to 128 characters); generated when absent.',
    schema: { type: 'string', maxLength: 128 },
  },
};

const responses = {
  BadRequest: problemResponse(
    'Malformed or invalid input (`invalid_json`, `invalid_query`, `validation_failed`, …); `errors` lists each problem.',
  ),
  Unauthorized: problemResponse(
    'No credential (`credentials_missing`), or one that is unknown, of the wrong kind (`credentials_invalid`) or expired (`token_expired`).',
    { 'WWW-Authenticate': ref('headers', 'WWWAuthenticate') },
  ),
  Forbidden: problemResponse('A valid credential that is not allowed here (`forbidden`).'),
  NotFound: problemResponse('Nothing at this address (`route_not_found`, `not_found`, `receipt_not_found`).'),
  MethodNotAllowed: problemResponse('Another method is expected (`method_not_allowed`).', {
    Allow: ref('headers', 'Allow'),
  }),
  Conflict: problemResponse(
    'The request conflicts with the current state (`route_name_taken`, `role_in_use`, `token_expired`, `idempotency_key_reused`, …).',
  ),
  PayloadTooLarge: problemResponse('The body is over the limit (`payload_too_large`).'),
  UnsupportedMediaType: problemResponse('The body is not JSON (`unsupported_media_type`).'),
  TooManyFailures: problemResponse(
    'Too many failed authentications from this address or for this username (`too_many_failures`).',
    { 'Retry-After': ref('headers', 'RetryAfter') },
  ),
  Unavailable: problemResponse(
    'Overloaded, the database is unavailable, or the gateway is stopping (`overloaded`, `database_unavailable`, `shutting_down`).',
    {
      'Retry-After': ref('headers', 'RetryAfter'),
    },
  ),
  LoopDetected: problemResponse(
    "The request carries this gateway's own `X-Gateway-Id`: its own delivery came back (`loop_detected`).",
  ),
};

export const COMPONENTS = { securitySchemes, schemas, responses, parameters, headers };

import { EVENT_TYPES, type EventType } from '../../contract/dto';
import { PROCESSORS } from '../../events/registry';
import { jsonResponse, ref, withRequestId, type Json } from './components';

const problem = (name: string): Json => ref('responses', name);

/** Who may call a data route depends on its authType; each alternative is one of them (`{}`: noauth). */
const DATA_ROUTE_SECURITY = [{ basicAuth: [] }, { bearerAuth: [] }, { accessToken: [] }, {}];
const NO_AUTH: Json[] = [];

const routeParameters = [
  {
    name: 'base',
    in: 'path',
    required: true,
    description: "The endpoint's base route path.",
    schema: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' },
  },
  {
    name: 'route',
    in: 'path',
    required: true,
    description: "The route's name.",
    schema: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' },
  },
];

/** Each event type's own GET filters, from the processors, naming the event types that take them. */
function filterParameters(): Json[] {
  const takers = new Map<string, EventType[]>();
  for (const eventType of EVENT_TYPES) {
    for (const name of PROCESSORS[eventType].filterNames) takers.set(name, [...(takers.get(name) ?? []), eventType]);
  }
  return [...takers].map(([name, eventTypes]) => ({
    name,
    in: 'query',
    required: false,
    description: `Filter of ${eventTypes.join(', ')} routes; other routes refuse it with 400.`,
    schema: { type: 'string' },
  }));
}

const snapshotParameters = (): Json[] => [
  {
    name: 'since',
    in: 'query',
    description: 'ISO 8601; receive time (inventory: lastSeen) at or after.',
    schema: { type: 'string', format: 'date-time' },
  },
  {
    name: 'until',
    in: 'query',
    description: 'ISO 8601; receive time (inventory: lastSeen) before.',
    schema: { type: 'string', format: 'date-time' },
  },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
  {
    name: 'cursor',
    in: 'query',
    description: 'The `nextCursor` of the previous page, as given.',
    schema: { type: 'string' },
  },
  ...filterParameters(),
];

/** Refusals that any data route may answer before it reads a body. */
const routeRefusals = {
  '401': problem('Unauthorized'),
  '403': problem('Forbidden'),
  '404': problem('NotFound'),
  '405': problem('MethodNotAllowed'),
  '429': problem('TooManyFailures'),
  '503': problem('Unavailable'),
  '508': problem('LoopDetected'),
};

const dataRoute = {
  parameters: routeParameters,
  post: {
    operationId: 'submitEvent',
    summary: 'Submit an event to a POST route',
    description:
      "A request carrying this gateway's own `X-Gateway-Id` (its own delivery come back) is refused first (508). Then checked in this order: route (404, the same for an unknown or inactive route or endpoint) → method (405) → credential (401/403/429), before any body is read → content type (415) → size (413) → JSON (400) → the event type's validation (422, the event kept as `rejected`). A sync route answers 200 once the event is processed and stored; an async route answers 202 once it is durably queued, with its receipt in `Location`.",
    tags: ['Data plane'],
    security: DATA_ROUTE_SECURITY,
    parameters: [
      ref('parameters', 'RequestId'),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'A repeat with the same key on this route by the same caller within 24 h answers the first response again.',
        schema: { type: 'string', maxLength: 255 },
      },
    ],
    requestBody: {
      required: true,
      description: "JSON whose shape the route's event type defines (`application/*+json` is taken as well).",
      content: { 'application/json': { schema: {} }, 'application/ld+json': { schema: {} } },
    },
    responses: {
      '200': jsonResponse('Processed and stored (sync route).', ref('schemas', 'EventProcessed')),
      '202': jsonResponse('Durably queued (async route).', ref('schemas', 'EventQueued'), {
        Location: ref('headers', 'Location'),
      }),
      '400': problem('BadRequest'),
      ...routeRefusals,
      '409': problem('Conflict'),
      '413': problem('PayloadTooLarge'),
      '415': problem('UnsupportedMediaType'),
      '422': {
        description: 'The event type refuses the payload; the event is kept with status `rejected`.',
        headers: withRequestId(),
        content: { 'application/problem+json': { schema: ref('schemas', 'EventRejected') } },
      },
    },
  },
  get: {
    operationId: 'getSnapshot',
    summary: "Read what the endpoint ingested for a GET route's event type",
    description:
      'Per endpoint: what any route of the same endpoint ingested for this event type, newest first. Unknown parameters answer 400.',
    tags: ['Data plane'],
    security: DATA_ROUTE_SECURITY,
    parameters: [ref('parameters', 'RequestId'), ...snapshotParameters()],
    responses: {
      '200': jsonResponse('One page.', ref('schemas', 'SnapshotPage')),
      '400': problem('BadRequest'),
      ...routeRefusals,
    },
  },
};

const receipt = {
  parameters: [
    ...routeParameters,
    {
      name: 'id',
      in: 'path',
      required: true,
      description: 'The id of an async submission.',
      schema: { type: 'string' },
    },
  ],
  get: {
    operationId: 'getReceipt',
    summary: 'The state of an async submission',
    description: 'Same credential as the route. An id of another route answers 404 `receipt_not_found`.',
    tags: ['Data plane'],
    security: DATA_ROUTE_SECURITY,
    parameters: [ref('parameters', 'RequestId')],
    responses: { '200': jsonResponse('The receipt.', ref('schemas', 'Receipt')), ...routeRefusals },
  },
};

const token = {
  post: {
    operationId: 'issueToken',
    summary: 'Log a dashboard user in: a bearer token',
    description:
      'The credentials as JSON `{userName, password}`, as the RFC 6749 §4.3 form (`grant_type=password&username=…&password=…`) or as `Authorization: Basic`. Refusals carry `error` (`invalid_grant` for wrong credentials) with `error_description`, and no `WWW-Authenticate`.',
    tags: ['Authentication'],
    security: [{}, { basicAuth: [] }],
    parameters: [ref('parameters', 'RequestId')],
    requestBody: {
      required: false,
      content: {
        'application/json': { schema: ref('schemas', 'TokenRequest') },
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['grant_type', 'username', 'password'],
            properties: {
              grant_type: { const: 'password' },
              username: { type: 'string' },
              password: { type: 'string', format: 'password', writeOnly: true },
            },
          },
        },
      },
    },
    responses: {
      '200': jsonResponse('A bearer token.', ref('schemas', 'TokenResponse'), {
        'Cache-Control': { schema: { const: 'no-store' } },
        Pragma: { schema: { const: 'no-cache' } },
      }),
      '400': problem('BadRequest'),
      '401': problem('Unauthorized'),
      '405': problem('MethodNotAllowed'),
      '413': problem('PayloadTooLarge'),
      '429': problem('TooManyFailures'),
    },
  },
};

const revoke = {
  post: {
    operationId: 'revokeToken',
    summary: 'End a bearer token (sign-out)',
    description: 'RFC 7009: the token as a form field or JSON `{token}`. 200 whether or not the token was known.',
    tags: ['Authentication'],
    security: NO_AUTH,
    parameters: [ref('parameters', 'RequestId')],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } },
        },
        'application/x-www-form-urlencoded': {
          schema: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } },
        },
      },
    },
    responses: {
      '200': jsonResponse('Revoked, or never known.', { type: 'object' }),
      '400': problem('BadRequest'),
      '405': problem('MethodNotAllowed'),
    },
  },
};

const health = {
  get: {
    operationId: 'getHealth',
    summary: 'Liveness and readiness',
    tags: ['Gateway'],
    security: NO_AUTH,
    responses: {
      '200': jsonResponse('Up, database reachable.', ref('schemas', 'Health')),
      '503': jsonResponse(
        'Degraded: writes fail, the writer stalls, the queue is full or the database is unreachable.',
        ref('schemas', 'Health'),
      ),
    },
  },
};

const metrics = {
  get: {
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description:
      'Prometheus text exposition format 0.0.4 (`text/plain; version=0.0.4; charset=utf-8`): queue depth, events received/processed/rejected per event type, group-commit counters, uptime, responses per status class. Counts only: no names of people, no credentials.',
    tags: ['Gateway'],
    security: NO_AUTH,
    responses: {
      '200': {
        description: 'The metrics.',
        headers: withRequestId(),
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
  },
};

const openApi = {
  get: {
    operationId: 'getOpenApi',
    summary: 'This document',
    tags: ['Gateway'],
    security: NO_AUTH,
    responses: { '200': jsonResponse('OpenAPI 3.1.', { type: 'object' }) },
  },
};

/** Everything under the API root but the admin API. */
export const gatewayPaths = (): Record<string, Json> => ({
  '/{base}/{route}': dataRoute,
  '/{base}/{route}/receipts/{id}': receipt,
  '/token': token,
  '/token/revoke': revoke,
  '/_health': health,
  '/_metrics': metrics,
  '/_openapi.json': openApi,
});

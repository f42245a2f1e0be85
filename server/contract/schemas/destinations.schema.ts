import { DEAD_LETTER_REASONS, DESTINATION_AUTH_TYPES, DESTINATION_STATES } from '../enums';
import { extend, named, optional, s } from '../schema';

/**
 * SPEC §11. The service reads a destination's input with its own reader (headers are a map of
 * any header names, auth a choice of shapes: neither is a fixed-member object this language
 * describes); these schemas give the types and the document, and the reader follows them.
 */

const AUTH = named(
  'DestinationAuth',
  s.object({
    type: s.enum(DESTINATION_AUTH_TYPES),
    username: optional(s.string({ description: 'basic only.' })),
  }),
  'How the gateway authenticates to the receiver. Passwords, tokens and secrets are never answered.',
);

const AUTH_INPUT = named(
  'DestinationAuthInput',
  s.object({
    type: s.enum(DESTINATION_AUTH_TYPES),
    username: optional(s.string({ max: 256, description: 'basic: required.' })),
    password: optional(
      s.string({
        max: 1024,
        format: 'password',
        description: 'basic: required on create; omitted on update keeps it.',
      }),
    ),
    token: optional(
      s.string({
        max: 8192,
        format: 'password',
        description: 'bearer: required on create; omitted on update keeps it.',
      }),
    ),
  }),
  '`hmac` takes nothing: the gateway makes a 32-byte secret and answers it once.',
);

const LAST_ERROR = s.nullable(
  s.object({
    at: s.string({ format: 'date-time' }),
    status: s.nullable(s.integer()),
    message: s.string(),
  }),
);

export const DESTINATION_STATUS = named(
  'DestinationStatus',
  s.object({
    state: s.enum(DESTINATION_STATES),
    backlog: s.integer({ description: 'Items waiting to be delivered (dead letters not counted).' }),
    oldestPendingAt: s.nullable(s.string({ format: 'date-time' })),
    deliveredLastMinute: s.integer(),
    lastError: LAST_ERROR,
    nextAttemptAt: s.nullable(
      s.string({
        format: 'date-time',
        description: 'When the batch that failed is tried again; null while none waits for a retry.',
      }),
    ),
  }),
);

const HEADERS = s.unknown<Record<string, string>>({
  description:
    'Header name → value, sent with every batch. Content-Type, Content-Length, Host and Idempotency-Key are refused.',
});

export const DESTINATION = named(
  'Destination',
  s.object({
    id: s.integer(),
    name: s.string(),
    kind: s.literal('http'),
    url: s.string(),
    headers: HEADERS,
    auth: AUTH,
    timeoutMs: s.integer(),
    batchMaxEvents: s.integer(),
    batchMaxWaitMs: s.integer(),
    maxRetryAgeSeconds: s.integer(),
    tlsVerify: s.boolean(),
    caCertificatePem: s.nullable(s.string()),
    active: s.boolean(),
    createdDate: s.string({ format: 'date-time' }),
    status: DESTINATION_STATUS,
    routes: s.array(s.string(), {
      description: 'Names of the routes that send to it; empty: it receives nothing.',
    }),
  }),
);

/** Create, update and regenerate: `secret` is there the one time an hmac secret is made. */
export const DESTINATION_WITH_SECRET = extend(
  DESTINATION,
  { secret: optional(s.string({ description: 'The HMAC secret: shown this once.' })) },
  'DestinationWithSecret',
);

export const DESTINATION_INPUT = named(
  'DestinationInput',
  s.object({
    name: s.string({ max: 64, label: 'Name', description: 'Unique, case-insensitively.' }),
    kind: optional(s.literal('http')),
    url: s.string({ max: 2048, label: 'URL', description: 'http:// or https://' }),
    headers: optional(HEADERS),
    auth: optional(AUTH_INPUT),
    timeoutMs: optional(s.integer({ min: 1000, max: 120_000, description: '10000 when absent.' })),
    batchMaxEvents: optional(s.integer({ min: 1, max: 1000, description: '100 when absent.' })),
    batchMaxWaitMs: optional(s.integer({ min: 0, max: 60_000, description: '1000 when absent.' })),
    maxRetryAgeSeconds: optional(s.integer({ min: 60, max: 2_592_000, description: '604800 when absent.' })),
    tlsVerify: optional(s.boolean({ description: 'true when absent.' })),
    caCertificatePem: optional(
      s.nullable(s.string({ description: 'PEM certificates the receiver’s TLS chain may end in.' })),
    ),
    active: optional(
      s.boolean({ description: 'true when absent; an inactive destination keeps collecting and sends nothing.' }),
    ),
  }),
);

export const DESTINATION_SUMMARY = named(
  'DestinationSummary',
  s.object({
    id: s.integer(),
    name: s.string(),
    state: s.enum(DESTINATION_STATES),
    backlog: s.integer(),
    oldestPendingAt: s.nullable(s.string({ format: 'date-time' })),
    lastError: LAST_ERROR,
    routeCount: s.integer({ description: 'How many routes send to it; 0: it receives nothing.' }),
  }),
);

export const DEAD_LETTER = named(
  'DeadLetter',
  s.object({
    id: s.integer(),
    batchId: s.string({ description: 'The Idempotency-Key the batch was sent with.' }),
    itemCount: s.integer(),
    firstAttemptAt: s.nullable(s.string({ format: 'date-time' })),
    failedAt: s.string({ format: 'date-time' }),
    attempts: s.integer(),
    reason: s.enum(DEAD_LETTER_REASONS),
    lastStatus: s.nullable(s.integer()),
    lastError: s.nullable(s.string()),
  }),
);

export const DEAD_LETTER_PAGE = named(
  'DeadLetterPage',
  s.object({ items: s.array(DEAD_LETTER), nextCursor: s.nullable(s.string()) }),
);

export const DEAD_LETTER_QUERY = named(
  'DeadLetterQuery',
  s.object({
    limit: optional(s.integer({ min: 1, max: 1000, description: 'Items per page; 100 when absent.' })),
    cursor: optional(s.string({ description: 'The `nextCursor` of the previous page.' })),
  }),
);

export const DEAD_LETTER_SELECTION = named(
  'DeadLetterSelection',
  s.object({
    ids: optional(s.array(s.integer({ min: 1 }), { description: 'Dead-letter ids; every one when absent.' })),
  }),
);

export const DEAD_LETTER_RETRY_RESULT = named(
  'DeadLetterRetryResult',
  s.object({ retried: s.integer({ description: 'Batches sent back to the head of the outbox.' }) }),
);

export const DESTINATION_TEST_RESULT = named(
  'DestinationTestResult',
  s.object({
    ok: s.boolean({ description: 'The receiver answered 2xx.' }),
    status: s.nullable(s.integer({ description: 'The receiver’s HTTP status; null when none came.' })),
    message: s.string({ description: 'How the attempt ended, in the words `lastError` uses.' }),
    answer: s.nullable(s.string({ description: 'The start of the receiver’s answer body (at most 2000 characters).' })),
    batchId: s.string({ description: 'The test batch’s Idempotency-Key.' }),
    sentAt: s.string({ format: 'date-time' }),
    durationMs: s.integer(),
  }),
  'A test batch: sent like a delivery (signed, same format), marked X-Gateway-Test and `test: true`, never in the outbox.',
);

import type { FieldError } from '../errors';
import { AUDIT_ACTIONS, AUDIT_RESOURCES, EVENT_STATUSES, EVENT_TYPES, TRANSPORTS } from '../enums';
import { named, optional, s } from '../schema';
import { DESTINATION_SUMMARY } from './destinations.schema';
import { EVENT_TYPE } from './endpoints.schema';
import { READER_COUNTS } from './readers.schema';

/** `limit` and `cursor` of every paged list (`/events`, `/audit`). */
const PAGING = {
  limit: optional(s.integer({ min: 1, max: 1000, description: 'Items per page; 100 when absent.' })),
  cursor: optional(s.string({ description: 'The `nextCursor` of the previous page.' })),
};

export const EVENT_QUERY = named(
  'EventQuery',
  s.object({
    route: optional(s.string({ description: 'A route name.' })),
    eventType: optional(s.enum(EVENT_TYPES)),
    status: optional(s.enum(EVENT_STATUSES)),
    since: optional(
      s.string({ description: 'An instant (ISO 8601); a date-time without offset is read in the time zone setting.' }),
    ),
    ...PAGING,
  }),
);

export const AUDIT_QUERY = named('AuditQuery', s.object(PAGING));

/** The query members that filter, as opposed to paging: the ones a list checks itself. */
export const filtersOf = (query: { properties: Record<string, unknown> }): string[] =>
  Object.keys(query.properties).filter((key) => !(key in PAGING));

const FIELD_ERROR = s.component<FieldError>('FieldError');

export const EVENT_RECORD = named(
  'EventRecord',
  s.object({
    id: s.string(),
    route: s.string(),
    endpoint: s.string(),
    eventType: EVENT_TYPE,
    status: s.enum(EVENT_STATUSES),
    receivedAt: s.string({ format: 'date-time' }),
    processedAt: s.nullable(s.string({ format: 'date-time' })),
    principal: s.string(),
    sourceIp: s.string(),
    requestId: s.string(),
    transport: s.enum(TRANSPORTS, { description: 'What carried the event: an HTTP POST or an MQTT PUBLISH.' }),
    topic: s.nullable(s.string({ description: 'The MQTT topic it was published to; null over HTTP.' })),
    payload: s.unknown({ description: 'The body as the client sent it: JSON when it parses, else the text.' }),
    result: s.unknown({ description: 'What the event type made of the payload.' }),
    errors: s.nullable(s.array(FIELD_ERROR)),
    errorCount: optional(s.integer({ description: 'The total when `errors` lists only the first 100.' })),
  }),
);

export const EVENT_PAGE = named(
  'EventPage',
  s.object({ items: s.array(EVENT_RECORD), nextCursor: s.nullable(s.string()) }),
);

export const AUDIT_ENTRY = named(
  'AuditEntry',
  s.object({
    id: s.integer(),
    at: s.string({ format: 'date-time' }),
    actor: s.string({ description: '`user:<username>` or `cli`.' }),
    action: s.enum(AUDIT_ACTIONS),
    resource: s.enum(AUDIT_RESOURCES),
    resourceId: s.nullable(s.integer()),
    summary: s.string(),
  }),
);

export const AUDIT_PAGE = named(
  'AuditPage',
  s.object({ items: s.array(AUDIT_ENTRY), nextCursor: s.nullable(s.string()) }),
);

export const STATUS = named(
  'Status',
  s.object({
    version: s.string(),
    uptimeSeconds: s.integer(),
    listenUrls: s.array(s.string()),
    database: s.enum(['sqlite', 'postgres']),
    queueDepth: s.integer(),
    eventsPerMinute: s.integer(),
    mqtt: s.object({
      mode: s.enum(['off', 'on']),
      clients: s.integer({ description: 'MQTT clients connected now.' }),
    }),
    destinations: s.array(DESTINATION_SUMMARY),
    readers: READER_COUNTS,
  }),
);

/** Events received per minute over the last hour, oldest first (the dashboard's chart). */
export const TRAFFIC = named(
  'Traffic',
  s.object({
    minutes: s.array(s.object({ start: s.string({ format: 'date-time' }), count: s.integer() })),
  }),
);

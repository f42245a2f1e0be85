import {
  EVENT_STATUSES,
  EVENT_TYPES,
  type EventRecord,
  type EventStatus,
  type EventType,
  type Page,
} from '../contract/dto';
import type { Db } from '../db';
import { notFound, validationFailed } from '../errors';
import { EVENT_ID } from '../ids';
import { eventsRepo, type EventRow } from '../repositories/events.repo';
import { iso } from '../time';
import { readListQuery } from './paging';
import { EVENT_QUERY, filtersOf } from '../contract/schemas';
import { readStoredIssues } from '../events/issues';
import { isEventIdCursor, parseInstant, parseStored } from '../events/processors/snapshot-support';
import { jsonTooDeep } from '../json-depth';

const parseJson = (text: string | null): unknown => parseStored(text);

/**
 * The payload as the client sent it (the raw body; a split EPCIS event's own JSON): as JSON when
 * it parses, else as the text received (Zebra's concatenated objects). Never the gateway's
 * normalized copy (`data`: a lenient EPCIS document, a trigger with its defaults), which is what
 * snapshots show: the inspector is where one sees what a client really posted.
 */
function payloadOf(row: EventRow): unknown {
  // Too deep to answer as JSON (stored before SPEC §13's limit): the text, like a body that does not parse.
  if (jsonTooDeep(row.payload)) return row.payload;
  try {
    return JSON.parse(row.payload) as unknown;
  } catch {
    return row.payload;
  }
}

export function eventToDto(row: EventRow): EventRecord {
  const errors = readStoredIssues(row.errors);
  return {
    id: row.id,
    route: row.route_name,
    endpoint: row.endpoint_name,
    eventType: row.event_type,
    status: row.status,
    receivedAt: iso(row.received_at),
    processedAt: row.processed_at === null ? null : iso(row.processed_at),
    principal: row.principal,
    sourceIp: row.source_ip,
    requestId: row.request_id,
    transport: row.transport,
    topic: row.topic,
    payload: payloadOf(row),
    result: parseJson(row.result),
    errors: errors?.items ?? null,
    ...(errors?.total === undefined ? {} : { errorCount: errors.total }),
  };
}

/** Admin inspection of stored events (`/events`, `/events/:id`). */
export function createEventsService(deps: { db: Db; settings: { current(): { timeZone: string } } }) {
  return {
    async listEvents(input: unknown): Promise<Page<EventRecord>> {
      const { query, limit, cursor, errors } = readListQuery(input, {
        filters: filtersOf(EVENT_QUERY),
        isCursor: isEventIdCursor,
      });
      const route = typeof query.route === 'string' && query.route ? query.route : undefined;
      let eventType: EventType | undefined;
      if (query.eventType !== undefined) {
        if ((EVENT_TYPES as readonly unknown[]).includes(query.eventType)) eventType = query.eventType as EventType;
        else errors.push({ path: '/eventType', message: `eventType must be one of ${EVENT_TYPES.join(', ')}` });
      }
      let status: EventStatus | undefined;
      if (query.status !== undefined) {
        if ((EVENT_STATUSES as readonly unknown[]).includes(query.status)) status = query.status as EventStatus;
        else errors.push({ path: '/status', message: `status must be one of ${EVENT_STATUSES.join(', ')}` });
      }
      // Over IPC a value may come as anything; a non-string is as invalid as bad text.
      const since =
        query.since === undefined
          ? undefined
          : parseInstant(
              'since',
              typeof query.since === 'string' ? query.since : '',
              errors,
              deps.settings.current().timeZone,
            );
      if (errors.length > 0) throw validationFailed(errors);
      const rows = await eventsRepo.page(deps.db.knex, {
        route,
        eventType,
        status,
        since,
        beforeId: cursor,
        limit: limit + 1,
      });
      const items = rows.slice(0, limit).map(eventToDto);
      return { items, nextCursor: rows.length > limit ? (items[items.length - 1]?.id ?? null) : null };
    },

    async getEvent(input: unknown): Promise<EventRecord> {
      const id = (input as { id?: unknown } | null)?.id;
      const row = typeof id === 'string' && EVENT_ID.test(id) ? await eventsRepo.findById(deps.db.knex, id) : null;
      if (!row) throw notFound('Event');
      return eventToDto(row);
    },
  };
}

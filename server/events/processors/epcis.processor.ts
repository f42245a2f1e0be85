import type { FieldError } from '../../contract/errors';
import type { WriteBatch } from '../../db/write-batch';
import { newEventId } from '../../ids';
import { eventWrites } from '../../repositories/events.repo';
import { epcisIndexRepo } from '../../repositories/epcis-index.repo';
import { facetsRepo } from '../../repositories/facets.repo';
import { iso } from '../../time';
import { eventFacets, normalizeBizStep, queryFacts, toStoredEvent, validateEpcis, type EpcisInput } from '../epcis';
import { validateCapture } from '../epcis/capture';
import { capIssues } from '../issues';
import { parseJsonBody } from '../json-body';
import type { EventMeta, EventProcessor, ProcessContext, SnapshotQuery, StoreOutcome } from '../processor';
import { eventSnapshotPage, isEventIdCursor, parseInstant, parseStored } from './snapshot-support';

/** Index the filterable facts of EPCIS events under the stored event that holds them. */
function indexFacets(tx: WriteBatch, eventId: string, endpointId: number, events: Record<string, unknown>[]): void {
  const rows: Parameters<typeof facetsRepo.insertMany>[1] = [];
  const add = (name: string, value: string | null, num: number | null) =>
    rows.push({ eventId, endpointId, name, value, num });
  for (const event of events) {
    const facets = eventFacets(event);
    add('type', facets.type, null);
    if (facets.bizStep) add('bizStep', facets.bizStep, null);
    for (const epc of facets.epcs) add('epc', epc, null);
    if (facets.eventTime !== null) add('eventTime', null, facets.eventTime);
  }
  facetsRepo.insertMany(tx, rows);
}

const FILTERS = ['type', 'bizStep', 'epc', 'eventTimeFrom', 'eventTimeTo'] as const;

function parseEpcisFilters(query: Record<string, string>, timeZone: string) {
  const errors: FieldError[] = [];
  const filters: Record<string, string | number> = {};
  for (const name of ['type', 'bizStep', 'epc'] as const) {
    const value = query[name];
    if (value === undefined) continue;
    if (value === '') errors.push({ path: `/${name}`, message: `${name} must not be empty` });
    else filters[name] = name === 'bizStep' ? normalizeBizStep(value) : value;
  }
  for (const name of ['eventTimeFrom', 'eventTimeTo'] as const) {
    const value = query[name];
    if (value === undefined) continue;
    const at = parseInstant(name, value, errors, timeZone);
    if (at !== undefined) filters[name] = at;
  }
  return errors.length > 0 ? { ok: false as const, errors } : { ok: true as const, filters };
}

function facetFilter(query: SnapshotQuery) {
  const f = query.filters;
  const facets = (['type', 'bizStep', 'epc'] as const).flatMap((name) =>
    f[name] === undefined ? [] : [{ name, value: String(f[name]) }],
  );
  const from = typeof f.eventTimeFrom === 'number' ? f.eventTimeFrom : undefined;
  const to = typeof f.eventTimeTo === 'number' ? f.eventTimeTo : undefined;
  return { facets, numericFacet: from === undefined && to === undefined ? undefined : { name: 'eventTime', from, to } };
}

/** EpcisMessage: one validated document (or query document) kept whole as one event. */
export const epcisMessageProcessor: EventProcessor<EpcisInput> = {
  eventType: 'EpcisMessage',
  parseBody: parseJsonBody,
  validate: (json, context) => validateEpcis(json, { lenient: context.route.epcisLenient, allowBareEvents: false }),
  store(tx, input, event, context) {
    indexFacets(tx, event.id, event.endpointId, input.events);
    // Strict routes keep the document as received (the raw payload); lenient ones the corrected copy.
    return Promise.resolve({
      result: { eventCount: input.events.length },
      data: context.route.epcisLenient ? JSON.stringify(input.document) : null,
    });
  },
  isCursor: isEventIdCursor,
  filterNames: FILTERS,
  parseFilters: parseEpcisFilters,
  snapshot: (db, query) =>
    eventSnapshotPage(db, query, { eventType: 'EpcisMessage', children: false, ...facetFilter(query) }, (row) => ({
      id: row.id,
      receivedAt: iso(row.received_at),
      eventCount: (parseStored(row.result) as { eventCount?: number } | null)?.eventCount ?? 0,
      document: parseStored(row.data ?? row.payload),
    })),
};

/** EpcisObject: every EPCIS event stored as its own event (a child of the submission). */
export const epcisObjectProcessor: EventProcessor<EpcisInput> = {
  eventType: 'EpcisObject',
  parseBody: parseJsonBody,
  validate: (json, context) => {
    const options = { lenient: context.route.epcisLenient, allowBareEvents: true };
    return context.capture ? validateCapture(json, options, context.capture) : validateEpcis(json, options);
  },
  store: (tx, input, event, context) => storeObjects(tx, input, event, context, new HeldEventIds(tx)),
  // One worker batch shares what it has stored: a capture sees the eventIDs that an earlier
  // submission of the same batch stored, though those rows are not written yet (SPEC §17).
  async storeMany(tx, items) {
    const held = new HeldEventIds(tx);
    await held.lockEndpoints(items.flatMap((item) => (item.context.capture ? [item.event.endpointId] : [])));
    const outcomes = [];
    for (const item of items) outcomes.push(await storeObjects(tx, item.prepared, item.event, item.context, held));
    return outcomes;
  },
  isCursor: isEventIdCursor,
  filterNames: FILTERS,
  parseFilters: parseEpcisFilters,
  snapshot: (db, query) =>
    eventSnapshotPage(db, query, { eventType: 'EpcisObject', children: true, ...facetFilter(query) }, (row) => ({
      id: row.id,
      receivedAt: iso(row.received_at),
      event: parseStored(row.payload),
    })),
};

/**
 * The EPCIS `eventID`s one batch of submissions has seen per endpoint: those the database held
 * (read as a capture asks) and those the batch itself stored, whose rows are not written until
 * the batch's writes are sent. Owned by one `store`/`storeMany` call.
 */
class HeldEventIds {
  private readonly seen = new Map<number, Set<string>>();
  private readonly locked = new Set<number>();

  constructor(private readonly tx: WriteBatch) {}

  /**
   * PostgreSQL runs transactions side by side (and several instances may process the queue), so
   * two captures of one eventID could each read before the other commits: a transaction-scoped
   * advisory lock per endpoint makes captures into one endpoint take turns. Taken in endpoint
   * order, once per batch; SQLite has a single writer already.
   */
  async lockEndpoints(endpointIds: number[]): Promise<void> {
    if (this.tx.dialect !== 'postgres') return;
    for (const id of [...new Set(endpointIds)].sort((a, b) => a - b)) {
      if (this.locked.has(id)) continue;
      this.locked.add(id);
      await this.tx.readSql('select pg_advisory_xact_lock(?, ?)', [CAPTURE_LOCK, id]);
    }
  }

  /**
   * A capture's events less those whose `eventID` the endpoint already holds, or that an earlier
   * event of the batch named (SPEC §17: a resent capture is harmless).
   */
  async newEvents(endpointId: number, events: Record<string, unknown>[]) {
    const seen = this.of(endpointId);
    const named = events.flatMap((e) => (typeof e.eventID === 'string' && !seen.has(e.eventID) ? [e.eventID] : []));
    for (const id of await epcisIndexRepo.heldEventIds(this.tx, endpointId, [...new Set(named)])) seen.add(id);
    let duplicates = 0;
    const fresh = events.filter((e) => {
      if (typeof e.eventID !== 'string') return true;
      if (seen.has(e.eventID)) {
        duplicates += 1;
        return false;
      }
      seen.add(e.eventID);
      return true;
    });
    return { events: fresh, duplicates };
  }

  /** Events the batch stores: later captures in it do not store their eventIDs again. */
  stored(endpointId: number, eventIds: string[]): void {
    const seen = this.of(endpointId);
    for (const id of eventIds) seen.add(id);
  }

  private of(endpointId: number): Set<string> {
    let set = this.seen.get(endpointId);
    if (!set) this.seen.set(endpointId, (set = new Set()));
    return set;
  }
}

/** The advisory lock class of EPCIS captures (PostgreSQL's two-key form: class, endpoint id). */
const CAPTURE_LOCK = 0x45504353;

/** Stores a submission's EPCIS events as children, with their facets and query index rows. */
async function storeObjects(
  tx: WriteBatch,
  input: EpcisInput,
  event: EventMeta,
  context: ProcessContext,
  held: HeldEventIds,
): Promise<StoreOutcome> {
  if (context.capture) await held.lockEndpoints([event.endpointId]);
  const { events, duplicates } = context.capture
    ? await held.newEvents(event.endpointId, input.events)
    : { events: input.events, duplicates: 0 };
  // Ids are drawn last event first: snapshots list newest (highest id) first, so a submission's
  // events then read in the order they were sent, after the newer submissions.
  const children = [...events]
    .reverse()
    .map((epcisEvent) => {
      const stored = toStoredEvent(epcisEvent, input.context);
      return { id: newEventId(event.receivedAt), stored, json: JSON.stringify(stored) };
    })
    .reverse();
  held.stored(
    event.endpointId,
    children.flatMap((child) => (typeof child.stored.eventID === 'string' ? [child.stored.eventID] : [])),
  );
  eventWrites.insertMany(
    tx,
    children.map((child) => childRow(event, child.id, child.json)),
  );
  for (const child of children) indexFacets(tx, child.id, event.endpointId, [child.stored]);
  epcisIndexRepo.insert(
    tx,
    children.map((child) => ({
      eventId: child.id,
      endpointId: event.endpointId,
      recordTime: context.processingAt,
      facts: queryFacts(child.stored),
    })),
  );
  // A capture's job reports what was left out (SPEC §17): events already held, events refused.
  const refused = input.refused ?? [];
  const capture = context.capture
    ? { duplicates, refused: capIssues(refused).items, refusedCount: refused.length }
    : {};
  return {
    result: { eventCount: children.length, eventIds: children.map((child) => child.id), ...capture },
    data: null,
    // Each EPCIS event as stored, under its own stored event's id (SPEC §11).
    deliveries: () => children.map((child) => ({ eventId: child.id, data: child.json })),
  };
}

function childRow(parent: EventMeta, id: string, payload: string) {
  return {
    id,
    parent_id: parent.id,
    route_id: parent.routeId,
    route_name: parent.routeName,
    endpoint_id: parent.endpointId,
    endpoint_name: parent.endpointName,
    event_type: parent.eventType,
    status: 'processed' as const,
    received_at: parent.receivedAt,
    processed_at: parent.receivedAt,
    principal: parent.principal,
    source_ip: parent.sourceIp,
    request_id: parent.requestId,
    transport: parent.transport,
    topic: parent.topic,
    payload,
    data: null,
    result: null,
    errors: null,
    warnings: null,
  };
}

import type { Knex } from 'knex';
import type { WriteBatch, WriteQuery } from '../db/write-batch';
import { dialectOf, num, type Queryable } from './db-types';
import { receivedPayload, withReceivedPayload } from './event-payload';

/** The role an EPC plays in a stored EPCIS event (SPEC §17: MATCH_epc vs MATCH_anyEPC). */
export type EpcRole =
  | 'epcList'
  | 'childEPCs'
  | 'parentID'
  | 'inputEPCList'
  | 'outputEPCList'
  | 'quantityList'
  | 'childQuantityList'
  | 'inputQuantityList'
  | 'outputQuantityList';

/** The facts of one stored EPCIS event that the SimpleEventQuery filters on (SPEC §17). */
export interface QueryFacts {
  eventId: string;
  type: string;
  action: string | null;
  /** Milliseconds since the epoch (0 when the event has none, which validation never lets through). */
  eventTime: number;
  /** Bare CBV word where the value is one in any form; else as given. */
  bizStep: string | null;
  disposition: string | null;
  readPoint: string | null;
  bizLocation: string | null;
  epcs: { epc: string; role: EpcRole }[];
}

/**
 * One EPC condition: an exact URI, or an `urn:epc:idpat:` pattern as the range of EPCs that start
 * with `prefix` (the part before its first `*`), with `glob` ('*' for any field) when a
 * wildcard is followed by a fixed field.
 */
export type EpcMatch = { exact: string } | { prefix: string; glob?: string };

/** A SimpleEventQuery as the index answers it (SPEC §17); lists are ORs, fields ANDs. */
export interface EpcisIndexQuery {
  endpointId: number;
  /** Only index rows written up to this `seq`: the result set of the first page's moment. */
  pin: number;
  types?: string[];
  actions?: string[];
  bizSteps?: string[];
  dispositions?: string[];
  readPoints?: string[];
  bizLocations?: string[];
  eventIds?: string[];
  eventTime?: TimeRange;
  recordTime?: TimeRange;
  /** Each one must hold: an EPC in one of `roles` that matches one of `values`. */
  matches: { roles: readonly EpcRole[]; values: EpcMatch[] }[];
  orderBy: 'eventTime' | 'recordTime';
  direction: 'asc' | 'desc';
  /** Keyset: the sort key of the last event of the previous page. */
  after?: { time: number; seq: number };
  limit: number;
}

export interface TimeRange {
  /** Inclusive lower bound (`GE_`), ms. */
  ge?: number;
  /** Exclusive upper bound (`LT_`), ms. */
  lt?: number;
}

/** A stored EPCIS event without index rows (see `unindexed`). */
export interface UnindexedRow {
  id: string;
  parent_id: string;
  payload: string;
  record_time: unknown;
}

/** One event of a page: its stored JSON and its place in the order. */
export interface EpcisIndexRow {
  seq: number;
  eventTime: number;
  recordTime: number;
  payload: string;
}

const COLUMN_OF = {
  types: 'type',
  actions: 'action',
  bizSteps: 'biz_step',
  dispositions: 'disposition',
  readPoints: 'read_point',
  bizLocations: 'biz_location',
  eventIds: 'epcis_event_id',
} as const satisfies Partial<Record<keyof EpcisIndexQuery, string>>;

/** The first string after `prefix` in byte order that does not start with it: the range's end. */
const rangeEnd = (prefix: string): string =>
  prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/** The event ids of one EPC condition, read from `epcis_epcs_match_idx` alone. */
function matchingEvents(db: Queryable, endpointId: number, roles: readonly EpcRole[], values: EpcMatch[]) {
  const exact = values.flatMap((value) => ('exact' in value ? [value.exact] : []));
  const patterns = values.flatMap((value) => ('prefix' in value ? [value] : []));
  const branch = () => db('epcis_epcs').select('event_id').where('endpoint_id', endpointId).whereIn('role', roles);
  const branches: Knex.QueryBuilder[] = [];
  if (exact.length > 0) branches.push(branch().whereIn('epc', exact));
  for (const pattern of patterns) {
    const query = branch().where('epc', '>=', pattern.prefix).where('epc', '<', rangeEnd(pattern.prefix));
    if (pattern.glob !== undefined) {
      if (dialectOf(db) === 'sqlite') void query.whereRaw('epc GLOB ?', [globSqlite(pattern.glob)]);
      else void query.whereRaw('epc LIKE ?', [globLike(pattern.glob)]);
    }
    branches.push(query);
  }
  if (branches.length === 0) throw new Error('an EPC condition needs at least one value');
  const [first, ...rest] = branches as [Knex.QueryBuilder, ...Knex.QueryBuilder[]];
  return rest.length === 0 ? first : first.unionAll(rest);
}

/** `*` stays the wildcard; SQLite's other GLOB metacharacters in fixed text are matched literally. */
const globSqlite = (glob: string): string => glob.replace(/[?[]/g, (c) => `[${c}]`);
/** The same wildcard for LIKE: `%`, with LIKE's own metacharacters escaped (`\` is PostgreSQL's default escape). */
const globLike = (glob: string): string => glob.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');

/**
 * The EPCIS repository's index (SPEC §17): a row per stored EPCIS event with a column per query
 * parameter, and its EPCs with their roles. Written with the events in their transaction, read
 * by the query, deleted with the events by retention.
 */
export const epcisIndexRepo = {
  /** Adds the index rows of stored EPCIS events to `writes`. */
  insert(writes: WriteBatch, rows: { eventId: string; endpointId: number; recordTime: number; facts: QueryFacts }[]) {
    writes.insertRows(
      'epcis_events',
      rows.map(({ eventId, endpointId, recordTime, facts }) => ({
        event_id: eventId,
        endpoint_id: endpointId,
        epcis_event_id: facts.eventId,
        type: facts.type,
        action: facts.action,
        event_time: facts.eventTime,
        record_time: recordTime,
        biz_step: facts.bizStep,
        disposition: facts.disposition,
        read_point: facts.readPoint,
        biz_location: facts.bizLocation,
      })),
    );
    writes.insertRows(
      'epcis_epcs',
      rows.flatMap(({ eventId, endpointId, facts }) =>
        facts.epcs.map(({ epc, role }) => ({ event_id: eventId, endpoint_id: endpointId, epc, role })),
      ),
    );
  },

  /** Which of these EPCIS `eventID`s the endpoint already holds (a resent capture stores nothing twice). */
  async heldEventIds(writes: WriteBatch, endpointId: number, eventIds: string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (let start = 0; start < eventIds.length; start += 500) {
      const chunk = eventIds.slice(start, start + 500);
      const rows = await writes.read<{ epcis_event_id: string }>(
        writes
          .sql('epcis_events')
          .where('endpoint_id', endpointId)
          .whereIn('epcis_event_id', chunk)
          .select('epcis_event_id'),
      );
      for (const row of rows) held.add(row.epcis_event_id);
    }
    return held;
  },

  /** The newest index row's `seq` (0 when there is none): what a first page pins. */
  async lastSeq(db: Queryable): Promise<number> {
    const row = (await db('epcis_events').max({ seq: 'seq' }).first()) as { seq: unknown } | undefined;
    return row?.seq === null || row?.seq === undefined ? 0 : num(row.seq);
  },

  /** One page of the query, in its order, `limit` events at most. */
  async page(db: Queryable, q: EpcisIndexQuery): Promise<EpcisIndexRow[]> {
    const time = q.orderBy === 'eventTime' ? 'x.event_time' : 'x.record_time';
    // SQLite plans without statistics, so the plan is chosen here (a unary `+` keeps a term off
    // the indexes): an EPC condition drives the query from the EPC index (its events are looked
    // up by id, then sorted) instead of walking the endpoint's events in order and testing each;
    // otherwise an index in the requested order (an EQ_ column's, or the time's own) is walked
    // and the other time's range is tested on the way. PostgreSQL's planner has statistics.
    const sqlite = dialectOf(db) === 'sqlite';
    const unindexed = (column: string) => (sqlite ? `+${column}` : column);
    const query = db('epcis_events as x')
      .join('events as e', 'e.id', 'x.event_id')
      .select('x.seq', 'x.event_time', 'x.record_time', 'e.payload', 'e.payload_bytes')
      .orderBy([
        { column: time, order: q.direction },
        { column: 'x.seq', order: q.direction },
      ])
      .limit(q.limit);
    const byEpc = q.matches.length > 0;
    void query.whereRaw(`${byEpc ? unindexed('x.endpoint_id') : 'x.endpoint_id'} = ?`, [q.endpointId]);
    void query.where('x.seq', '<=', q.pin);
    if (byEpc) {
      for (const match of q.matches) {
        void query.whereIn('x.event_id', matchingEvents(db, q.endpointId, match.roles, match.values));
      }
    }
    for (const [field, column] of Object.entries(COLUMN_OF) as [keyof typeof COLUMN_OF, string][]) {
      const values = q[field];
      if (values) void query.whereIn(`x.${column}`, values);
    }
    for (const [range, column] of [
      [q.eventTime, 'x.event_time'],
      [q.recordTime, 'x.record_time'],
    ] as const) {
      // Only the order's own time may pick the index: a range on the other one is a filter.
      const term = column === time ? column : unindexed(column);
      if (range?.ge !== undefined) void query.whereRaw(`${term} >= ?`, [range.ge]);
      if (range?.lt !== undefined) void query.whereRaw(`${term} < ?`, [range.lt]);
    }
    if (q.after) {
      const op = q.direction === 'asc' ? '>' : '<';
      void query.whereRaw(`(${time}, x.seq) ${op} (?, ?)`, [q.after.time, q.after.seq]);
    }
    const rows = (await query) as {
      seq: unknown;
      event_time: unknown;
      record_time: unknown;
      payload: string;
      payload_bytes: unknown;
    }[];
    return rows.map((row) => ({
      seq: num(row.seq),
      eventTime: num(row.event_time),
      recordTime: num(row.record_time),
      payload: receivedPayload(row.payload, row.payload_bytes),
    }));
  },

  /** Every endpoint's id: the backfill walks each one's events along its own index. */
  async endpointIds(db: Queryable): Promise<number[]> {
    const rows = (await db('endpoints').select('id').orderBy('id')) as { id: unknown }[];
    return rows.map((row) => num(row.id));
  },

  /**
   * Up to `limit` of the endpoint's stored EPCIS events (EpcisObject children) after `afterId` in
   * id order that have no index row: events stored before the index existed. Walks
   * `events_page_idx`; each one's record time is when its submission was processed.
   */
  async unindexed(writes: WriteBatch, endpointId: number, afterId: string, limit: number): Promise<UnindexedRow[]> {
    const rows = await writes.read<UnindexedRow & { payload_bytes: unknown }>(
      writes
        .sql('events as e')
        .leftJoin('events as p', 'p.id', 'e.parent_id')
        .where('e.endpoint_id', endpointId)
        .where('e.event_type', 'EpcisObject')
        .where('e.id', '>', afterId)
        .whereNotNull('e.parent_id')
        .whereNotExists(writes.sql('epcis_events as x').select('x.seq').whereRaw('x.event_id = e.id'))
        .select(
          'e.id',
          'e.parent_id',
          'e.payload',
          'e.payload_bytes',
          writes.sql.raw('coalesce(p.processed_at, e.processed_at, e.received_at) as record_time'),
        )
        .orderBy('e.id')
        .limit(limit),
    );
    return rows.map(withReceivedPayload);
  },

  /** Retention: the statements that delete the index rows of these events. */
  deletes(sql: Queryable, eventIds: string[]): WriteQuery[] {
    return [
      sql('epcis_epcs').whereIn('event_id', eventIds).delete(),
      sql('epcis_events').whereIn('event_id', eventIds).delete(),
    ];
  },
};

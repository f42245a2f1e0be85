import { createHash } from 'node:crypto';
import { receivedPayload, withReceivedPayload } from './event-payload';
import type { Knex } from 'knex';
import type { WriteBatch, WriteQuery } from '../db/write-batch';
import { allPrepared, withRawConnection, withSqliteConnection } from '../db/sqlite-exec';
import { dialectOf, num, type Queryable } from './db-types';

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
  /**
   * Only index rows written up to this `seq`: the result set of the first page's moment. A first
   * page leaves it out and gets the `seq` to pin (`EpcisPage.pin`).
   */
  pin?: number;
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

/** A page of events, and the `seq` its result set is pinned to. */
export interface EpcisPage {
  rows: EpcisIndexRow[];
  pin: number;
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

/** A piece of SQL with its bindings. */
type Term = { sql: string; bindings: Knex.RawBinding[] };

/**
 * The time conditions of a page. The other time's range (the one the page is not ordered by) is
 * a filter. The order's own time gets at most one indexed term on each side of its range, so the
 * index walked in page order starts and stops where matches can be: on the side the walk starts
 * from, the token's sort key when there is one (the previous page's last event met the query, so
 * the range's own bound is then tested, not walked); otherwise the tighter of the range's own
 * bound and the one the other time's range implies (`impliedBounds`).
 */
function addTimeRanges(db: Queryable, query: Knex.QueryBuilder, q: EpcisIndexQuery, byEpc: boolean): void {
  const sqlite = dialectOf(db) === 'sqlite';
  const unindexed = (column: string) => (sqlite ? `+${column}` : column);
  const [time, own, otherColumn, other] =
    q.orderBy === 'eventTime'
      ? (['x.event_time', q.eventTime, 'x.record_time', q.recordTime] as const)
      : (['x.record_time', q.recordTime, 'x.event_time', q.eventTime] as const);
  if (other?.ge !== undefined) void query.whereRaw(`${unindexed(otherColumn)} >= ?`, [other.ge]);
  if (other?.lt !== undefined) void query.whereRaw(`${unindexed(otherColumn)} < ?`, [other.lt]);
  const implied = byEpc ? {} : impliedBounds(q);
  const side = (op: '>=' | '<', bound: number | undefined, fromOther: Term | undefined, startsAtToken: boolean) => {
    if (startsAtToken) {
      if (bound !== undefined) void query.whereRaw(`${unindexed(time)} ${op} ?`, [bound]);
      return;
    }
    const terms = [
      ...(bound === undefined ? [] : [{ sql: '?', bindings: [bound] }]),
      ...(fromOther ? [fromOther] : []),
    ];
    const [first, second] = terms;
    if (!first) return;
    if (!second) return void query.whereRaw(`${time} ${op} ${first.sql}`, first.bindings);
    // The tighter bound: SQLite's two-argument max/min, PostgreSQL's greatest/least.
    const tighter = op === '>=' ? (sqlite ? 'max' : 'greatest') : sqlite ? 'min' : 'least';
    void query.whereRaw(`${time} ${op} ${tighter}(${first.sql}, ${second.sql})`, [
      ...first.bindings,
      ...second.bindings,
    ]);
  };
  side('>=', own?.ge, implied.ge, q.after !== undefined && q.direction === 'asc');
  side('<', own?.lt, implied.lt, q.after !== undefined && q.direction === 'desc');
  if (q.after) {
    const op = q.direction === 'asc' ? '>' : '<';
    void query.whereRaw(`(${time}, x.seq) ${op} (?, ?)`, [q.after.time, q.after.seq]);
  }
}

/**
 * The range of the order's own time that a range on the other time implies. Every stored event
 * has `event_time = record_time + lead`, its lead between the endpoint's smallest and largest,
 * which `epcis_events_lead_idx` gives with one probe each in the statement's own snapshot: e.g.
 * `GE_eventTime=t` implies `record_time >= t - max(lead)`. Implied, so the answer is the same; how
 * much it saves depends on the leads: events recorded shortly after they happened give a tight
 * bound, one event dated far in the future a loose one (then the walk is as long as without it).
 */
function impliedBounds(q: EpcisIndexQuery): { ge?: Term; lt?: Term } {
  const lead = (fn: 'min' | 'max') =>
    `(SELECT ${fn}(l.event_time - l.record_time) FROM epcis_events l WHERE l.endpoint_id = ?)`;
  // Ordered by record time: record_time = event_time - lead; by event time: event_time = record_time + lead.
  const [other, low, high, sign] =
    q.orderBy === 'recordTime'
      ? ([q.eventTime, lead('max'), lead('min'), '-'] as const)
      : ([q.recordTime, lead('min'), lead('max'), '+'] as const);
  return {
    ...(other?.ge === undefined ? {} : { ge: { sql: `(? ${sign} ${low})`, bindings: [other.ge, q.endpointId] } }),
    ...(other?.lt === undefined ? {} : { lt: { sql: `(? ${sign} ${high})`, bindings: [other.lt, q.endpointId] } }),
  };
}

/** A page's row as the database returns it; `pin` on a first page only. */
interface PageRow {
  seq: unknown;
  event_time: unknown;
  record_time: unknown;
  payload: string;
  /** The payload's stored form (see event-payload.ts): null when it is stored as received. */
  payload_bytes: unknown;
  pin?: unknown;
}

/** The SELECT of one page of the query (see `epcisIndexRepo.page`). */
function pageQuery(db: Queryable, q: EpcisIndexQuery): Knex.QueryBuilder {
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
    // On PostgreSQL the limit is part of the text, so the kept statement's generic plan fits (see `pageRows`).
    .limit(q.limit, { skipBinding: !sqlite });
  const byEpc = q.matches.length > 0;
  void query.whereRaw(`${byEpc ? unindexed('x.endpoint_id') : 'x.endpoint_id'} = ?`, [q.endpointId]);
  // A later page reads the rows its first page saw; a first page says which those were.
  if (q.pin === undefined) void query.select(db.raw('(SELECT max(seq) FROM epcis_events) AS pin'));
  else void query.where('x.seq', '<=', q.pin);
  if (byEpc) {
    for (const match of q.matches) {
      void query.whereIn('x.event_id', matchingEvents(db, q.endpointId, match.roles, match.values));
    }
  }
  for (const [field, column] of Object.entries(COLUMN_OF) as [keyof typeof COLUMN_OF, string][]) {
    const values = q[field];
    if (values) void query.whereIn(`x.${column}`, values);
  }
  addTimeRanges(db, query, q, byEpc);
  return query;
}

/**
 * How many statement texts run as kept prepared statements. A text depends on which parameters
 * a query has and how many values each lists, so clients could make any number of them: the
 * first ones seen are kept (per connection, for the process's life), later new ones run
 * unprepared. Each kept text has its name (PostgreSQL's prepared statements are named).
 */
const MAX_PREPARED_PAGES = 64;
const preparedPages = new Map<string, string>();

/** The name a page statement is kept under, or undefined when it is not to be kept. */
function keptName(sql: string): string | undefined {
  let name = preparedPages.get(sql);
  if (name === undefined && preparedPages.size < MAX_PREPARED_PAGES) {
    // Named by its text, so any two copies of this code agree on what a name means.
    name = `epcis_page_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    preparedPages.set(sql, name);
  }
  return name;
}

/** node-postgres's client as far as a page statement goes (`name` keeps it prepared). */
interface PostgresClient {
  query(config: { name?: string; text: string; values: readonly unknown[] }): Promise<{ rows: PageText[] }>;
}

/**
 * Runs a page's statement (`pageText`) as one prepared once per connection and reused: preparing
 * the join with its subqueries cost more than answering it (on SQLite a MATCH_epc page several
 * times over; on PostgreSQL planning took longer than executing). PostgreSQL plans a kept
 * statement for its values five times, then keeps one generic plan when that is no costlier; with
 * its limit a bound value it estimated a tenth of the matches as fetched, so it planned afresh
 * on every run. The limit is written into the text instead (PostgreSQL only: SQLite's kept
 * statements are planned once anyway), which the handler keeps to one value per `perPage`.
 */
async function pageRows(db: Queryable, query: Knex.QueryBuilder, q: EpcisIndexQuery): Promise<PageRow[]> {
  const { sql: inner, bindings } = query.toSQL().toNative();
  const sqlite = dialectOf(db) === 'sqlite';
  const sql = pageText(inner, q, sqlite);
  const name = keptName(sql);
  if (sqlite) {
    const [row] =
      name === undefined
        ? await db.raw<PageText[]>(sql, bindings as Knex.RawBinding[])
        : await withSqliteConnection(db, (connection) => allPrepared<PageText>(connection, sql, bindings));
    return rowsOfText(row);
  }
  return withRawConnection(db, async (client: PostgresClient) => {
    const config = { text: sql, values: bindings };
    const { rows } = await client.query(name === undefined ? config : { ...config, name });
    return rowsOfText(rows[0]);
  });
}

/** Between two rows of `pageText`, and between a row's keys and its payload. */
const ROW_SEPARATOR = '\x1e';
const KEYS_SEPARATOR = '\x1f';

/** What `pageText` returns: the first page's pin, and the page's rows as one text. */
interface PageText {
  pin: unknown;
  page: string | null;
}

/**
 * The page's rows handed over by the database as one text, in page order:
 * `seq,event_time,record_time,payload_bytes`, KEYS_SEPARATOR, the stored payload, then
 * ROW_SEPARATOR before the next row. node-sqlite3 turns each row into a JS object on its own,
 * which cost a page of 100 events more than the rest of its query; node-postgres parses each row
 * too, and a page's 100 rows cost the gateway more than the aggregate cost PostgreSQL. One text
 * is split for a fraction of that (as `jsonRowsSql` does for the ingest's reads). A stored payload
 * is the JSON that `JSON.stringify` wrote, which escapes every control character, or the base64
 * of its compressed form (`payload_bytes` set, decoded in `page`), so the separators never occur
 * inside it.
 */
function pageText(inner: string, q: EpcisIndexQuery, sqlite: boolean): string {
  const direction = q.direction === 'desc' ? 'DESC' : 'ASC';
  const time = q.orderBy === 'eventTime' ? 'event_time' : 'record_time';
  const [char, bytes, aggregate, alias] = sqlite
    ? ['char', 'payload_bytes', 'group_concat', '']
    : ['chr', 'payload_bytes::text', 'string_agg', ' AS page_rows'];
  const row = `seq || ',' || event_time || ',' || record_time || ',' || coalesce(${bytes}, '') || ${char}(31) || payload`;
  return (
    `SELECT ${q.pin === undefined ? 'max(pin)' : 'NULL'} AS pin, ` +
    `${aggregate}(${row}, ${char}(30) ORDER BY ${time} ${direction}, seq ${direction}) AS page FROM (${inner})${alias}`
  );
}

function rowsOfText(text: PageText | undefined): PageRow[] {
  if (!text?.page) return [];
  return text.page.split(ROW_SEPARATOR).map((row) => {
    const keysEnd = row.indexOf(KEYS_SEPARATOR);
    const [seq, eventTime, recordTime, bytes] = row.slice(0, keysEnd).split(',');
    return {
      seq: Number(seq),
      event_time: Number(eventTime),
      record_time: Number(recordTime),
      payload_bytes: bytes ? Number(bytes) : null,
      payload: row.slice(keysEnd + 1),
      pin: text.pin,
    };
  });
}

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

  /**
   * One page of the query, in its order, `limit` events at most, and the `seq` it is pinned to:
   * the one given, or on a first page the newest index row's as the statement saw it (0 when it
   * found nothing). The statement is kept prepared (see `pageRows`).
   */
  async page(db: Queryable, q: EpcisIndexQuery): Promise<EpcisPage> {
    const query = pageQuery(db, q);
    const rows = await pageRows(db, query, q);
    const first = rows[0];
    return {
      pin: q.pin ?? (first?.pin === undefined || first.pin === null ? 0 : num(first.pin)),
      rows: rows.map((row) => ({
        seq: num(row.seq),
        eventTime: num(row.event_time),
        recordTime: num(row.record_time),
        payload: receivedPayload(row.payload, row.payload_bytes),
      })),
    };
  },

  /** The statement `page` sends, as the database gets it: for tests of its plan. */
  pageStatement(db: Queryable, q: EpcisIndexQuery): { sql: string; bindings: readonly unknown[] } {
    const { sql, bindings } = pageQuery(db, q).toSQL().toNative();
    return { sql: pageText(sql, q, dialectOf(db) === 'sqlite'), bindings };
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

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

/** One EPC condition as its statement binds it: exact EPCs, and each pattern as its range and glob. */
interface MatchSpec {
  roles: readonly EpcRole[];
  exact: string[];
  /** `glob` in the dialect's own syntax (GLOB on SQLite, LIKE on PostgreSQL). */
  ranges: { from: string; to: string; glob?: string }[];
}

/** A query as its page statement is built from it (see `statementOf`); the limit goes in apart. */
type PageSpec = Omit<EpcisIndexQuery, 'matches' | 'limit'> & { matches: MatchSpec[] };

function specOf(q: EpcisIndexQuery, sqlite: boolean): PageSpec {
  const { matches, limit: _limit, ...rest } = q;
  return {
    ...rest,
    matches: matches.map(({ roles, values }) => ({
      roles,
      exact: values.flatMap((value) => ('exact' in value ? [value.exact] : [])),
      ranges: values.flatMap((value) =>
        'prefix' in value
          ? [
              {
                from: value.prefix,
                to: rangeEnd(value.prefix),
                ...(value.glob === undefined ? {} : { glob: sqlite ? globSqlite(value.glob) : globLike(value.glob) }),
              },
            ]
          : [],
      ),
    })),
  };
}

/** The event ids of one EPC condition, read from `epcis_epcs_match_idx` alone. */
function matchingEvents(db: Queryable, endpointId: number, match: MatchSpec) {
  const branch = () =>
    db('epcis_epcs').select('event_id').where('endpoint_id', endpointId).whereIn('role', match.roles);
  const branches: Knex.QueryBuilder[] = [];
  if (match.exact.length > 0) branches.push(branch().whereIn('epc', match.exact));
  for (const range of match.ranges) {
    const query = branch().where('epc', '>=', range.from).where('epc', '<', range.to);
    if (range.glob !== undefined)
      void query.whereRaw(dialectOf(db) === 'sqlite' ? 'epc GLOB ?' : 'epc LIKE ?', [range.glob]);
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
function addTimeRanges(db: Queryable, query: Knex.QueryBuilder, q: PageSpec, byEpc: boolean): void {
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
function impliedBounds(q: PageSpec): { ge?: Term; lt?: Term } {
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

/** The SELECT of one page of the query without its limit (see `statementOf`). */
function pageQuery(db: Queryable, q: PageSpec): Knex.QueryBuilder {
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
    ]);
  const byEpc = q.matches.length > 0;
  void query.whereRaw(`${byEpc ? unindexed('x.endpoint_id') : 'x.endpoint_id'} = ?`, [q.endpointId]);
  // A later page reads the rows its first page saw; a first page says which those were.
  if (q.pin === undefined) void query.select(db.raw('(SELECT max(seq) FROM epcis_events) AS pin'));
  else void query.where('x.seq', '<=', q.pin);
  for (const match of q.matches) void query.whereIn('x.event_id', matchingEvents(db, q.endpointId, match));
  for (const [field, column] of Object.entries(COLUMN_OF) as [keyof typeof COLUMN_OF, string][]) {
    const values = q[field];
    if (values) void query.whereIn(`x.${column}`, values);
  }
  addTimeRanges(db, query, q, byEpc);
  return query;
}

/** A value a page statement binds. */
type Bound = string | number;

/** Fields of a `PageSpec` whose values are written into the statement's text; every other value is bound. */
const TEXT_FIELDS = new Set(['orderBy', 'direction']);

/** What stands for the bound value `index` while a statement's text is built (see `statementOf`). */
const mark = (index: number): string => `bound value ${index}`;
const MARKED = /^bound value (\d+)$/;

/**
 * One walk of a spec: its shape as text (which fields and list entries it has, and the values of
 * `TEXT_FIELDS`), its bound values in walk order, and the spec with each bound value replaced by
 * a marker of its place in that order.
 */
function shapeOf(spec: PageSpec): { shape: string; values: Bound[]; marked: PageSpec } {
  const values: Bound[] = [];
  const visit = (value: unknown, field: string): [string, unknown] => {
    if (typeof value === 'string' || typeof value === 'number') {
      if (TEXT_FIELDS.has(field)) return [JSON.stringify(value), value];
      values.push(value);
      return ['?', mark(values.length - 1)];
    }
    if (Array.isArray(value)) {
      let shape = '[';
      const marked = value.map((item: unknown) => {
        const [itemShape, markedItem] = visit(item, field);
        shape += `${itemShape},`;
        return markedItem;
      });
      return [`${shape}]`, marked];
    }
    if (typeof value === 'object' && value !== null) {
      let shape = '{';
      const marked: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(value)) {
        if (member === undefined) continue;
        const [memberShape, markedMember] = visit(member, name);
        shape += `${name}:${memberShape},`;
        marked[name] = markedMember;
      }
      return [`${shape}}`, marked];
    }
    throw new Error(`an EPCIS page query holds ${typeof value}`);
  };
  const [shape, marked] = visit(spec, '');
  return { shape, values, marked: marked as PageSpec };
}

/** A page statement's text, which of the query's values it binds where, and its kept name. */
interface PageStatement {
  sql: string;
  /** For each binding, its index among the values `shapeOf` walks (the limit apart). */
  slots: number[];
  name: string | undefined;
}

/**
 * How many statement shapes keep their text (see `statementOf`), most recently used last. A
 * shape is which parameters a query has and how many values each lists: clients could make any
 * number of them.
 */
const MAX_PAGE_SHAPES = 256;
const pageStatements = new Map<string, PageStatement>();

/**
 * The page statement of `q` and its bindings. The text depends on the query's shape only (see
 * `shapeOf`; on PostgreSQL its limit too), so it is built by Knex once per shape and kept: with
 * the query's values replaced by markers, whose places in Knex's bindings say where each value
 * goes. A query of a kept shape costs one walk of its values, not a Knex build and compile.
 */
function statementOf(db: Queryable, q: EpcisIndexQuery): { sql: string; bindings: Bound[]; name: string | undefined } {
  const sqlite = dialectOf(db) === 'sqlite';
  // The limit is a literal in PostgreSQL's text (see `pageRows`): it must be a count.
  if (!Number.isSafeInteger(q.limit) || q.limit < 1) throw new Error(`an EPCIS page limit must be a count: ${q.limit}`);
  const { shape, values, marked } = shapeOf(specOf(q, sqlite));
  const key = sqlite ? `sqlite ${shape}` : `postgres ${q.limit} ${shape}`;
  let statement = pageStatements.get(key);
  if (statement) {
    pageStatements.delete(key);
  } else {
    const { sql: inner, bindings } = pageQuery(db, marked).toSQL().toNative();
    const slots = bindings.map((binding) => {
      const index = typeof binding === 'string' ? MARKED.exec(binding)?.[1] : undefined;
      if (index === undefined) throw new Error('an EPCIS page statement binds a value that is not its query’s');
      return Number(index);
    });
    // And every value is bound: one written into the text would be the marker, for every query of the shape.
    if (inner.includes(mark(0).slice(0, -1))) throw new Error('an EPCIS page statement writes a value into its text');
    const sql = pageText(`${inner} limit ${sqlite ? '?' : q.limit}`, q, sqlite);
    statement = { sql, slots, name: keptName(sql) };
    if (pageStatements.size >= MAX_PAGE_SHAPES) pageStatements.delete(pageStatements.keys().next().value as string);
  }
  pageStatements.set(key, statement);
  const bindings: Bound[] = statement.slots.map((slot) => values[slot]);
  if (sqlite) bindings.push(q.limit);
  return { sql: statement.sql, bindings, name: statement.name };
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
 * Runs a page's statement (`statementOf`) as one prepared once per connection and reused: preparing
 * the join with its subqueries cost more than answering it (on SQLite a MATCH_epc page several
 * times over; on PostgreSQL planning took longer than executing). PostgreSQL plans a kept
 * statement for its values five times, then keeps one generic plan when that is no costlier; with
 * its limit a bound value it estimated a tenth of the matches as fetched, so it planned afresh
 * on every run. The limit is written into the text instead (PostgreSQL only: SQLite's kept
 * statements are planned once anyway), which the handler keeps to one value per `perPage`.
 */
async function pageRows(db: Queryable, q: EpcisIndexQuery): Promise<EpcisPage> {
  const { sql, bindings, name } = statementOf(db, q);
  if (dialectOf(db) === 'sqlite') {
    const [row] =
      name === undefined
        ? await db.raw<PageText[]>(sql, bindings)
        : await withSqliteConnection(db, (connection) => allPrepared<PageText>(connection, sql, bindings));
    return pageOfText(row, q);
  }
  return withRawConnection(db, async (client: PostgresClient) => {
    const config = { text: sql, values: bindings };
    const { rows } = await client.query(name === undefined ? config : { ...config, name });
    return pageOfText(rows[0], q);
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
 * The page's rows handed over by the database as one text:
 * `seq,event_time,record_time,payload_bytes`, KEYS_SEPARATOR, the stored payload, then
 * ROW_SEPARATOR before the next row. node-sqlite3 turns each row into a JS object on its own,
 * which cost a page of 100 events more than the rest of its query; node-postgres parses each row
 * too, and a page's 100 rows cost the gateway more than the aggregate cost PostgreSQL. One text
 * is split for a fraction of that (as `jsonRowsSql` does for the ingest's reads). A stored payload
 * is the JSON that `JSON.stringify` wrote, which escapes every control character, or the base64
 * of its compressed form (`payload_bytes` set, decoded in `pageOfText`), so the separators never
 * occur inside it. The aggregate has no ORDER BY: it takes the rows as the page's own ordered
 * SELECT hands them over, and sorting them again cost the database a third of the aggregate;
 * `pageOfText` checks the order from the keys (and sorts, should a database ever mix them).
 */
function pageText(inner: string, q: EpcisIndexQuery, sqlite: boolean): string {
  const [char, bytes, aggregate, alias] = sqlite
    ? ['char', 'payload_bytes', 'group_concat', '']
    : ['chr', 'payload_bytes::text', 'string_agg', ' AS page_rows'];
  const row = `seq || ',' || event_time || ',' || record_time || ',' || coalesce(${bytes}, '') || ${char}(31) || payload`;
  return (
    `SELECT ${q.pin === undefined ? 'max(pin)' : 'NULL'} AS pin, ` +
    `${aggregate}(${row}, ${char}(30)) AS page FROM (${inner})${alias}`
  );
}

/** The page of `pageText`'s answer, in the query's order; its pin as `epcisIndexRepo.page` says. */
function pageOfText(text: PageText | undefined, q: EpcisIndexQuery): EpcisPage {
  const pin = q.pin ?? (text?.pin === undefined || text.pin === null ? 0 : num(text.pin));
  if (!text?.page) return { rows: [], pin };
  const byEventTime = q.orderBy === 'eventTime';
  const sign = q.direction === 'asc' ? 1 : -1;
  const order = (a: EpcisIndexRow, b: EpcisIndexRow) =>
    ((byEventTime ? a.eventTime - b.eventTime : a.recordTime - b.recordTime) || a.seq - b.seq) * sign;
  const rows: EpcisIndexRow[] = [];
  let ordered = true;
  for (const part of text.page.split(ROW_SEPARATOR)) {
    const keysEnd = part.indexOf(KEYS_SEPARATOR);
    const eventTimeAt = part.indexOf(',') + 1;
    const recordTimeAt = part.indexOf(',', eventTimeAt) + 1;
    const bytesAt = part.indexOf(',', recordTimeAt) + 1;
    const payload = part.slice(keysEnd + 1);
    const row = {
      seq: Number(part.slice(0, eventTimeAt - 1)),
      eventTime: Number(part.slice(eventTimeAt, recordTimeAt - 1)),
      recordTime: Number(part.slice(recordTimeAt, bytesAt - 1)),
      payload: bytesAt < keysEnd ? receivedPayload(payload, Number(part.slice(bytesAt, keysEnd))) : payload,
    };
    const previous = rows[rows.length - 1];
    if (previous && order(previous, row) >= 0) ordered = false;
    rows.push(row);
  }
  return { rows: ordered ? rows : rows.sort(order), pin };
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
  page(db: Queryable, q: EpcisIndexQuery): Promise<EpcisPage> {
    return pageRows(db, q);
  },

  /** The statement `page` sends, as the database gets it: for tests of its plan. */
  pageStatement(db: Queryable, q: EpcisIndexQuery): { sql: string; bindings: readonly unknown[] } {
    const { sql, bindings } = statementOf(db, q);
    return { sql, bindings };
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

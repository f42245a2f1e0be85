import type { EventStatus, EventType, Transport } from '../contract/dto';
import { num, numOrNull, type Queryable } from './db-types';
import type { RowInsert, WriteBatch } from '../db/write-batch';
import { allPrepared, withSqliteConnection } from '../db/sqlite-exec';
import { jsonRowsSql, type JsonRowsShape } from '../db/sqlite-json-rows';
import { SqlUtf8 } from '../db/sql-literal';
import { eventIdFloor } from '../ids';
import type { CaptureBehaviour } from '../contract/enums';
import { epcisIndexRepo } from './epcis-index.repo';
import {
  RECEIVED_BYTES_SQL,
  receivedPayload,
  withReceivedPayload,
  withStoredPayload,
  type Payload,
} from './event-payload';

/** How far an id's time may trail its event's `received_at` (events stored before they shared one instant). */
const ID_TIME_SLACK_MS = 1_000;

export interface EventRow {
  id: string;
  parent_id: string | null;
  route_id: number | null;
  route_name: string;
  endpoint_id: number;
  endpoint_name: string;
  event_type: EventType;
  status: EventStatus;
  received_at: number;
  processed_at: number | null;
  principal: string;
  source_ip: string;
  request_id: string;
  transport: Transport;
  topic: string | null;
  /** A submission made through EPCIS capture (SPEC §17): its capture error behaviour; else NULL/absent. */
  capture?: CaptureBehaviour | null;
  /** The reader named beside the payload (`?readerId=`, the MQTT client id); null: the principal. */
  reader_id?: string | null;
  payload: string;
  data: string | null;
  result: string | null;
  errors: string | null;
  warnings: string | null;
  attempts: number;
  next_attempt_at: number;
}

/** The columns a receipt reads (`findReceipt`). */
const RECEIPT_COLUMNS = [
  'id',
  'route_id',
  'parent_id',
  'event_type',
  'status',
  'received_at',
  'processed_at',
  'result',
  'errors',
  'warnings',
] as const satisfies readonly (keyof EventRow)[];

export type EventReceiptRow = Pick<EventRow, (typeof RECEIPT_COLUMNS)[number]>;

/**
 * Undo dialect differences (bigint strings from PostgreSQL), and the payload's stored form
 * (`event-payload.ts`): the payload comes back as received.
 */
export function normalizeEventRow(row: EventRow & { payload_bytes?: unknown }): EventRow {
  return {
    ...withReceivedPayload(row),
    route_id: numOrNull(row.route_id),
    endpoint_id: num(row.endpoint_id),
    received_at: num(row.received_at),
    processed_at: numOrNull(row.processed_at),
    attempts: num(row.attempts),
    next_attempt_at: num(row.next_attempt_at),
  };
}

export interface EventFilter {
  route?: string;
  eventType?: EventType;
  status?: EventStatus;
  since?: number;
  /** Keyset cursor: ids sort by time, so "older than this id". */
  beforeId?: string;
  limit: number;
}

/** Queued events due for processing and leased to nobody (or to someone whose lease ran out), oldest first. */
const dueEvents = (db: Queryable, due: { now: number; limit: number }) =>
  db('events')
    .where('status', 'queued')
    .where('next_attempt_at', '<=', due.now)
    .where((q) => {
      void q.whereNull('lease_until').orWhere('lease_until', '<', due.now);
    })
    .orderBy('id')
    .limit(due.limit);

/** The columns `dueQueued` reads, in the order `queuedRow` takes them back. */
const QUEUED_SHAPE = {
  columns: [
    'id',
    'parent_id',
    'route_id',
    'route_name',
    'endpoint_id',
    'endpoint_name',
    'event_type',
    'received_at',
    'principal',
    'source_ip',
    'request_id',
    'payload',
    'attempts',
    'next_attempt_at',
    'transport',
    'topic',
    'capture',
    'reader_id',
    'payload_bytes',
  ],
} as const satisfies JsonRowsShape<keyof EventRow | 'payload_bytes'>;

/**
 * What PostgreSQL's claim returns beside the payload (which it returns only when short): the
 * columns `dueQueued` reads, and the outcome columns it leaves out (a queued event has none).
 */
const CLAIM_COLUMNS = [
  ...QUEUED_SHAPE.columns.filter((column) => column !== 'payload'),
  'status',
  'processed_at',
  'data',
  'result',
  'errors',
  'warnings',
];

/**
 * A claimed event from its JSON array (`QUEUED_SHAPE` order), as one object literal: building it
 * field by field and spreading it again cost ten times as much (docs/performance.md, P23). The outcome
 * columns are not read: a queued event has none.
 */
const queuedRow = (v: unknown[]): EventRow => ({
  id: v[0] as string,
  parent_id: v[1] as string | null,
  route_id: numOrNull(v[2]),
  route_name: v[3] as string,
  endpoint_id: num(v[4]),
  endpoint_name: v[5] as string,
  event_type: v[6] as EventType,
  status: 'queued',
  received_at: num(v[7]),
  processed_at: null,
  principal: v[8] as string,
  source_ip: v[9] as string,
  request_id: v[10] as string,
  // NULL: left out of the JSON for its size, and read on its own (`dueQueued`).
  payload: v[11] === null ? (v[11] as unknown as string) : receivedPayload(v[11] as string, v[18]),
  data: null,
  result: null,
  errors: null,
  warnings: null,
  attempts: num(v[12]),
  next_attempt_at: num(v[13]),
  transport: v[14] as Transport,
  topic: v[15] as string | null,
  capture: v[16] as CaptureBehaviour | null,
  reader_id: v[17] as string | null,
});

/**
 * A claim of due events: at most `limit` of them, oldest first, and only as many as fit in
 * `maxBytes` of payload (the first always does), so a run of large events never loads, parses and
 * holds hundreds of megabytes at once. The sizes come from `octet_length`, which both databases
 * answer without reading the payload itself.
 */
export interface Claim {
  now: number;
  limit: number;
  maxBytes: number;
}

/** A claimed event: its payload as received, text or (a large one on SQLite) its bytes. */
export type ClaimedRow = Omit<EventRow, 'payload'> & { payload: Payload };

/** The claimed events, oldest first; `cut` when due events were left for the next claim by `maxBytes`. */
export interface ClaimedBatch {
  rows: ClaimedRow[];
  cut: boolean;
}

/** Claimed events in the order the worker applies them: ids sort by time. */
const oldestFirst = (a: ClaimedRow, b: ClaimedRow): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const checkedClaim = ({ limit, maxBytes }: Claim): void => {
  for (const value of [limit, maxBytes])
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`invalid claim bound ${String(value)}`);
};

/**
 * The ids of the events a claim takes, from `due` (id and `bytes`, oldest first): a running sum
 * of the payload sizes, cut at `maxBytes`. Both dialects.
 */
const withinBudget = (maxBytes: number): string =>
  'SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n,' +
  ' sum(bytes) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS upto FROM due) AS due_sizes' +
  ` WHERE n = 1 OR upto <= ${String(maxBytes)}`;

/**
 * Payloads longer than this (bytes) do not travel inside the SQLite claim's JSON text (issue
 * 38.3): there every quote is escaped, SQLite grows the text by doubling, node-sqlite3 copies it
 * and `JSON.parse` copies it again, several times the payload in memory and a long turn of the
 * main thread to parse. Such a payload is read as a plain column instead.
 */
const JSON_CLAIM_MAX_PAYLOAD = 1024 * 1024;
/**
 * Such a payload is read as its bytes: node-sqlite3 hands a BLOB over without holding the main
 * thread, and the bytes are what the large-body path works on (`SqlUtf8`).
 */
const PAYLOAD_SQL = 'SELECT CAST(payload AS BLOB) AS payload, payload_bytes FROM events WHERE id = ?';

/** A payload read as bytes (`PAYLOAD_SQL`) as received: compressed ones decoded, long ones left as bytes. */
function payloadFromBytes(stored: Buffer, payloadBytes: unknown): Payload {
  if (numOrNull(payloadBytes) !== null) return receivedPayload(stored.toString('latin1'), payloadBytes);
  return stored.length > JSON_CLAIM_MAX_PAYLOAD ? new SqlUtf8(stored) : stored.toString('utf8');
}

/**
 * `dueQueued`'s statement; bindings: now, now. The bounds are written into the text (one statement
 * per claim size): a bound LIMIT would make SQLite compile the statement again at every claim.
 * The condition is `dueEvents`' (PostgreSQL's claim), written out for a kept statement.
 */
const dueQueuedSql = (claim: Claim): string => {
  checkedClaim(claim);
  const due =
    `SELECT id, ${RECEIVED_BYTES_SQL} AS bytes FROM events WHERE status = 'queued' AND next_attempt_at <= ?` +
    ` AND (lease_until IS NULL OR lease_until < ?) ORDER BY id LIMIT ${String(claim.limit)}`;
  // A large payload is left out of the JSON (NULL: a payload is never NULL) and read on its own.
  const columns = QUEUED_SHAPE.columns.map((column) =>
    column === 'payload'
      ? `iif(octet_length(payload) > ${String(JSON_CLAIM_MAX_PAYLOAD)}, NULL, payload) AS payload`
      : column,
  );
  const rows = jsonRowsSql(
    `SELECT ${columns.join(', ')} FROM events WHERE id IN (${withinBudget(claim.maxBytes)})`,
    QUEUED_SHAPE,
  );
  // One row: the claimed events as JSON, and how many were due (more than claimed: cut by bytes).
  return `WITH due AS (${due}) SELECT rows, (SELECT count(*) FROM due) AS due_count FROM (${rows})`;
};

export const eventsRepo = {
  async findById(db: Queryable, id: string): Promise<EventRow | null> {
    const row = (await db('events').where({ id }).first()) as EventRow | undefined;
    return row ? normalizeEventRow(row) : null;
  },

  /**
   * What a receipt shows of an event: everything but its payload and normalized data, which a
   * client polling the receipt of a 100 MiB submission would otherwise have read each time
   * (issue 38.3).
   */
  async findReceipt(db: Queryable, id: string): Promise<EventReceiptRow | null> {
    const row = (await db('events').select(RECEIPT_COLUMNS).where({ id }).first()) as EventReceiptRow | undefined;
    return row
      ? {
          ...row,
          route_id: numOrNull(row.route_id),
          received_at: num(row.received_at),
          processed_at: numOrNull(row.processed_at),
        }
      : null;
  },

  /** Newest first, for the admin inspector. */
  async page(db: Queryable, filter: EventFilter): Promise<EventRow[]> {
    const query = db('events').select('*').orderBy('id', 'desc').limit(filter.limit);
    if (filter.route !== undefined) void query.whereRaw('lower(route_name) = ?', [filter.route.toLowerCase()]);
    if (filter.eventType !== undefined) void query.where('event_type', filter.eventType);
    if (filter.status !== undefined) void query.where('status', filter.status);
    if (filter.since !== undefined) void query.where('received_at', '>=', filter.since);
    if (filter.beforeId !== undefined) void query.where('id', '<', filter.beforeId);
    return ((await query) as EventRow[]).map(normalizeEventRow);
  },

  async countReceivedSince(db: Queryable, since: number): Promise<number> {
    const row = (await db('events')
      .whereNull('parent_id')
      .where('received_at', '>=', since)
      .count({ n: '*' })
      .first()) as { n: unknown } | undefined;
    return num(row?.n ?? 0);
  },

  /** Submissions per minute since `since` (minute index = ms / 60000, integer division on both dialects). */
  async countPerMinute(db: Queryable, since: number): Promise<Map<number, number>> {
    const rows = await db('events')
      .whereNull('parent_id')
      .where('received_at', '>=', since)
      .select(db.raw('received_at / 60000 as minute'))
      .count({ n: '*' })
      .groupByRaw<{ minute: unknown; n: unknown }[]>('received_at / 60000');
    return new Map(rows.map((row) => [Math.floor(num(row.minute)), num(row.n)]));
  },

  /**
   * The queued events due for processing and not leased to anyone, oldest first: a claim that
   * writes nothing, for SQLite (see `Worker.claim`). A kept statement on a reader connection hands
   * the batch over as one JSON text (`jsonRowsSql`) with only the columns a queued event has
   * values in: half the CPU of node-sqlite3 building every row's object (docs/performance.md, P23).
   */
  async dueQueued(reads: Queryable, claim: Claim, held?: (id: string) => Payload | undefined): Promise<ClaimedBatch> {
    const { result, rows } = await withSqliteConnection(reads, async (connection) => {
      const [result] = await allPrepared<{ rows: string; due_count: number }>(connection, dueQueuedSql(claim), [
        claim.now,
        claim.now,
      ]);
      const rows: ClaimedRow[] = [];
      for (const row of (JSON.parse(result?.rows ?? '[]') as unknown[][]).map(queuedRow)) {
        // Left out of the JSON for its size: held by the process that stored it, or read on its
        // own, on the same connection (an event gone meanwhile stays out of the batch).
        if ((row.payload as string | null) === null) {
          const payload = held?.(row.id);
          if (payload !== undefined) {
            rows.push({ ...row, payload });
            continue;
          }
          const [stored] = await allPrepared<{ payload: Buffer; payload_bytes: unknown }>(connection, PAYLOAD_SQL, [
            row.id,
          ]);
          if (!stored) continue;
          rows.push({ ...row, payload: payloadFromBytes(stored.payload, stored.payload_bytes) });
          continue;
        }
        rows.push(row);
      }
      return { result, rows };
    });
    // json_group_array promises no order; the worker applies a batch oldest first.
    rows.sort(oldestFirst);
    return { rows, cut: (result?.due_count ?? 0) > rows.length };
  },

  async countQueued(db: Queryable): Promise<number> {
    const row = (await db('events').where('status', 'queued').count({ n: '*' }).first()) as { n: unknown } | undefined;
    return num(row?.n ?? 0);
  },
};

/** An event as first written: its payload as received, text or a large body's bytes. */
export type EventInsert = Omit<EventRow, 'attempts' | 'next_attempt_at' | 'payload'> & { payload: Payload };

export interface EventOutcome {
  status: EventStatus;
  processed_at: number | null;
  data?: string | null;
  result: string | null;
  errors: string | null;
  warnings: string | null;
}

/** Which stored events a snapshot reads, with its facet filters (keyset paging on the id). */
export interface EventSnapshotFilter {
  endpointId: number;
  eventType: EventType;
  /** EpcisObject snapshots list the split events (children), every other type the submissions. */
  children: boolean;
  since?: number;
  until?: number;
  beforeId?: string;
  limit: number;
  facets: { name: string; value: string }[];
  numericFacet?: { name: string; from?: number; to?: number };
}

/*
 * Set-based forms of `confirmLease` and `setOutcome` for the worker's batches: one statement per
 * batch instead of one per event (the per-row forms were most of a flush's statements under
 * async load; see docs/performance.md, P18). Plain SQL that SQLite (≥ 3.35) and PostgreSQL run alike.
 */

/** Ids per lease-confirming read: far below either database's bound-variable limit. */
const CHUNK = 100;
/** Outcomes per UPDATE: 6 values each, still far below either bound limit when not inlined. */
const OUTCOME_CHUNK = 500;

/** Which of these events (a JSON array of ids) are still queued: SQLite's `confirmLeases`. */
const SQLITE_STILL_QUEUED = "SELECT id FROM events WHERE id IN (SELECT value FROM json_each(?)) AND status = 'queued'";

/**
 * Of these events, the ids still queued and (on PostgreSQL) leased to `owner`, read through the
 * batch's transaction. On PostgreSQL the rows are touched (as `confirmLease` does), which keeps
 * them locked until the commit. On SQLite the worker claims without leases (`Worker.claim`): a
 * plain read of the status is enough, and the script transaction's guard refuses the commit if
 * another connection wrote meanwhile.
 */
async function confirmLeases(writes: WriteBatch, ids: string[], owner: string): Promise<Set<string>> {
  const held = new Set<string>();
  if (writes.dialect === 'sqlite') {
    // One fixed statement for any number of ids (prepared once on the writer's connection): a
    // placeholder per id made every batch a new statement for Knex and SQLite to compile.
    const rows = await writes.readSql<{ id: string }>(SQLITE_STILL_QUEUED, [JSON.stringify(ids)]);
    for (const row of rows) held.add(row.id);
    return held;
  }
  for (let start = 0; start < ids.length; start += CHUNK) {
    const query = writes
      .sql('events')
      .whereIn('id', ids.slice(start, start + CHUNK))
      .where({ status: 'queued', lease_owner: owner })
      .update({ lease_owner: owner })
      .returning('id');
    for (const row of await writes.read<{ id: string }>(query)) held.add(row.id);
  }
  return held;
}

const FIELDS = ['status', 'data', 'result', 'errors', 'warnings'] as const;

/**
 * Adds each event's final state and the release of its lease to `writes`: one UPDATE per chunk,
 * joined to the outcomes as a VALUES list (`UPDATE … FROM`), so each row is found once by its key.
 * A CASE per column instead compared every row with every id of the chunk (see docs/performance.md, P13).
 */
function setOutcomes(writes: WriteBatch, outcomes: { id: string; outcome: EventOutcome }[], processedAt: number): void {
  for (let start = 0; start < outcomes.length; start += OUTCOME_CHUNK) {
    const chunk = outcomes.slice(start, start + OUTCOME_CHUNK);
    const values = chunk.map(() => '(?, ?, ?, ?, ?, ?)').join(', ');
    const bindings = chunk.flatMap(({ id, outcome }) => [id, ...FIELDS.map((field) => outcome[field] ?? null)]);
    writes.add(
      writes.sql.raw(
        `with outcome (id, ${FIELDS.join(', ')}) as (values ${values}) update events set ` +
          `${FIELDS.map((field) => `${field} = outcome.${field}`).join(', ')}, ` +
          'processed_at = ?, lease_owner = null, lease_until = null from outcome where events.id = outcome.id',
        [...bindings, processedAt],
      ),
    );
  }
}

export const eventWrites = {
  confirmLeases,
  setOutcomes,
  /** One multi-row INSERT per chunk: a group commit of N requests costs one statement and one flush. */
  insertMany(writes: WriteBatch, rows: EventInsert[]): void {
    writes.insertRows('events', rows.map(withStoredPayload));
  },

  /** An event row as rows to insert, for a write gathered with others (`GroupCommit.acknowledge`). */
  rowInsert(row: EventInsert): RowInsert {
    return { table: 'events', rows: [withStoredPayload(row)] };
  },

  async setOutcome(db: Queryable, id: string, outcome: EventOutcome): Promise<void> {
    await db('events')
      .where({ id })
      .update({ ...outcome, lease_owner: null, lease_until: null });
  },

  /** A transient failure: try again later (backoff), or give up as `failed` after the last try. */
  async scheduleRetry(db: Queryable, id: string, attempts: number, nextAttemptAt: number): Promise<void> {
    await db('events')
      .where({ id })
      .update({ attempts, next_attempt_at: nextAttemptAt, lease_owner: null, lease_until: null });
  },

  /**
   * Claims due queued events for `owner` until `now + leaseMs` (as many as `Claim` allows). Events
   * leased to an instance that died become claimable again when the lease runs out. On PostgreSQL
   * the candidates are locked with FOR UPDATE SKIP LOCKED, so instances never claim the same event.
   */
  async claimDue(
    db: Queryable,
    claim: Claim & { owner: string; leaseMs: number; skipLocked: boolean },
    held?: (id: string) => Payload | undefined,
  ): Promise<ClaimedBatch> {
    checkedClaim(claim);
    const due = dueEvents(db, claim).select('id', db.raw(`${RECEIVED_BYTES_SQL} as bytes`));
    if (claim.skipLocked) void due.forUpdate().skipLocked();
    const rows = await db('events')
      .with('due', due)
      .whereRaw(`id IN (${withinBudget(claim.maxBytes)})`)
      .update({ lease_owner: claim.owner, lease_until: claim.now + claim.leaseMs })
      .returning<(EventRow & { due_count: unknown })[]>([
        ...CLAIM_COLUMNS,
        // A large payload is left out, as in `dueQueued`: node-postgres would decode it whole.
        db.raw(
          `CASE WHEN octet_length(payload) > ${String(JSON_CLAIM_MAX_PAYLOAD)} THEN NULL ELSE payload END AS payload`,
        ),
        db.raw('(SELECT count(*) FROM due) AS due_count'),
      ]);
    const claimed: ClaimedRow[] = [];
    for (const { due_count: _count, ...row } of rows) {
      if ((row.payload as string | null) !== null) claimed.push(normalizeEventRow(row));
      else {
        // Held by the process that stored it, or read on its own (decoded whole, in one go).
        const payload = held?.(row.id) ?? (await eventsRepo.findById(db, row.id))?.payload;
        if (payload !== undefined) claimed.push({ ...normalizeEventRow({ ...row, payload: '' }), payload });
      }
    }
    return { rows: claimed.sort(oldestFirst), cut: num(rows[0]?.due_count ?? 0) > rows.length };
  },

  /**
   * First statement of an event's final transaction: true when the event is still queued and
   * leased to `owner`. On PostgreSQL it also row-locks the event until commit, so a second
   * instance that took over an expired lease waits and then finds the event final.
   */
  async confirmLease(db: Queryable, id: string, owner: string): Promise<boolean> {
    const touched = await db('events')
      .where({ id, status: 'queued', lease_owner: owner })
      .update({ lease_owner: owner });
    return touched === 1;
  },

  /** When the next queued event becomes claimable: its due time, or its lease's end if later. */
  async earliestRetry(db: Queryable): Promise<number | null> {
    const row = await db('events')
      .where('status', 'queued')
      .first<{ at: unknown } | undefined>(
        db.raw(
          'min(case when lease_until is not null and lease_until > next_attempt_at then lease_until else next_attempt_at end) as at',
        ),
      );
    return numOrNull(row?.at);
  },

  async snapshotPage(db: Queryable, filter: EventSnapshotFilter): Promise<EventRow[]> {
    const query = db('events')
      .where({ endpoint_id: filter.endpointId, event_type: filter.eventType, status: 'processed' })
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .select('*');
    if (filter.children) void query.whereNotNull('parent_id');
    else void query.whereNull('parent_id');
    if (filter.since !== undefined) {
      // The same bound on the id lets the page walk stop at `since` instead of at the endpoint's
      // oldest event (see `eventIdFloor`); the slack covers events stored before ids and receive
      // times were taken from one instant (a few ms apart then).
      void query
        .where('received_at', '>=', filter.since)
        .where('id', '>=', eventIdFloor(filter.since - ID_TIME_SLACK_MS));
    }
    if (filter.until !== undefined) void query.where('received_at', '<=', filter.until);
    if (filter.beforeId !== undefined) void query.where('id', '<', filter.beforeId);
    for (const facet of filter.facets) {
      void query.whereExists((sub) => {
        void sub
          .select(1)
          .from('event_facets')
          .whereRaw('event_facets.event_id = events.id')
          .where({ name: facet.name, value: facet.value });
      });
    }
    const numeric = filter.numericFacet;
    if (numeric) {
      void query.whereExists((sub) => {
        void sub
          .select(1)
          .from('event_facets')
          .whereRaw('event_facets.event_id = events.id')
          .where('name', numeric.name);
        if (numeric.from !== undefined) void sub.where('num', '>=', numeric.from);
        if (numeric.to !== undefined) void sub.where('num', '<=', numeric.to);
      });
    }
    return ((await query) as EventRow[]).map(normalizeEventRow);
  },
};

/** Retention: old events in a final state, and their snapshot rows. */
export const eventPruning = {
  /** Ids of the oldest final submissions (never queued ones: acknowledged data is not dropped). */
  async oldestFinal(db: Queryable, limit: number, receivedBefore?: number): Promise<string[]> {
    const query = db('events')
      .whereNull('parent_id')
      .whereNot('status', 'queued')
      .orderBy('id')
      .limit(limit)
      .select('id');
    if (receivedBefore !== undefined) void query.where('received_at', '<', receivedBefore);
    return ((await query) as { id: string }[]).map((row) => row.id);
  },

  async countSubmissions(db: Queryable): Promise<number> {
    const row = (await db('events').whereNull('parent_id').count({ n: '*' }).first()) as { n: unknown } | undefined;
    return num(row?.n ?? 0);
  },

  /** Deletes submissions with their split children, facets and GhostData rows. */
  /** Adds the deletion of these events, their child events and the rows that belong to them to `writes`. */
  async deleteWithDependents(writes: WriteBatch, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const sql = writes.sql;
    const children = await writes.read<{ id: string }>(sql('events').whereIn('parent_id', ids).select('id'));
    const all = [...ids, ...children.map((row) => row.id)];
    for (let start = 0; start < all.length; start += 500) {
      const chunk = all.slice(start, start + 500);
      writes.add(
        ...epcisIndexRepo.deletes(sql, chunk),
        sql('event_facets').whereIn('event_id', chunk).delete(),
        sql('ghost_rows').whereIn('event_id', chunk).delete(),
        sql('events').whereIn('id', chunk).delete(),
      );
    }
  },
};

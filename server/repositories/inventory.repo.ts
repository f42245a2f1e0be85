import { dialectOf, num, numOrNull, type Queryable } from './db-types';
import type { Knex } from 'knex';
import { sqliteObjectsViaJson, type JsonField, type JsonObjects } from '../db/sqlite-json-objects';
import { jsonRowsSql, type JsonRowsShape } from '../db/sqlite-json-rows';
import type { WriteBatch } from '../db/write-batch';

/**
 * One EPC's row of the live tag inventory (UHFTagRead), per endpoint: what the dedup step
 * (`events/uhf`) folds reads into, what is stored, and what a snapshot answers.
 */
export interface InventoryRow {
  epc: string;
  epcUri: string;
  tid: string | null;
  /** Reader, antenna and RSSI of the read with the latest read time. */
  readerId: string;
  antenna: number | null;
  rssi: number | null;
  /** Earliest and latest read time seen, ms since the epoch. */
  firstSeen: number;
  lastSeen: number;
  /** Counted reads: reads outside the dedup window. */
  readCount: number;
}

/** The `tag_inventory` column that stores each member of `InventoryRow`. */
export const INVENTORY_COLUMN = {
  epc: 'epc',
  epcUri: 'epc_uri',
  tid: 'tid',
  readerId: 'reader_id',
  antenna: 'antenna',
  rssi: 'rssi',
  firstSeen: 'first_seen',
  lastSeen: 'last_seen',
  readCount: 'read_count',
} as const satisfies Record<keyof InventoryRow, string>;

export type InventoryColumn = (typeof INVENTORY_COLUMN)[keyof InventoryRow];

/** An `InventoryRow` as the driver returns it (PostgreSQL's bigints as strings). */
type StoredInventoryRow = { epc: string; epc_uri: string; tid: string | null; reader_id: string } & Record<
  InventoryColumn,
  unknown
>;

const toInventory = (row: StoredInventoryRow): InventoryRow => ({
  epc: row.epc,
  epcUri: row.epc_uri,
  tid: row.tid,
  readerId: row.reader_id,
  antenna: numOrNull(row.antenna),
  rssi: numOrNull(row.rssi),
  firstSeen: num(row.first_seen),
  lastSeen: num(row.last_seen),
  readCount: num(row.read_count),
});

const INVENTORY_KEYS = Object.keys(INVENTORY_COLUMN) as (keyof InventoryRow)[];
const INVENTORY_COLUMNS = INVENTORY_KEYS.map((key) => INVENTORY_COLUMN[key]);

const IN_CHUNK = 500;

/** The snapshot's order; `tag_inventory_page_idx` has exactly this order, so a page needs no sort. */
const PAGE_ORDER = [
  { column: 'last_seen', order: 'desc' },
  { column: 'epc', order: 'asc' },
] as const;

export interface InventoryFilter {
  endpointId: number;
  epc?: string;
  epcUri?: string;
  readerId?: string;
  antenna?: number;
  /** lastSeen bounds (seenSince, since, until). */
  from?: number;
  to?: number;
  /** Keyset cursor: (lastSeen, epc) of the previous page's last item. */
  after?: { lastSeen: number; epc: string };
  limit: number;
}

/** The page's rows, filtered and in `PAGE_ORDER`, before the SELECT list. */
function pageQuery(db: Queryable, filter: InventoryFilter): Knex.QueryBuilder {
  // An EPC URI names one tag (or a few: the URI leaves out the filter value). Without statistics
  // SQLite prefers the page index, which gives the order for free, and scans the endpoint's whole
  // inventory for the URI, slower the larger it grows (figures: docs/performance.md, P26;
  // record docs/decisions/0037-epc-uri-filter-names-its-index.md); the URI's own index finds the rows at once.
  const table =
    filter.epcUri !== undefined && dialectOf(db) === 'sqlite'
      ? db.raw('?? INDEXED BY ??', ['tag_inventory', 'tag_inventory_endpoint_id_epc_uri_index'])
      : 'tag_inventory';
  const query = db
    .from(table)
    .where('endpoint_id', filter.endpointId)
    .orderBy([...PAGE_ORDER])
    .limit(filter.limit);
  if (filter.epc !== undefined) void query.where('epc', filter.epc);
  if (filter.epcUri !== undefined) void query.where('epc_uri', filter.epcUri);
  if (filter.readerId !== undefined) void query.where('reader_id', filter.readerId);
  if (filter.antenna !== undefined) void query.where('antenna', filter.antenna);
  if (filter.from !== undefined) void query.where('last_seen', '>=', filter.from);
  if (filter.to !== undefined) void query.where('last_seen', '<=', filter.to);
  const after = filter.after;
  if (after) {
    // `last_seen <= L` says nothing the OR does not, but it is a range the page index can seek
    // to; with the OR alone the database would scan from the newest row for every later page.
    void query.where('last_seen', '<=', after.lastSeen).where((q) => {
      void q.where('last_seen', '<', after.lastSeen).orWhere('epc', '>', after.epc);
    });
  }
  return query;
}

/** FNV-1a: a stable 31-bit bucket for an advisory lock key. */
function lockBucket(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 1) & 0x3fff_ffff;
}

/** A row of `loadState`'s union: an inventory row (dedup columns NULL) or a dedup row (the others NULL). */
type StateRow = StoredInventoryRow & { dedup_key: string | null; last_counted: unknown };

/** `loadState`'s rows on SQLite, handed over as one JSON text (see `jsonRowsSql`). */
const STATE_SHAPE = {
  columns: [...INVENTORY_COLUMNS, 'dedup_key', 'last_counted'],
  real: ['rssi'],
} as const satisfies JsonRowsShape<keyof StateRow>;

/** Where a `STATE_SHAPE` array holds the dedup key (the last counted time follows it). */
const STATE_DEDUP_KEY = INVENTORY_COLUMNS.length;

/**
 * An inventory row from a `STATE_SHAPE` array (`INVENTORY_COLUMN` order), as one object literal:
 * generic row objects built column by column cost twice the `JSON.parse` (docs/performance.md, P24).
 * `rssi` is a REAL, so it travels as 17-digit text (`jsonRowsSql`).
 */
const stateInventoryRow = (v: unknown[]): InventoryRow => ({
  epc: v[0] as string,
  epcUri: v[1] as string,
  tid: v[2] as string | null,
  readerId: v[3] as string,
  antenna: numOrNull(v[4]),
  rssi: numOrNull(v[5]),
  firstSeen: num(v[6]),
  lastSeen: num(v[7]),
  readCount: num(v[8]),
});

/** `loadState` on SQLite; bindings: endpoint id, EPCs as a JSON array, endpoint id, dedup keys as a JSON array. */
const SQLITE_STATE_SQL = jsonRowsSql(
  `SELECT ${INVENTORY_COLUMNS.join(', ')}, NULL AS dedup_key, NULL AS last_counted FROM tag_inventory` +
    ` WHERE endpoint_id = ? AND epc IN (SELECT value FROM json_each(?))` +
    ` UNION ALL SELECT ${INVENTORY_COLUMNS.map((column) => `NULL AS ${column}`).join(', ')}, dedup_key, last_counted` +
    ` FROM tag_dedup WHERE endpoint_id = ? AND dedup_key IN (SELECT value FROM json_each(?))`,
  STATE_SHAPE,
);

/** Distinguishes the gateway's advisory locks from anyone else's on the same database. */
const INVENTORY_LOCK_SPACE = 0x4757; // "GW"

export const inventoryRepo = {
  /**
   * Serializes inventory updates for these EPCs across instances sharing a PostgreSQL database:
   * transaction-scoped advisory locks, taken in sorted order so two batches cannot deadlock.
   * All in one statement: a lock per statement was a round trip per EPC, which made the worker's
   * flush mostly round trips and the PostgreSQL drain of a backlog slow (figures:
   * docs/performance.md, P06).
   * `unnest` yields the sorted array in order and the locks are taken row by row as it does.
   * SQLite needs none: one writer, and the group commit already runs batches one by one.
   */
  async lockEpcs(tx: WriteBatch, endpointId: number, epcs: string[]): Promise<void> {
    if (tx.dialect !== 'postgres' || epcs.length === 0) return;
    const buckets = [...new Set(epcs.map((epc) => lockBucket(`${endpointId}:${epc}`)))].sort((a, b) => a - b);
    await tx.read(
      tx.sql.raw('select count(pg_advisory_xact_lock(?, bucket)) from unnest(?::int[]) as bucket', [
        INVENTORY_LOCK_SPACE,
        buckets,
      ]),
    );
  },

  /**
   * The inventory rows of these EPCs and the dedup reference times of these keys, as a UNION of
   * both lookups: the sync path reads this in every flush, and every statement is trips to the
   * driver it waits for. On SQLite the lists go in as JSON (`json_each`), so the statement text
   * never changes and a script transaction reuses it prepared; on PostgreSQL up to IN_CHUNK of
   * each list per statement.
   */
  async loadState(
    tx: WriteBatch,
    endpointId: number,
    epcs: string[],
    keys: string[],
  ): Promise<{ inventory: InventoryRow[]; lastCounted: Map<string, number> }> {
    const inventory: InventoryRow[] = [];
    const lastCounted = new Map<string, number>();
    const take = (rows: StateRow[]) => {
      for (const row of rows) {
        if (row.dedup_key !== null) lastCounted.set(row.dedup_key, num(row.last_counted));
        else inventory.push(toInventory(row));
      }
    };
    if (epcs.length === 0 && keys.length === 0) return { inventory, lastCounted };
    if (tx.dialect === 'sqlite') {
      const [result] = await tx.readSql<{ rows: string }>(SQLITE_STATE_SQL, [
        endpointId,
        JSON.stringify(epcs),
        endpointId,
        JSON.stringify(keys),
      ]);
      for (const values of JSON.parse(result?.rows ?? '[]') as unknown[][]) {
        const key = values[STATE_DEDUP_KEY];
        if (typeof key === 'string') lastCounted.set(key, num(values[STATE_DEDUP_KEY + 1]));
        else inventory.push(stateInventoryRow(values));
      }
      return { inventory, lastCounted };
    }
    const none = (column: string) => tx.sql.raw(`NULL AS ??`, [column]);
    for (let start = 0; start < Math.max(epcs.length, keys.length); start += IN_CHUNK) {
      const inventoryRows = tx
        .sql('tag_inventory')
        .where('endpoint_id', endpointId)
        .whereIn('epc', epcs.slice(start, start + IN_CHUNK))
        .select(...INVENTORY_COLUMNS, none('dedup_key'), none('last_counted'));
      const dedupRows = tx
        .sql('tag_dedup')
        .where('endpoint_id', endpointId)
        .whereIn('dedup_key', keys.slice(start, start + IN_CHUNK))
        .select(...INVENTORY_COLUMNS.map(none), 'dedup_key', 'last_counted');
      take(await tx.read<StateRow>(inventoryRows.unionAll(dedupRows)));
    }
    return { inventory, lastCounted };
  },

  upsert(writes: WriteBatch, endpointId: number, rows: InventoryRow[]): void {
    const batch = rows.map((row) => ({
      endpoint_id: endpointId,
      epc: row.epc,
      epc_uri: row.epcUri,
      tid: row.tid,
      reader_id: row.readerId,
      antenna: row.antenna,
      rssi: row.rssi,
      first_seen: row.firstSeen,
      last_seen: row.lastSeen,
      read_count: row.readCount,
    })) satisfies ({ endpoint_id: number } & Record<InventoryColumn, unknown>)[];
    writes.insertRows('tag_inventory', batch, { columns: ['endpoint_id', 'epc'], then: 'merge' });
  },

  upsertDedup(writes: WriteBatch, endpointId: number, entries: [string, number][]): void {
    const batch = entries.map(([key, at]) => ({ endpoint_id: endpointId, dedup_key: key, last_counted: at }));
    writes.insertRows('tag_dedup', batch, { columns: ['endpoint_id', 'dedup_key'], then: 'merge' });
  },

  /**
   * Newest sighting first, as rows: the snapshot's page on PostgreSQL (on SQLite the snapshot
   * reads `pageJson`, and this is the same page for callers that want rows).
   */
  async page(db: Queryable, filter: InventoryFilter): Promise<InventoryRow[]> {
    return (await pageQuery(db, filter).select<StoredInventoryRow[]>(...INVENTORY_COLUMNS)).map(toInventory);
  },

  /**
   * SQLite only: the same page as `page`, written by SQLite as the answer's JSON objects
   * (`fields` say which member each column becomes); the first `keep` rows are kept.
   */
  async pageJson(
    db: Queryable,
    filter: InventoryFilter,
    fields: readonly JsonField<InventoryColumn>[],
    keep: number,
  ): Promise<JsonObjects> {
    return sqliteObjectsViaJson(db, pageQuery(db, filter).select(...INVENTORY_COLUMNS), fields, PAGE_ORDER, keep);
  },
};

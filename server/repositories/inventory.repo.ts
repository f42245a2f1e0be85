import { dialectOf, num, numOrNull, type Queryable } from './db-types';
import type { Knex } from 'knex';
import { sqliteObjectsViaJson, type JsonField, type JsonObjects } from '../db/sqlite-json-objects';
import { jsonRowsSql, type JsonRowsShape } from '../db/sqlite-json-rows';
import type { WriteBatch } from '../db/write-batch';
import { SqlBytes } from '../db/sql-literal';

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

/**
 * `epc` holds the EPC's bytes (a BLOB, PostgreSQL `bytea`): half its hex text in the row, the key
 * and the page index (docs/decisions/0384-inventory-epc-as-bytes.md). Every stored EPC is whole
 * bytes of upper-case hex (`hexProblem`), so the bytes give the text back exactly. Rows are
 * written with `SqlBytes` of the hex, filters bind `epcBytes`, and reads select the hex text.
 */
const epcBytes = (hex: string): Buffer => Buffer.from(hex, 'hex');

/** The select list entry that reads `column`: the EPC as its upper-case hex, the rest as stored. */
function selected(db: Queryable, dialect: 'sqlite' | 'postgres', column: string): string | Knex.Raw {
  if (column !== 'epc') return column;
  const hex = dialect === 'sqlite' ? 'hex(??)' : "upper(encode(??, 'hex'))";
  return db.raw(`${hex} as ??`, ['tag_inventory.epc', 'epc']);
}

const IN_CHUNK = 500;

/**
 * The snapshot's order, newest sighting first, ties by EPC descending: `tag_inventory_page_idx`
 * read backwards, so every new sighting goes to the end of the index, which keeps its pages full
 * (docs/decisions/0383-inventory-indexes-that-pay.md). On PostgreSQL the index is (endpoint_id,
 * last_seen, epc) and a page needs no sort; SQLite's is (endpoint_id, last_seen), and SQLite sorts
 * the rows of one `last_seen` only (docs/decisions/0384-inventory-epc-as-bytes.md). The EPC's
 * bytes sort as its upper-case hex does. These are the names of the selected columns (the EPC as
 * hex); `PAGE_KEY` orders the rows themselves.
 */
const PAGE_ORDER = [
  { column: 'last_seen', order: 'desc' },
  { column: 'epc', order: 'desc' },
] as const;
const PAGE_KEY = [
  { column: 'tag_inventory.last_seen', order: 'desc' },
  { column: 'tag_inventory.epc', order: 'desc' },
] as const;

export interface InventoryFilter {
  endpointId: number;
  epc?: string;
  /** An EPC URI, with the EPCs it can be listed as (see `upsert`). */
  epcUri?: { uri: string; epcs: readonly string[] };
  readerId?: string;
  antenna?: number;
  /** lastSeen bounds (seenSince, since, until). */
  from?: number;
  to?: number;
  /** Keyset cursor: (lastSeen, epc) of the previous page's last item. */
  after?: { lastSeen: number; epc: string };
  limit: number;
}

/**
 * An EPC URI finds its rows by their EPCs where the caller can list them (a raw URI's hex, an
 * SGTIN's SGTIN-96 encodings), and by a 30-bit hash of the URI (`epc_uri_hash`) for the rest, the
 * URI then compared whole. Only rows whose URI does not list their EPC carry the hash, so the
 * hash index stays small: written for every new EPC, at random places, it slowed each write as
 * the inventory grew (docs/decisions/0415-epc-uri-filter-by-its-epcs.md; the older
 * docs/decisions/0383-inventory-indexes-that-pay.md).
 */
const uriHash = (uri: string): number => fnv30(uri);

/**
 * The rows a URI filter reads, each looked up by key: the EPCs it lists and the rows with its
 * hash. A row written before 0415 may be both; DISTINCT keeps it once (a UNION had SQLite read the
 * whole endpoint in key order to merge the two). `CROSS JOIN` keeps SQLite from reading the page
 * index for the order and testing every row of the endpoint against the list: it joins in the
 * order written.
 */
function uriRowsSource(db: Queryable, endpointId: number, filter: NonNullable<InventoryFilter['epcUri']>): Knex.Raw {
  const sqlite = dialectOf(db) === 'sqlite';
  const listed = sqlite
    ? 'SELECT unhex(value) AS epc FROM json_each(?)'
    : "SELECT decode(hex, 'hex') AS epc FROM unnest(?::text[]) AS hex";
  const hashed =
    'SELECT hashed.epc FROM tag_inventory AS hashed WHERE hashed.endpoint_id = ? AND hashed.epc_uri_hash = ?';
  return db.raw(
    `(SELECT DISTINCT epc FROM (${listed} UNION ALL ${hashed}) AS found) AS uri_epcs CROSS JOIN tag_inventory`,
    [sqlite ? JSON.stringify(filter.epcs) : [...filter.epcs], endpointId, uriHash(filter.uri)],
  );
}

const pageColumns = (db: Queryable) => INVENTORY_COLUMNS.map((column) => selected(db, dialectOf(db), column));

/** The page's rows, filtered and in `PAGE_ORDER`, before the SELECT list. */
function pageQuery(db: Queryable, filter: InventoryFilter): Knex.QueryBuilder {
  const query = db
    .from(filter.epcUri === undefined ? 'tag_inventory' : uriRowsSource(db, filter.endpointId, filter.epcUri))
    .where('tag_inventory.endpoint_id', filter.endpointId)
    .orderBy([...PAGE_KEY])
    .limit(filter.limit);
  if (filter.epc !== undefined) void query.where('tag_inventory.epc', epcBytes(filter.epc));
  if (filter.epcUri !== undefined)
    void query.whereRaw('?? = ??', ['tag_inventory.epc', 'uri_epcs.epc']).where('epc_uri', filter.epcUri.uri);
  if (filter.readerId !== undefined) void query.where('reader_id', filter.readerId);
  if (filter.antenna !== undefined) void query.where('antenna', filter.antenna);
  if (filter.from !== undefined) void query.where('last_seen', '>=', filter.from);
  if (filter.to !== undefined) void query.where('last_seen', '<=', filter.to);
  const after = filter.after;
  if (after) {
    // `last_seen <= L` says nothing the OR does not, but it is a range the page index can seek
    // to; with the OR alone the database would scan from the newest row for every later page.
    void query.where('last_seen', '<=', after.lastSeen).where((q) => {
      void q.where('last_seen', '<', after.lastSeen).orWhere('tag_inventory.epc', '<', epcBytes(after.epc));
    });
  }
  return query;
}

/**
 * The dedup key of a reader antenna seeing an EPC. JSON keeps it unambiguous whatever the
 * reader id contains (a separator character could otherwise collide), and a null antenna stays
 * distinct from antenna 0.
 */
export function dedupKey(epc: string, readerId: string, antenna: number | null): string {
  return JSON.stringify([epc, readerId, antenna]);
}

/**
 * An EPC's dedup reference times live in its inventory row (they repeat its key otherwise):
 * `counted_at` for the row's own reader antenna (`reader_id`, `antenna`: where most reads of a
 * tag come from), `counted_others` for any other as JSON `[[readerId, antenna, time], …]`; NULL
 * when there is none. See docs/decisions/0382-dedup-state-in-the-inventory-row.md.
 */
interface StoredCounted {
  counted_at: number | null;
  counted_others: string | null;
}

/** `row`'s dedup columns from the reference times of its EPC (`times`: reader, antenna, time). */
function storedCounted(row: InventoryRow, times: readonly [readerId: string, antenna: number | null, at: number][]) {
  const stored: StoredCounted = { counted_at: null, counted_others: null };
  const others: [string, number | null, number][] = [];
  for (const entry of times) {
    if (entry[0] === row.readerId && entry[1] === row.antenna) stored.counted_at = entry[2];
    else others.push(entry);
  }
  if (others.length > 0) stored.counted_others = JSON.stringify(others);
  return stored;
}

/** Adds a stored row's dedup reference times to `into` (dedup key → time). */
function addCounted(
  into: Map<string, number>,
  epc: string,
  readerId: string,
  antenna: unknown,
  countedAt: unknown,
  others: unknown,
): void {
  if (countedAt !== null && countedAt !== undefined)
    into.set(dedupKey(epc, readerId, numOrNull(antenna)), num(countedAt));
  if (typeof others !== 'string') return;
  for (const [reader, ant, at] of JSON.parse(others) as [string, number | null, number][])
    into.set(dedupKey(epc, reader, ant), at);
}

/** FNV-1a over UTF-16 code units, 30 bits: a stable bucket for an advisory lock key or a URI. */
function fnv30(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 1) & 0x3fff_ffff;
}

/** A row of `loadState`: an inventory row with its dedup reference times. */
type StateRow = StoredInventoryRow & { counted_at: unknown; counted_others: string | null };

const STATE_COLUMNS = [...INVENTORY_COLUMNS, 'counted_at', 'counted_others'] as const;

/** `loadState`'s rows on SQLite, handed over as one JSON text (see `jsonRowsSql`). */
const STATE_SHAPE = {
  columns: STATE_COLUMNS,
  real: ['rssi'],
} as const satisfies JsonRowsShape<keyof StateRow>;

/** Where a `STATE_SHAPE` array holds `counted_at` (`counted_others` follows it). */
const STATE_COUNTED = INVENTORY_COLUMNS.length;

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

/** `loadState` on SQLite; bindings: endpoint id, EPCs (hex) as a JSON array. */
const SQLITE_STATE_SQL = jsonRowsSql(
  `SELECT ${STATE_COLUMNS.map((column) => (column === 'epc' ? 'hex(epc) AS epc' : column)).join(', ')}` +
    ' FROM tag_inventory WHERE endpoint_id = ? AND epc IN (SELECT unhex(value) FROM json_each(?))',
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
    const buckets = [...new Set(epcs.map((epc) => fnv30(`${endpointId}:${epc}`)))].sort((a, b) => a - b);
    await tx.read(
      tx.sql.raw('select count(pg_advisory_xact_lock(?, bucket)) from unnest(?::int[]) as bucket', [
        INVENTORY_LOCK_SPACE,
        buckets,
      ]),
    );
  },

  /**
   * The inventory rows of these EPCs and the dedup reference times of every reader antenna that
   * counted them (keyed by `dedupKey`): one lookup, which the sync path makes in every flush. On
   * SQLite the list goes in as JSON (`json_each`), so the statement text never changes and a
   * script transaction reuses it prepared; on PostgreSQL up to IN_CHUNK EPCs per statement.
   */
  async loadState(
    tx: WriteBatch,
    endpointId: number,
    epcs: string[],
  ): Promise<{ inventory: InventoryRow[]; lastCounted: Map<string, number> }> {
    const inventory: InventoryRow[] = [];
    const lastCounted = new Map<string, number>();
    if (epcs.length === 0) return { inventory, lastCounted };
    if (tx.dialect === 'sqlite') {
      const [result] = await tx.readSql<{ rows: string }>(SQLITE_STATE_SQL, [endpointId, JSON.stringify(epcs)]);
      for (const values of JSON.parse(result?.rows ?? '[]') as unknown[][]) {
        const row = stateInventoryRow(values);
        inventory.push(row);
        addCounted(lastCounted, row.epc, row.readerId, row.antenna, values[STATE_COUNTED], values[STATE_COUNTED + 1]);
      }
      return { inventory, lastCounted };
    }
    for (let start = 0; start < epcs.length; start += IN_CHUNK) {
      const rows = await tx.read<StateRow>(
        tx
          .sql('tag_inventory')
          .where('endpoint_id', endpointId)
          .whereIn('epc', epcs.slice(start, start + IN_CHUNK).map(epcBytes))
          .select(STATE_COLUMNS.map((column) => selected(tx.sql, tx.dialect, column))),
      );
      for (const row of rows) {
        inventory.push(toInventory(row));
        addCounted(lastCounted, row.epc, row.reader_id, row.antenna, row.counted_at, row.counted_others);
      }
    }
    return { inventory, lastCounted };
  },

  /**
   * Writes these inventory rows with their EPCs' dedup reference times from `lastCounted`
   * (dedup key → time, as `loadState` gives it and dedup changes it). A reference time changes
   * only with a counted read, which changes its EPC's row too, so the changed rows carry every
   * changed time. `uriListsEpc` says which rows a URI filter finds by their EPC; the others get
   * the URI's hash.
   */
  upsert(
    writes: WriteBatch,
    endpointId: number,
    rows: InventoryRow[],
    lastCounted: ReadonlyMap<string, number>,
    uriListsEpc: (epc: string, uri: string) => boolean,
  ): void {
    const times = new Map<string, [string, number | null, number][]>();
    for (const row of rows) times.set(row.epc, []);
    for (const [key, at] of lastCounted) {
      const [epc, readerId, antenna] = JSON.parse(key) as [string, string, number | null];
      times.get(epc)?.push([readerId, antenna, at]);
    }
    const batch = rows.map((row) => ({
      endpoint_id: endpointId,
      epc: new SqlBytes(row.epc),
      epc_uri: row.epcUri,
      epc_uri_hash: uriListsEpc(row.epc, row.epcUri) ? null : uriHash(row.epcUri),
      tid: row.tid,
      reader_id: row.readerId,
      antenna: row.antenna,
      rssi: row.rssi,
      first_seen: row.firstSeen,
      last_seen: row.lastSeen,
      read_count: row.readCount,
      ...storedCounted(row, times.get(row.epc) ?? []),
    })) satisfies ({ endpoint_id: number; epc_uri_hash: number | null } & Record<InventoryColumn, unknown> &
      StoredCounted)[];
    writes.insertRows('tag_inventory', batch, { columns: ['endpoint_id', 'epc'], then: 'merge' });
  },

  /**
   * Newest sighting first, as rows: the snapshot's page on PostgreSQL (on SQLite the snapshot
   * reads `pageJson`, and this is the same page for callers that want rows).
   */
  async page(db: Queryable, filter: InventoryFilter): Promise<InventoryRow[]> {
    return (await pageQuery(db, filter).select<StoredInventoryRow[]>(pageColumns(db))).map(toInventory);
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
    return sqliteObjectsViaJson(db, pageQuery(db, filter).select(pageColumns(db)), fields, PAGE_ORDER, keep);
  },
};

import type { Knex } from 'knex';
import { brotliDecompressSync } from 'node:zlib';

// A migration stays as it was written: it imports no application code, which may change later.
const dialectOf = (knex: Knex): 'sqlite' | 'postgres' =>
  (knex.client as { config: { client?: unknown } }).config.client === 'pg' ? 'postgres' : 'sqlite';

/** Rows per statement when data is converted here. */
const CHUNK = 500;

const PAGE_INDEX = 'CREATE INDEX tag_inventory_page_idx ON tag_inventory (endpoint_id, last_seen, epc)';
const URI_HASH_INDEX = 'CREATE INDEX tag_inventory_uri_hash_idx ON tag_inventory (endpoint_id, epc_uri_hash)';
const URI_INDEX = 'CREATE INDEX tag_inventory_endpoint_id_epc_uri_index ON tag_inventory (endpoint_id, epc_uri)';

/** The gateway's URI hash (FNV-1a over UTF-16 code units, 30 bits), as it was when this was written. */
function uriHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 1) & 0x3fff_ffff;
}
const OLD_PAGE_INDEX = 'CREATE INDEX tag_inventory_page_idx ON tag_inventory (endpoint_id, last_seen DESC, epc)';

/**
 * Bytes on disk per tag read (issue 37.6; docs/decisions/0381 to 0383).
 *
 * - `events.payload_bytes`: NULL when `payload` holds the payload as received (every existing
 *   row), else `payload` holds it compressed (base64 of Brotli) and this is its size received
 *   in bytes.
 * - `tag_dedup` repeated the inventory's key for every reader antenna: its reference times move
 *   into the EPC's inventory row, `counted_at` for the row's own reader and antenna and
 *   `counted_others` (JSON `[[readerId, antenna, time], …]`) for any other. A dedup row whose EPC
 *   has no inventory row cannot be written by the gateway (both are written in one transaction)
 *   and is dropped.
 * - The page index becomes (endpoint_id, last_seen, epc), read backwards by the snapshot (newest
 *   first, ties by EPC descending): newer sightings go to its end instead of to its start, where
 *   every split left two half-full pages.
 * - The URI index (endpoint_id, epc_uri) becomes one of a 30-bit hash of the URI
 *   (`epc_uri_hash`, computed here for the rows there are); the URI is compared whole on the row.
 * Same steps on SQLite and PostgreSQL but the folding statements.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.integer('payload_bytes').nullable();
  });
  await knex.schema.alterTable('tag_inventory', (t) => {
    t.bigInteger('counted_at').nullable();
    t.text('counted_others').nullable();
    t.integer('epc_uri_hash').nullable();
  });
  if (dialectOf(knex) === 'postgres') await foldDedupPostgres(knex);
  else await foldDedupSqlite(knex);
  await knex.schema.dropTable('tag_dedup');
  await knex.raw('DROP INDEX tag_inventory_page_idx');
  await knex.raw('DROP INDEX tag_inventory_endpoint_id_epc_uri_index');
  await hashUris(knex);
  await knex.raw(PAGE_INDEX);
  await knex.raw(URI_HASH_INDEX);
}

async function foldDedupSqlite(knex: Knex): Promise<void> {
  // The dedup keys' parts (JSON `[epc, readerId, antenna]`), compared as values, not as text.
  await knex.raw(
    `CREATE TEMP TABLE dedup_parts AS SELECT endpoint_id, json_extract(dedup_key, '$[0]') AS epc,
       json_extract(dedup_key, '$[1]') AS reader_id, json_extract(dedup_key, '$[2]') AS antenna, last_counted
       FROM tag_dedup`,
  );
  await knex.raw('CREATE INDEX temp.dedup_parts_epc ON dedup_parts (endpoint_id, epc)');
  const epc = 'd.endpoint_id = tag_inventory.endpoint_id AND d.epc = tag_inventory.epc';
  const own = 'd.reader_id = tag_inventory.reader_id AND d.antenna IS tag_inventory.antenna';
  await knex.raw(
    `UPDATE tag_inventory SET
       counted_at = (SELECT d.last_counted FROM dedup_parts d WHERE ${epc} AND ${own}),
       counted_others = (SELECT iif(count(*) > 0, json_group_array(json_array(d.reader_id, d.antenna, d.last_counted)), NULL)
         FROM dedup_parts d WHERE ${epc} AND NOT (${own}))`,
  );
  await knex.raw('DROP TABLE temp.dedup_parts');
}

async function foldDedupPostgres(knex: Knex): Promise<void> {
  const parts = `SELECT endpoint_id, dedup_key::jsonb->>0 AS epc, dedup_key::jsonb->>1 AS reader_id,
      (dedup_key::jsonb->>2)::integer AS antenna, last_counted FROM tag_dedup`;
  const own = 'd.reader_id = i.reader_id AND d.antenna IS NOT DISTINCT FROM i.antenna';
  await knex.raw(
    `UPDATE tag_inventory i SET counted_at = d.last_counted FROM (${parts}) d
      WHERE d.endpoint_id = i.endpoint_id AND d.epc = i.epc AND ${own}`,
  );
  await knex.raw(
    `UPDATE tag_inventory t SET counted_others = o.list FROM (
       SELECT i.endpoint_id, i.epc, json_agg(json_build_array(d.reader_id, d.antenna, d.last_counted))::text AS list
         FROM (${parts}) d JOIN tag_inventory i ON i.endpoint_id = d.endpoint_id AND i.epc = d.epc
        WHERE NOT (${own}) GROUP BY i.endpoint_id, i.epc) o
      WHERE t.endpoint_id = o.endpoint_id AND t.epc = o.epc`,
  );
}

/** `epc_uri_hash` of every inventory row, a chunk at a time in key order. */
async function hashUris(knex: Knex): Promise<void> {
  let after: [number, string] = [-1, ''];
  for (;;) {
    const rows = await knex('tag_inventory')
      .whereRaw('(endpoint_id, epc) > (?, ?)', after)
      .orderBy(['endpoint_id', 'epc'])
      .limit(CHUNK)
      .select<{ endpoint_id: number | string; epc: string; epc_uri: string }[]>('endpoint_id', 'epc', 'epc_uri');
    const last = rows[rows.length - 1];
    if (!last) return;
    after = [Number(last.endpoint_id), last.epc];
    await knex.raw(
      `WITH v (e, p, h) AS (VALUES ${rows.map(() => '(?, ?, ?)').join(', ')})
       UPDATE tag_inventory SET epc_uri_hash = CAST(v.h AS integer) FROM v
        WHERE tag_inventory.endpoint_id = CAST(v.e AS integer) AND tag_inventory.epc = v.p`,
      rows.flatMap((row) => [Number(row.endpoint_id), row.epc, uriHash(row.epc_uri)]),
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('tag_dedup', (t) => {
    t.integer('endpoint_id').notNullable();
    t.string('dedup_key', 400).notNullable();
    t.bigInteger('last_counted').notNullable();
    t.primary(['endpoint_id', 'dedup_key']);
  });
  await unfoldDedup(knex);
  await knex.raw('DROP INDEX tag_inventory_uri_hash_idx');
  await knex.raw('DROP INDEX tag_inventory_page_idx');
  await knex.schema.alterTable('tag_inventory', (t) => {
    t.dropColumn('epc_uri_hash');
    t.dropColumn('counted_others');
    t.dropColumn('counted_at');
  });
  await knex.raw(OLD_PAGE_INDEX);
  await knex.raw(URI_INDEX);
  await uncompressPayloads(knex);
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('payload_bytes');
  });
}

interface StoredCounted {
  endpoint_id: number | string;
  epc: string;
  reader_id: string;
  antenna: number | null;
  counted_at: number | string | null;
  counted_others: string | null;
}

/** The inventory rows' reference times back into `tag_dedup`, keyed as the gateway keyed them. */
async function unfoldDedup(knex: Knex): Promise<void> {
  let after: [number, string] = [-1, ''];
  for (;;) {
    const rows = await knex('tag_inventory')
      .where((q) => {
        void q.whereNotNull('counted_at').orWhereNotNull('counted_others');
      })
      .whereRaw('(endpoint_id, epc) > (?, ?)', after)
      .orderBy(['endpoint_id', 'epc'])
      .limit(CHUNK)
      .select<StoredCounted[]>('endpoint_id', 'epc', 'reader_id', 'antenna', 'counted_at', 'counted_others');
    const last = rows[rows.length - 1];
    if (!last) return;
    after = [Number(last.endpoint_id), last.epc];
    const dedup = rows.flatMap((row) => {
      const entries: [string, number | null, number][] = row.counted_others
        ? (JSON.parse(row.counted_others) as [string, number | null, number][])
        : [];
      if (row.counted_at !== null) entries.push([row.reader_id, row.antenna, Number(row.counted_at)]);
      return entries.map(([readerId, antenna, at]) => ({
        endpoint_id: Number(row.endpoint_id),
        dedup_key: JSON.stringify([row.epc, readerId, antenna]),
        last_counted: Number(at),
      }));
    });
    for (let start = 0; start < dedup.length; start += CHUNK)
      await knex('tag_dedup').insert(dedup.slice(start, start + CHUNK));
  }
}

/** Every compressed payload back to the text received (the column that tells goes next). */
async function uncompressPayloads(knex: Knex): Promise<void> {
  for (;;) {
    const rows = await knex('events')
      .whereNotNull('payload_bytes')
      .orderBy('id')
      .limit(CHUNK)
      .select<{ id: string; payload: string; payload_bytes: number | string }[]>('id', 'payload', 'payload_bytes');
    if (rows.length === 0) return;
    for (const row of rows) {
      const text = brotliDecompressSync(Buffer.from(row.payload, 'base64'), {
        maxOutputLength: Math.max(1, Number(row.payload_bytes)),
      }).toString('utf8');
      await knex('events').where('id', row.id).update({ payload: text, payload_bytes: null });
    }
  }
}

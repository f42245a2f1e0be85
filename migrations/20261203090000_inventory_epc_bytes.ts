import type { Knex } from 'knex';

// A migration stays as it was written: it imports no application code, which may change later.
const dialectOf = (knex: Knex): 'sqlite' | 'postgres' =>
  (knex.client as { config: { client?: unknown } }).config.client === 'pg' ? 'postgres' : 'sqlite';

/** `tag_inventory` on SQLite, as the migrations before this one left it but for the EPC's type. */
const sqliteTable = (name: string, epcType: string) =>
  `CREATE TABLE ${name} (endpoint_id integer not null, epc ${epcType} not null, epc_uri varchar(256) not null,
     tid varchar(128) null, reader_id varchar(200) not null, antenna integer null, rssi float null,
     first_seen bigint not null, last_seen bigint not null, read_count integer not null, counted_at bigint null,
     counted_others text null, epc_uri_hash integer null, primary key (endpoint_id, epc))`;

const COLUMNS =
  'endpoint_id, epc_uri, tid, reader_id, antenna, rssi, first_seen, last_seen, read_count, counted_at, ' +
  'counted_others, epc_uri_hash';

const URI_HASH_INDEX = 'CREATE INDEX tag_inventory_uri_hash_idx ON tag_inventory (endpoint_id, epc_uri_hash)';

/**
 * Bytes on disk per tag read, continued (issue 37.6; docs/decisions/0384-inventory-epc-as-bytes.md).
 *
 * - `tag_inventory.epc` holds the EPC's bytes (BLOB, PostgreSQL `bytea`) instead of its hex text:
 *   half the size in the row, the primary key and (PostgreSQL) the page index. Every EPC the
 *   gateway stores is whole bytes of upper-case hex, so the bytes give the text back exactly.
 * - SQLite's page index becomes (endpoint_id, last_seen): the snapshot sorts only the rows that
 *   share a `last_seen` by EPC. PostgreSQL keeps (endpoint_id, last_seen, epc).
 * SQLite cannot change a column's type: the table is copied (rowids kept), its indexes made again.
 */
/** SQLite: `tag_inventory` copied into one whose EPC column is `type` (each EPC through `convert`). */
async function retypeSqliteEpc(knex: Knex, type: string, convert: 'unhex' | 'hex', pageIndex: string): Promise<void> {
  await knex.raw(sqliteTable('tag_inventory_retyped', type));
  await knex.raw(
    `INSERT INTO tag_inventory_retyped (rowid, epc, ${COLUMNS}) SELECT rowid, ${convert}(epc), ${COLUMNS} FROM tag_inventory`,
  );
  await knex.raw('DROP TABLE tag_inventory');
  await knex.raw('ALTER TABLE tag_inventory_retyped RENAME TO tag_inventory');
  await knex.raw(`CREATE INDEX tag_inventory_page_idx ON tag_inventory (${pageIndex})`);
  await knex.raw(URI_HASH_INDEX);
}

export async function up(knex: Knex): Promise<void> {
  if (dialectOf(knex) === 'postgres') {
    await knex.raw(`ALTER TABLE tag_inventory ALTER COLUMN epc TYPE bytea USING decode(epc, 'hex')`);
    return;
  }
  await retypeSqliteEpc(knex, 'blob', 'unhex', 'endpoint_id, last_seen');
}

export async function down(knex: Knex): Promise<void> {
  if (dialectOf(knex) === 'postgres') {
    await knex.raw(`ALTER TABLE tag_inventory ALTER COLUMN epc TYPE varchar(128) USING upper(encode(epc, 'hex'))`);
    return;
  }
  await retypeSqliteEpc(knex, 'varchar(128)', 'hex', 'endpoint_id, last_seen, epc');
}

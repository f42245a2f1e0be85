import type { Knex } from 'knex';

/**
 * Where a long text given as bytes is put together (decision 0424): its pieces are written here,
 * one statement each, joined by the statement that stores the text, and deleted in the same
 * transaction, so the table is empty between transactions. `slot` names one text (a random id:
 * several writers may be at work on PostgreSQL). Not a TEMP table: SQLite's TEMP is kept in memory
 * here (`temp_store = MEMORY`), where 100 MiB of pieces would stay in the process for good. On
 * PostgreSQL it is UNLOGGED: the pieces never outlive their transaction, so they need no WAL.
 */
export async function up(knex: Knex): Promise<void> {
  const postgres = (knex.client as { config: { client?: unknown } }).config.client === 'pg';
  await knex.raw(
    `CREATE ${postgres ? 'UNLOGGED ' : ''}TABLE text_pieces (slot text NOT NULL, seq integer NOT NULL, ` +
      `piece ${postgres ? 'bytea' : 'blob'} NOT NULL, PRIMARY KEY (slot, seq))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE text_pieces');
}

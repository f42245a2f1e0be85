import type { Knex } from 'knex';

// A migration stays as it was written: it imports no application code, which may change later.
const dialectOf = (knex: Knex): 'sqlite' | 'postgres' =>
  (knex.client as { config: { client?: unknown } }).config.client === 'pg' ? 'postgres' : 'sqlite';

/**
 * Two changes to the inventory, both found by paging it on both databases.
 *
 * The snapshot pages by `last_seen DESC, epc ASC`. The (endpoint_id, last_seen) index gave the
 * first key only, so every page sorted each run of equal `last_seen` in a temporary B-tree (two
 * reads in one reader post share a timestamp). An index in exactly the page's order lets a page
 * stop after `limit` rows with no sort; it replaces the old one, which served nothing else.
 *
 * `rssi` was `real` on PostgreSQL (Knex's `float`): 4 bytes, about 7 digits, so an RSSI came back
 * different from what SQLite (8-byte REAL) gives back. It becomes `double precision`; existing
 * values go through their shortest text form, so a stored -55.37 stays -55.37.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX tag_inventory_page_idx ON tag_inventory (endpoint_id, last_seen DESC, epc)');
  await knex.schema.alterTable('tag_inventory', (t) => t.dropIndex(['endpoint_id', 'last_seen']));
  if (dialectOf(knex) === 'postgres')
    await knex.raw(
      'ALTER TABLE tag_inventory ALTER COLUMN rssi TYPE double precision USING rssi::text::double precision',
    );
}

export async function down(knex: Knex): Promise<void> {
  if (dialectOf(knex) === 'postgres') await knex.raw('ALTER TABLE tag_inventory ALTER COLUMN rssi TYPE real');
  await knex.schema.alterTable('tag_inventory', (t) => t.index(['endpoint_id', 'last_seen']));
  await knex.raw('DROP INDEX tag_inventory_page_idx');
}

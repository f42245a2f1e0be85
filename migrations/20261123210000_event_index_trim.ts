import type { Knex } from 'knex';

/**
 * Every ingested event pays for each index on `events` (on SQLite the five secondary indexes
 * were a large share of an acknowledgement flush; figures: docs/performance.md, P08;
 * record docs/decisions/0026-events-keeps-only-indexes-something-reads.md). Two paid without serving:
 * - `events_route_idx (route_name, received_at)`: the one route filter (admin inspector) compares
 *   `lower(route_name)`, which this index cannot serve; it pages by id instead. Dropped.
 * - `events_parent_idx (parent_id)`: NULL for every submission, set only on split EPCIS events.
 *   Now partial (`WHERE parent_id IS NOT NULL`): submissions no longer enter it, and the lookups
 *   (`parent_id IN (…)`, `IS NOT NULL`) still use it on both databases.
 * Same statements on SQLite and PostgreSQL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => t.dropIndex(['route_name', 'received_at'], 'events_route_idx'));
  await knex.schema.alterTable('events', (t) => t.dropIndex(['parent_id'], 'events_parent_idx'));
  await knex.raw('CREATE INDEX events_parent_idx ON events (parent_id) WHERE parent_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX events_parent_idx');
  await knex.schema.alterTable('events', (t) => t.index(['parent_id'], 'events_parent_idx'));
  await knex.schema.alterTable('events', (t) => t.index(['route_name', 'received_at'], 'events_route_idx'));
}

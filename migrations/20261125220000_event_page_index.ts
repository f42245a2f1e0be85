import type { Knex } from 'knex';

/**
 * The GET snapshots of stored events (AllData, CustomTrigger, EPCIS) page an endpoint's events of
 * one type newest first by id. `events_snapshot_idx (endpoint_id, event_type, received_at)` found
 * those events but not in that order, so every page sorted all of them: a cost that grew with the
 * data (figures: docs/performance.md, P21;
 * record docs/decisions/0035-snapshot-page-reads-index-in-page-order.md). The index now ends in `id`, so a page reads its rows in order and stops at the limit.
 * It replaces the old one rather than joining it: every ingested event pays for each index.
 * Same statements on SQLite and PostgreSQL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) =>
    t.dropIndex(['endpoint_id', 'event_type', 'received_at'], 'events_snapshot_idx'),
  );
  await knex.schema.alterTable('events', (t) => t.index(['endpoint_id', 'event_type', 'id'], 'events_page_idx'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => t.dropIndex(['endpoint_id', 'event_type', 'id'], 'events_page_idx'));
  await knex.schema.alterTable('events', (t) =>
    t.index(['endpoint_id', 'event_type', 'received_at'], 'events_snapshot_idx'),
  );
}

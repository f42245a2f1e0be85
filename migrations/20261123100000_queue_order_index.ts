import type { Knex } from 'knex';

/**
 * The worker claims the oldest due events (`ORDER BY id LIMIT n`). With only the
 * (status, next_attempt_at) index, every claim read and sorted the whole backlog, so a claim
 * after a burst took longer the more was queued, on the single connection every 202 also waits
 * for (figures: docs/performance.md, P06). A partial index of the queued ids
 * in id order lets the claim stop after n rows, and it stays small because events leave it once
 * final. It replaces the old index, which SQLite's
 * planner would otherwise keep choosing; counting the queue and finding the next retry read the
 * (small) partial index just as well. Same statements on SQLite and PostgreSQL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX events_queued_order_idx ON events (id) WHERE status = 'queued'`);
  await knex.schema.alterTable('events', (t) => t.dropIndex(['status', 'next_attempt_at'], 'events_queue_idx'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => t.index(['status', 'next_attempt_at'], 'events_queue_idx'));
  await knex.raw('DROP INDEX events_queued_order_idx');
}

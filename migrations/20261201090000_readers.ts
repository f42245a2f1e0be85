import type { Knex } from 'knex';

/**
 * Readers: fleet health (SPEC §16). One row per reader heard on a UHFTagRead route, kept from the
 * traffic itself; the counters are added to by upserts (`x = x + excluded.x`), so instances that
 * share one PostgreSQL database keep one record whose counts add up.
 *
 * - `readers`: the record; `name` and `silent_after_seconds` are the technician's, never written
 *   by the traffic. `health` and `last_status` are JSON text.
 * - `reader_antennas`: counters per antenna; `connected` null until a status message says.
 * - `reader_minutes`: counted reads per reader, antenna (-1: reads that named none) and minute of
 *   receive time; pruned after 24 h by the housekeeping.
 * - `reader_alarms`: error, warning and overflow events, newest 20 shown (older ones pruned).
 * - `reader_routes`: the routes a reader was heard on.
 * - `reader_unrouted_topics`: MQTT topics a client published to that no route takes (at most 10).
 * - `events.reader_id`: the reader named beside the payload (`?readerId=`, the MQTT client id), so
 *   a queued event is tracked under the same reader when the worker processes it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('readers', (t) => {
    t.text('reader_id').primary();
    t.string('name', 256).nullable();
    t.integer('silent_after_seconds').nullable();
    t.string('transport', 8).notNullable();
    t.string('last_source_ip', 64).notNullable();
    t.bigInteger('first_seen_at').notNullable();
    t.bigInteger('last_seen_at').notNullable();
    t.bigInteger('last_read_at').nullable();
    t.bigInteger('last_status_at').nullable();
    t.bigInteger('reads_total').notNullable().defaultTo(0);
    t.bigInteger('duplicates_suppressed_total').notNullable().defaultTo(0);
    t.text('health').nullable();
    t.text('last_status').nullable();
    t.index(['last_seen_at'], 'readers_last_seen_index');
  });
  await knex.schema.createTable('reader_antennas', (t) => {
    t.text('reader_id').notNullable().references('reader_id').inTable('readers').onDelete('CASCADE');
    t.integer('antenna').notNullable();
    t.boolean('connected').nullable();
    t.bigInteger('reads_total').notNullable().defaultTo(0);
    t.bigInteger('last_read_at').nullable();
    t.double('last_rssi').nullable();
    t.primary(['reader_id', 'antenna']);
  });
  await knex.schema.createTable('reader_minutes', (t) => {
    t.text('reader_id').notNullable().references('reader_id').inTable('readers').onDelete('CASCADE');
    // Minutes since the epoch (receive time).
    t.integer('minute').notNullable();
    t.integer('antenna').notNullable();
    t.bigInteger('reads').notNullable();
    t.primary(['reader_id', 'minute', 'antenna']);
    t.index(['minute'], 'reader_minutes_minute_index');
  });
  await knex.schema.createTable('reader_alarms', (t) => {
    t.bigIncrements('id').primary();
    t.text('reader_id').notNullable().references('reader_id').inTable('readers').onDelete('CASCADE');
    t.string('code', 32).notNullable();
    t.text('message').notNullable();
    t.bigInteger('at').notNullable();
    t.bigInteger('events_purged').nullable();
    t.index(['reader_id', 'at'], 'reader_alarms_reader_at_index');
  });
  await knex.schema.createTable('reader_routes', (t) => {
    t.text('reader_id').notNullable().references('reader_id').inTable('readers').onDelete('CASCADE');
    t.string('route_name', 64).notNullable();
    t.primary(['reader_id', 'route_name']);
  });
  await knex.schema.createTable('reader_unrouted_topics', (t) => {
    t.text('reader_id').notNullable();
    t.text('topic').notNullable();
    t.bigInteger('at').notNullable();
    t.primary(['reader_id', 'topic']);
  });
  await knex.schema.alterTable('events', (t) => {
    t.text('reader_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('reader_id');
  });
  for (const table of [
    'reader_unrouted_topics',
    'reader_routes',
    'reader_alarms',
    'reader_minutes',
    'reader_antennas',
    'readers',
  ]) {
    await knex.schema.dropTable(table);
  }
}

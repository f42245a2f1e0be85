import type { Knex } from 'knex';

/**
 * What the data plane stores: every submission (and, for EpcisObject, every split EPCIS event)
 * as an `events` row, the idempotency keys, and the per-event-type snapshot tables that the GET
 * routes read (tag inventory + dedup state, GhostData rows, filter facets).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('events', (t) => {
    // Sortable ids (time-ordered), so "newest first" paging is an index scan on the key.
    t.string('id', 32).primary();
    t.string('parent_id', 32).nullable();
    t.integer('route_id').nullable();
    // Names, not ids: an event keeps saying where it came from after its route is renamed or deleted.
    t.string('route_name', 64).notNullable();
    t.integer('endpoint_id').notNullable();
    t.string('endpoint_name', 64).notNullable();
    t.string('event_type', 32).notNullable();
    t.string('status', 16).notNullable();
    t.bigInteger('received_at').notNullable();
    t.bigInteger('processed_at').nullable();
    t.string('principal', 200).notNullable();
    t.string('source_ip', 64).notNullable();
    t.string('request_id', 128).notNullable();
    t.text('payload').notNullable();
    // Normalized form for snapshots (trigger, EPCIS event or document); null when the payload is it.
    t.text('data').nullable();
    t.text('result').nullable();
    t.text('errors').nullable();
    // Lenient-mode corrections (EPCIS), answered beside the result.
    t.text('warnings').nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('next_attempt_at').notNullable().defaultTo(0);
    // Worker lease, so several instances on one database never process an event twice.
    t.string('lease_owner', 64).nullable();
    t.bigInteger('lease_until').nullable();
    t.index(['status', 'next_attempt_at'], 'events_queue_idx');
    t.index(['endpoint_id', 'event_type', 'received_at'], 'events_snapshot_idx');
    t.index(['route_name', 'received_at'], 'events_route_idx');
    t.index(['received_at'], 'events_received_idx');
    t.index(['parent_id'], 'events_parent_idx');
  });

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.increments('id').primary();
    t.integer('route_id').notNullable();
    t.string('principal', 200).notNullable();
    t.string('idempotency_key', 255).notNullable();
    t.string('body_hash', 64).notNullable();
    t.integer('status_code').notNullable();
    t.text('response_body').notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['route_id', 'principal', 'idempotency_key'], { indexName: 'idempotency_unique_idx' });
    t.index(['created_at']);
  });

  await knex.schema.createTable('tag_inventory', (t) => {
    t.integer('endpoint_id').notNullable();
    t.string('epc', 128).notNullable();
    t.string('epc_uri', 256).notNullable();
    t.string('tid', 128).nullable();
    t.string('reader_id', 200).notNullable();
    t.integer('antenna').nullable();
    t.float('rssi').nullable();
    t.bigInteger('first_seen').notNullable();
    t.bigInteger('last_seen').notNullable();
    t.integer('read_count').notNullable();
    t.primary(['endpoint_id', 'epc']);
    t.index(['endpoint_id', 'last_seen']);
    t.index(['endpoint_id', 'epc_uri']);
  });

  await knex.schema.createTable('tag_dedup', (t) => {
    t.integer('endpoint_id').notNullable();
    t.string('dedup_key', 400).notNullable();
    t.bigInteger('last_counted').notNullable();
    t.primary(['endpoint_id', 'dedup_key']);
  });

  await knex.schema.createTable('ghost_rows', (t) => {
    t.increments('id').primary();
    t.string('event_id', 32).notNullable();
    t.integer('endpoint_id').notNullable();
    t.string('table_name', 128).notNullable();
    t.text('row').notNullable();
    t.bigInteger('received_at').notNullable();
    t.index(['endpoint_id', 'received_at']);
    t.index(['endpoint_id', 'table_name', 'received_at']);
    t.index(['event_id']);
  });

  await knex.schema.createTable('event_facets', (t) => {
    t.string('event_id', 32).notNullable();
    t.integer('endpoint_id').notNullable();
    t.string('name', 32).notNullable();
    t.string('value', 512).nullable();
    t.bigInteger('num').nullable();
    t.index(['endpoint_id', 'name', 'value']);
    t.index(['event_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['event_facets', 'ghost_rows', 'tag_dedup', 'tag_inventory', 'idempotency_keys', 'events']) {
    await knex.schema.dropTableIfExists(table);
  }
}

import type { Knex } from 'knex';

/**
 * Store and forward (SPEC §11): the destinations, which routes feed them, and each
 * destination's outbox.
 *
 * `outbox_items` holds one row per delivery item, written in the same transaction as the
 * outcome of the event it comes from; `seq` (an auto-increment) is the order the items are sent
 * in. Items are cut into `delivery_batches`, batches per destination sent one at a time (a few cut ahead while one is in flight, decision 0391); a batch
 * keeps its uuid and its items for every retry, so a receiver sees the same Idempotency-Key and
 * body again. A delivered batch and its items are deleted; a dead-lettered one stays until it is
 * retried or discarded. `delivery_leases` lets one PostgreSQL instance at a time send a
 * destination's batches.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('destinations', (t) => {
    t.increments('id').primary();
    t.string('name', 64).notNullable();
    t.string('name_key', 64).notNullable().unique();
    t.string('kind', 16).notNullable().defaultTo('http');
    t.text('url').notNullable();
    // JSON object of header name → value.
    t.text('headers').notNullable().defaultTo('{}');
    t.string('auth_type', 16).notNullable().defaultTo('none');
    t.string('auth_username', 256).nullable();
    // The Basic password, the bearer token or the HMAC secret: the gateway must send it, so it
    // cannot be a one-way hash. Never answered by the API, encrypted inside backups.
    t.text('auth_secret').nullable();
    t.integer('timeout_ms').notNullable();
    t.integer('batch_max_events').notNullable();
    t.integer('batch_max_wait_ms').notNullable();
    t.integer('max_retry_age_seconds').notNullable();
    t.boolean('tls_verify').notNullable().defaultTo(true);
    t.text('ca_certificate_pem').nullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('route_destinations', (t) => {
    t.integer('route_id').notNullable().references('id').inTable('routes').onDelete('CASCADE');
    // RESTRICT: the service answers 409 destination_in_use before a delete could get here.
    t.integer('destination_id').notNullable().references('id').inTable('destinations').onDelete('RESTRICT');
    t.primary(['route_id', 'destination_id']);
    t.index(['destination_id']);
  });

  await knex.schema.createTable('outbox_items', (t) => {
    t.bigIncrements('seq').primary();
    t.integer('destination_id').notNullable().references('id').inTable('destinations').onDelete('CASCADE');
    // `<eventId>:<n>`: the same for every retry of the item.
    t.string('item_id', 96).notNullable();
    t.string('event_id', 64).notNullable();
    t.string('route_name', 64).notNullable();
    t.string('endpoint_name', 64).notNullable();
    t.string('event_type', 32).notNullable();
    t.bigInteger('received_at').notNullable();
    t.bigInteger('processed_at').notNullable();
    t.text('data').notNullable();
    // The batch's uuid once the item was cut into one; null while it waits.
    t.string('batch_id', 36).nullable();
    t.boolean('dead').notNullable().defaultTo(false);
    // The next batch: the destination's first items not yet in one, in `seq` order.
    t.index(['destination_id', 'batch_id', 'seq']);
    // The backlog and its oldest item: the destination's items that are not dead letters.
    t.index(['destination_id', 'dead', 'seq']);
    t.index(['batch_id']);
  });

  await knex.schema.createTable('delivery_batches', (t) => {
    t.increments('id').primary();
    t.string('batch_id', 36).notNullable().unique();
    t.integer('destination_id').notNullable().references('id').inTable('destinations').onDelete('CASCADE');
    // 'open' (to be sent) or 'dead' (dead-lettered).
    t.string('state', 8).notNullable();
    // 0 for batches a technician sent back to the head of the outbox, 1 otherwise.
    t.integer('rank').notNullable().defaultTo(1);
    t.bigInteger('first_seq').notNullable();
    t.integer('item_count').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('first_attempt_at').nullable();
    t.bigInteger('next_attempt_at').notNullable().defaultTo(0);
    t.bigInteger('last_attempt_at').nullable();
    t.integer('last_status').nullable();
    t.text('last_error').nullable();
    t.bigInteger('failed_at').nullable();
    t.string('reason', 32).nullable();
    t.index(['destination_id', 'state', 'rank', 'first_seq']);
  });

  await knex.schema.createTable('delivery_leases', (t) => {
    t.integer('destination_id').primary().references('id').inTable('destinations').onDelete('CASCADE');
    t.string('owner', 64).notNullable();
    t.bigInteger('lease_until').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('delivery_leases');
  await knex.schema.dropTable('delivery_batches');
  await knex.schema.dropTable('outbox_items');
  await knex.schema.dropTable('route_destinations');
  await knex.schema.dropTable('destinations');
}

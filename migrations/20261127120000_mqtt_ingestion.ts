import type { Knex } from 'knex';

/**
 * MQTT ingestion (SPEC §15): an event keeps what carried it (`transport`, `topic`; HTTP events are
 * `http` and null), and a route may name the MQTT topic filter its messages arrive on. Two routes
 * may not share a filter: a unique index (NULLs never collide on either database). Same statements
 * on SQLite and PostgreSQL.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.string('transport', 8).notNullable().defaultTo('http');
    t.text('topic').nullable();
  });
  await knex.schema.alterTable('routes', (t) => {
    t.string('mqtt_topic', 256).nullable();
    t.unique(['mqtt_topic'], { indexName: 'routes_mqtt_topic_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('routes', (t) => {
    t.dropUnique(['mqtt_topic'], 'routes_mqtt_topic_unique');
    t.dropColumn('mqtt_topic');
  });
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('topic');
    t.dropColumn('transport');
  });
}

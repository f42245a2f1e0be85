import type { Knex } from 'knex';

/**
 * The configuration resources of SPEC §3. Names that must be unique case-insensitively carry a
 * lower-cased shadow column with a unique index: portable across SQLite and PostgreSQL, and the
 * index answers the hot-path lookups (route by base+name, username, token hash) directly.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('roles', (t) => {
    t.increments('id').primary();
    t.string('name', 64).notNullable();
    t.string('name_key', 64).notNullable().unique();
    t.string('description', 1024).notNullable().defaultTo('');
    t.boolean('built_in').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('endpoints', (t) => {
    t.increments('id').primary();
    t.string('name', 64).notNullable();
    t.string('name_key', 64).notNullable().unique();
    t.string('base_route_path', 64).notNullable();
    t.string('base_route_path_key', 64).notNullable().unique();
    t.boolean('active').notNullable().defaultTo(true);
  });

  await knex.schema.createTable('routes', (t) => {
    t.increments('id').primary();
    t.integer('endpoint_id').notNullable().references('id').inTable('endpoints').onDelete('CASCADE');
    t.integer('position').notNullable().defaultTo(0);
    t.string('name', 64).notNullable();
    // Route names are unique across the whole client, whatever the endpoint (SPEC §3).
    t.string('name_key', 64).notNullable().unique();
    t.string('event_type', 32).notNullable();
    t.string('request_type', 16).notNullable();
    t.string('auth_type', 16).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.boolean('async').notNullable().defaultTo(false);
    t.boolean('epcis_lenient').notNullable().defaultTo(false);
    t.index(['endpoint_id']);
  });

  await knex.schema.createTable('route_roles', (t) => {
    t.integer('route_id').notNullable().references('id').inTable('routes').onDelete('CASCADE');
    // RESTRICT: a role in use cannot vanish under a route; the service answers 409 role_in_use first.
    t.integer('role_id').notNullable().references('id').inTable('roles').onDelete('RESTRICT');
    t.primary(['route_id', 'role_id']);
    t.index(['role_id']);
  });

  await knex.schema.createTable('users', (t) => {
    t.increments('id').primary();
    t.string('username', 64).notNullable();
    t.string('username_key', 64).notNullable().unique();
    t.string('display_name', 128).notNullable().defaultTo('');
    t.string('password_hash', 128).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('user_roles', (t) => {
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.integer('role_id').notNullable().references('id').inTable('roles').onDelete('RESTRICT');
    t.primary(['user_id', 'role_id']);
    t.index(['role_id']);
  });

  await knex.schema.createTable('external_users', (t) => {
    t.increments('id').primary();
    t.string('first_name', 128).notNullable().defaultTo('');
    t.string('last_name', 128).notNullable().defaultTo('');
    t.string('username', 64).notNullable();
    t.string('username_key', 64).notNullable().unique();
    t.string('password_hash', 128).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
  });

  await knex.schema.createTable('external_user_routes', (t) => {
    t.integer('external_user_id').notNullable().references('id').inTable('external_users').onDelete('CASCADE');
    t.integer('route_id').notNullable().references('id').inTable('routes').onDelete('CASCADE');
    t.primary(['external_user_id', 'route_id']);
    t.index(['route_id']);
  });

  await knex.schema.createTable('access_tokens', (t) => {
    t.increments('id').primary();
    t.string('name', 128).notNullable();
    t.string('name_key', 128).notNullable().unique();
    t.integer('role_id').notNullable().references('id').inTable('roles').onDelete('RESTRICT');
    t.string('expiry_date', 10).notNullable();
    t.string('description', 1024).notNullable().defaultTo('');
    // SHA-256 hex of the token value; the value itself is never stored.
    t.string('token_hash', 64).notNullable().unique();
    t.bigInteger('created_at').notNullable();
    t.index(['role_id']);
  });

  await knex.schema.createTable('bearer_tokens', (t) => {
    t.increments('id').primary();
    t.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('token_hash', 64).notNullable().unique();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['user_id']);
    t.index(['expires_at']);
  });

  await knex.schema.createTable('settings', (t) => {
    t.string('key', 64).primary();
    t.text('value').notNullable();
  });

  // Bumped on every configuration change: other instances on the same database poll it as a
  // safety net behind LISTEN/NOTIFY.
  await knex.schema.createTable('config_version', (t) => {
    t.integer('id').primary();
    t.bigInteger('version').notNullable();
  });
  await knex('config_version').insert({ id: 1, version: 0 });

  await knex.schema.createTable('audit_log', (t) => {
    t.increments('id').primary();
    t.bigInteger('at').notNullable();
    t.string('actor', 128).notNullable();
    t.string('action', 32).notNullable();
    t.string('resource', 32).notNullable();
    t.integer('resource_id').nullable();
    t.string('summary', 1024).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'audit_log',
    'config_version',
    'settings',
    'bearer_tokens',
    'access_tokens',
    'external_user_routes',
    'external_users',
    'user_roles',
    'users',
    'route_roles',
    'routes',
    'endpoints',
    'roles',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}

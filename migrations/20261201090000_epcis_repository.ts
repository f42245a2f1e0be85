import type { Knex } from 'knex';

/**
 * The EPCIS 2.0 repository (SPEC §17): one index row per stored EPCIS event (an EpcisObject
 * child event) with a column per query parameter, and one row per EPC the event names with the
 * role it plays there, so every query of §17 starts from an index. `seq` numbers the index rows
 * in the order they were written: a page token pins its result set to the `seq` of its first
 * page. A queued submission made through `R/capture` keeps its capture error behaviour
 * (`rollback` | `proceed`) in `events.capture`; NULL for every other submission.
 */
export async function up(knex: Knex): Promise<void> {
  const postgres = (knex.client as { config: { client?: unknown } }).config.client === 'pg';
  // Byte order on PostgreSQL as on SQLite: an `urn:epc:idpat:` pattern is answered as a range
  // of the EPC index (prefix ≤ epc < prefix+1), which holds only under binary collation.
  const uriColumn = (t: Knex.CreateTableBuilder, name: string) =>
    postgres ? t.specificType(name, 'varchar(512) COLLATE "C"') : t.string(name, 512);

  await knex.schema.createTable('epcis_events', (t) => {
    t.bigIncrements('seq').primary();
    t.string('event_id', 32).notNullable().unique({ indexName: 'epcis_events_event_id_unique' });
    t.integer('endpoint_id').notNullable();
    uriColumn(t, 'epcis_event_id').notNullable();
    t.string('type', 32).notNullable();
    t.string('action', 8).nullable();
    t.bigInteger('event_time').notNullable();
    t.bigInteger('record_time').notNullable();
    uriColumn(t, 'biz_step').nullable();
    uriColumn(t, 'disposition').nullable();
    uriColumn(t, 'read_point').nullable();
    uriColumn(t, 'biz_location').nullable();
    t.index(['endpoint_id', 'record_time', 'seq'], 'epcis_events_record_idx');
    t.index(['endpoint_id', 'event_time', 'seq'], 'epcis_events_time_idx');
    t.index(['endpoint_id', 'epcis_event_id'], 'epcis_events_eventid_idx');
    t.index(['endpoint_id', 'type', 'record_time', 'seq'], 'epcis_events_type_idx');
    t.index(['endpoint_id', 'action', 'record_time', 'seq'], 'epcis_events_action_idx');
    t.index(['endpoint_id', 'biz_step', 'record_time', 'seq'], 'epcis_events_bizstep_idx');
    t.index(['endpoint_id', 'disposition', 'record_time', 'seq'], 'epcis_events_disposition_idx');
    t.index(['endpoint_id', 'read_point', 'record_time', 'seq'], 'epcis_events_readpoint_idx');
    t.index(['endpoint_id', 'biz_location', 'record_time', 'seq'], 'epcis_events_bizlocation_idx');
  });

  await knex.schema.createTable('epcis_epcs', (t) => {
    t.string('event_id', 32).notNullable();
    t.integer('endpoint_id').notNullable();
    uriColumn(t, 'epc').notNullable();
    t.string('role', 20).notNullable();
    // Covering: a MATCH_* parameter reads the matching event ids from the index alone.
    t.index(['endpoint_id', 'epc', 'role', 'event_id'], 'epcis_epcs_match_idx');
    t.index(['event_id'], 'epcis_epcs_event_idx');
  });

  await knex.schema.alterTable('events', (t) => {
    t.string('capture', 8).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropColumn('capture');
  });
  await knex.schema.dropTableIfExists('epcis_epcs');
  await knex.schema.dropTableIfExists('epcis_events');
}

import type { Knex } from 'knex';

/**
 * The EPCIS query (SPEC §17) pages in record time order by default, and a range on event time
 * (`GE_eventTime`) is not a range of any index in that order: the bizStep index was walked from the
 * endpoint's oldest event, testing each one, until the range began. An event's lead, its event
 * time minus its record time, bounds one time by the other: with every lead of the endpoint in
 * [min, max], `event_time >= t` implies `record_time >= t - max`, a range the index in record time
 * order starts from. This index answers the endpoint's min and max lead with one index probe
 * each, as of the statement's own snapshot. Same statement on SQLite and PostgreSQL (an index on
 * an expression).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX epcis_events_lead_idx ON epcis_events (endpoint_id, (event_time - record_time))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX epcis_events_lead_idx');
}

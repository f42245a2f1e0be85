import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadObjectEvents } from '../../bench/epcis-store';
import { createDb, type Db } from '../../server/db';
import { epcisIndexRepo, type EpcisIndexQuery } from '../../server/repositories/epcis-index.repo';
import { firstStatementPlan, firstStatementPlanPostgres } from '../helpers/query-plan';
import { testDatabase } from '../helpers/test-gateway';

const POSTGRES = process.env.GATEWAY_TEST_DATABASE === 'postgres';

let dir: string;
let db: Db;

const base: EpcisIndexQuery = {
  endpointId: 1,
  pin: Number.MAX_SAFE_INTEGER,
  matches: [],
  orderBy: 'recordTime',
  direction: 'asc',
  limit: 101,
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-epcis-plan-'));
  db = await createDb(await testDatabase(dir));
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** SPEC §17: the main queries start from an index, never from a read of every stored event. */
describe.skipIf(POSTGRES)('EPCIS query plans (SQLite)', () => {
  const planOf = async (query: EpcisIndexQuery) =>
    (await firstStatementPlan(db.knex, () => epcisIndexRepo.page(db.knex, query))).plan;

  it('answers MATCH_epc from the EPC index and each event by its id', async () => {
    const plan = await planOf({
      ...base,
      matches: [{ roles: ['epcList', 'childEPCs'], values: [{ exact: 'urn:epc:id:sgtin:0614141.107346.1' }] }],
    });
    expect(plan).toMatch(
      /epcis_epcs USING COVERING INDEX epcis_epcs_match_idx \(endpoint_id=\? AND epc=\? AND role=\?\)/,
    );
    // Each matching event is looked up by id: the endpoint's events are never walked.
    expect(plan).toMatch(/SEARCH x USING INDEX epcis_events_event_id_unique \(event_id=\?/);
    expect(plan).not.toMatch(/epcis_events_record_idx|SCAN x\b/);
  });

  it('answers an urn:epc:idpat: pattern as a range of the EPC index', async () => {
    const plan = await planOf({
      ...base,
      matches: [{ roles: ['epcList'], values: [{ prefix: 'urn:epc:id:sgtin:0614141.107346.' }] }],
    });
    expect(plan).toMatch(/epcis_epcs_match_idx \(endpoint_id=\? AND epc>\? AND epc<\?\)/);
  });

  it('answers EQ_bizStep with a time range and paging from the bizStep index, in its order', async () => {
    const plan = await planOf({
      ...base,
      bizSteps: ['shipping'],
      eventTime: { ge: 1_700_000_000_000 },
      after: { time: 1_700_000_000_000, seq: 10 },
    });
    // The next page starts at the token's sort key inside the index, not by skipping earlier pages.
    expect(plan).toMatch(
      /SEARCH x USING INDEX epcis_events_bizstep_idx \(endpoint_id=\? AND biz_step=\? AND record_time>\?\)/,
    );
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it('answers EQ_eventID from the eventID index', async () => {
    const plan = await planOf({ ...base, eventIds: ['urn:uuid:1'] });
    expect(plan).toMatch(/epcis_events_eventid_idx \(endpoint_id=\? AND epcis_event_id=\?/);
  });

  it('answers a time range in event time order from the event time index', async () => {
    const plan = await planOf({ ...base, orderBy: 'eventTime', eventTime: { ge: 1, lt: 2 } });
    expect(plan).toMatch(
      /SEARCH x USING INDEX epcis_events_time_idx \(endpoint_id=\? AND event_time>\? AND event_time<\?\)/,
    );
    expect(plan).not.toContain('TEMP B-TREE');
  });
});

/**
 * PostgreSQL plans from statistics: on a loaded, analysed store (two endpoints of 20,000 events)
 * the same queries start from the same indexes, and no EPCIS table, nor `events`, is read whole.
 */
describe.skipIf(!POSTGRES)('EPCIS query plans (PostgreSQL)', () => {
  const planOf = (query: EpcisIndexQuery) =>
    firstStatementPlanPostgres(db.knex, () => epcisIndexRepo.page(db.knex, query));
  const noFullReads = (plan: string) => expect(plan).not.toMatch(/Seq Scan on (epcis_events|epcis_epcs|events)\b/);

  beforeAll(async () => {
    await loadObjectEvents(db.knex, { endpointId: 1, count: 20_000 });
    // The other endpoint's ids must not collide: its events come after the first one's.
    await db.knex.raw(`UPDATE events SET id = 'x' || id WHERE endpoint_id = 1`);
    await db.knex.raw(`UPDATE epcis_events SET event_id = 'x' || event_id`);
    await db.knex.raw(`UPDATE epcis_epcs SET event_id = 'x' || event_id`);
    await loadObjectEvents(db.knex, { endpointId: 2, count: 20_000 });
    await db.knex.raw('ANALYZE events, epcis_events, epcis_epcs');
  }, 120_000);

  it('answers MATCH_epc from the EPC index alone and each event by its id', async () => {
    const plan = await planOf({
      ...base,
      matches: [{ roles: ['epcList', 'childEPCs'], values: [{ exact: 'urn:epc:id:sgtin:0614141.107346.17' }] }],
    });
    expect(plan).toMatch(/Index Only Scan using epcis_epcs_match_idx on epcis_epcs/);
    noFullReads(plan);
  });

  it('answers an urn:epc:idpat: pattern as a range of the EPC index', async () => {
    const plan = await planOf({
      ...base,
      matches: [{ roles: ['epcList'], values: [{ prefix: 'urn:epc:id:sgtin:0614141.107346.1234' }] }],
    });
    expect(plan).toMatch(/epcis_epcs_match_idx on epcis_epcs/);
    noFullReads(plan);
  });

  it('answers EQ_bizStep with paging from the bizStep index, in its order', async () => {
    const plan = await planOf({ ...base, bizSteps: ['shipping'], after: { time: 1_767_225_600_000, seq: 10 } });
    expect(plan).toMatch(/Index Scan using epcis_events_bizstep_idx on epcis_events x/);
    expect(plan).not.toMatch(/\bSort\b/);
    noFullReads(plan);
  });

  it('answers EQ_eventID from the eventID index', async () => {
    const plan = await planOf({ ...base, eventIds: ['urn:uuid:bench-17'] });
    expect(plan).toMatch(/epcis_events_eventid_idx on epcis_events x/);
    noFullReads(plan);
  });

  it('answers a time range in event time order from the event time index', async () => {
    const from = Date.parse('2026-01-01T00:00:00Z');
    const plan = await planOf({
      ...base,
      orderBy: 'eventTime',
      eventTime: { ge: from + 5_000_000, lt: from + 6_000_000 },
    });
    expect(plan).toMatch(/epcis_events_time_idx on epcis_events x/);
    noFullReads(plan);
  });
});

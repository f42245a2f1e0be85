import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { epcisIndexRepo, type EpcisIndexQuery } from '../../server/repositories/epcis-index.repo';
import { firstStatementPlan } from '../helpers/query-plan';

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
  db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') });
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** SPEC §17: the main queries start from an index, never from a read of every stored event. */
describe('EPCIS query plans (SQLite)', () => {
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

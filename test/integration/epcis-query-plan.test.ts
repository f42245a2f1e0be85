import { beforeAll, describe, expect, it } from 'vitest';
import { loadObjectEvents } from '../../bench/epcis-store';
import type pg from 'pg';
import type { Db } from '../../server/db';
import { withRawConnection } from '../../server/db/sqlite-exec';
import { epcisIndexRepo, type EpcisIndexQuery } from '../../server/repositories/epcis-index.repo';
import { statementPlan, statementPlanPostgres } from '../helpers/query-plan';
import { useTestDatabase } from '../helpers/test-gateway';

const POSTGRES = process.env.GATEWAY_TEST_DATABASE === 'postgres';

let db: Db;

const base: EpcisIndexQuery = {
  endpointId: 1,
  pin: Number.MAX_SAFE_INTEGER,
  matches: [],
  orderBy: 'recordTime',
  direction: 'asc',
  limit: 101,
};

useTestDatabase('gateway-epcis-plan-', (opened) => (db = opened));

const FIRST_EVENT_TIME = Date.parse('2026-01-01T00:00:00Z');

/** The bench's two queries (bench/epcis.ts), first pages as a client sends them: no pin yet. */
const benchMatchEpc: EpcisIndexQuery = {
  ...base,
  pin: undefined,
  limit: 31,
  matches: [{ roles: ['epcList', 'childEPCs'], values: [{ exact: 'urn:epc:id:sgtin:0614141.107346.17' }] }],
};
const benchBizStep: EpcisIndexQuery = {
  ...base,
  pin: undefined,
  bizSteps: ['shipping'],
  eventTime: { ge: FIRST_EVENT_TIME + 18_000_000 },
};

/** SPEC §17: the main queries start from an index, never from a read of every stored event. */
describe.skipIf(POSTGRES)('EPCIS query plans (SQLite)', () => {
  // The statement as sent: the page's SELECT inside one that hands its rows over as one text,
  // whose `group_concat(… ORDER BY …)` sorts the page's rows alone (TEMP B-TREE FOR group_concat).
  const planOf = (query: EpcisIndexQuery) => statementPlan(db.knex, epcisIndexRepo.pageStatement(db.knex, query));

  it('answers the bench’s MATCH_epc from the EPC index, each event by its id, and pins by the key', async () => {
    const plan = await planOf(benchMatchEpc);
    expect(plan).toMatch(
      /SEARCH epcis_epcs USING COVERING INDEX epcis_epcs_match_idx \(endpoint_id=\? AND epc=\? AND role=\?\)/,
    );
    expect(plan).toMatch(/SEARCH x USING INDEX epcis_events_event_id_unique \(event_id=\?\)/);
    expect(plan).toMatch(/SEARCH e USING INDEX sqlite_autoindex_events_1 \(id=\?\)/);
    // The first page's pin (max(seq)) comes from the key, not from a read of the table.
    expect(plan).not.toMatch(/SCAN (x|e|epcis_events|epcis_epcs)\b/);
  });

  it('starts the bench’s EQ_bizStep&GE_eventTime where event time allows, from the bizStep and lead indexes', async () => {
    const plan = await planOf(benchBizStep);
    // Paged in record time order, the walk starts at the record time the event time range implies
    // (the endpoint's largest lead, one probe of the lead index), not at the endpoint's first event.
    expect(plan).toMatch(
      /SEARCH x USING INDEX epcis_events_bizstep_idx \(endpoint_id=\? AND biz_step=\? AND record_time>\?\)/,
    );
    expect(plan).toMatch(/SEARCH l USING COVERING INDEX epcis_events_lead_idx \(endpoint_id=\?\)/);
    expect(plan).not.toContain('TEMP B-TREE FOR ORDER BY');
    expect(plan).not.toMatch(/SCAN (x|e|l|epcis_events|epcis_epcs)\b/);
  });

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
    expect(plan).not.toContain('TEMP B-TREE FOR ORDER BY');
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
    expect(plan).not.toContain('TEMP B-TREE FOR ORDER BY');
  });
});

/**
 * PostgreSQL plans from statistics: on a loaded, analysed store (two endpoints of 20,000 events)
 * the same queries start from the same indexes, and no EPCIS table, nor `events`, is read whole.
 */
describe.skipIf(!POSTGRES)('EPCIS query plans (PostgreSQL)', () => {
  const planOf = (query: EpcisIndexQuery) =>
    statementPlanPostgres(db.knex, epcisIndexRepo.pageStatement(db.knex, query));
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

  it('answers the bench’s MATCH_epc from the EPC index alone and each event by its id', async () => {
    const plan = await planOf(benchMatchEpc);
    expect(plan).toMatch(/Index Only Scan using epcis_epcs_match_idx on epcis_epcs/);
    expect(plan).toMatch(/Index Scan using epcis_events_event_id_unique on epcis_events x/);
    noFullReads(plan);
  });

  it('starts the bench’s EQ_bizStep&GE_eventTime where event time allows, from the bizStep and lead indexes', async () => {
    const plan = await planOf(benchBizStep);
    // The walk starts at the record time the event time range implies (see the SQLite case).
    expect(plan).toMatch(
      /Index Scan using epcis_events_bizstep_idx on epcis_events x .*\n\s+Index Cond: .*record_time >=/,
    );
    expect(plan).toMatch(/Index (Only )?Scan (Backward )?using epcis_events_lead_idx on epcis_events l/);
    expect(plan).not.toMatch(/\bSort\b/);
    noFullReads(plan);
  });

  it('runs the bench’s pages from one kept generic plan, not planned again on each request', async () => {
    // A kept statement is planned for its values five times, then from a generic plan when that
    // is no costlier. With the limit a bound value the generic plan expected to fetch a tenth of
    // the matches: on a large store (or with a small perPage here) never the cheaper, so every
    // request was planned again, at more CPU than running it took.
    for (const [index, query] of [benchBizStep, benchMatchEpc, { ...benchBizStep, limit: 2 }].entries()) {
      const { sql, bindings } = epcisIndexRepo.pageStatement(db.knex, query);
      const name = `plan_probe_${index}`;
      const plans = await withRawConnection(db.knex, async (client: pg.Client) => {
        for (let run = 0; run < 8; run++) await client.query({ name, text: sql, values: bindings as unknown[] });
        const { rows } = await client.query<{ generic_plans: string }>(
          'SELECT generic_plans FROM pg_prepared_statements WHERE name = $1',
          [name],
        );
        await client.query(`DEALLOCATE ${name}`);
        return rows[0];
      });
      expect(Number(plans?.generic_plans), sql).toBe(3);
    }
  });

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

/**
 * The range a query on one time implies for the other (through the endpoint's smallest and largest
 * lead, event time minus record time) only lets the index start later: answers are those of the
 * query's own conditions, whatever the leads. Events recorded in order, dated from long before to
 * long after that, are queried in both orders and directions with ranges on either time.
 */
describe('EPCIS time ranges through the leads', () => {
  const ENDPOINT = 7;
  const COUNT = 240;
  const RECORDED = 1_800_000_000_000;
  // Deterministic spread: leads from about -12 days to +12 days, not monotonic in record time.
  const lead = (i: number) => (((i * 7_919) % 241) - 120) * 8_640_000;
  const events = Array.from({ length: COUNT }, (_, k) => {
    const i = k + 1;
    const recordTime = RECORDED + i * 1_000;
    return { i, recordTime, eventTime: recordTime + lead(i), bizStep: i % 3 === 0 ? 'shipping' : 'receiving' };
  });

  beforeAll(async () => {
    for (const e of events) {
      const id = `lead${String(e.i).padStart(6, '0')}`;
      await db.knex('events').insert({
        id,
        parent_id: 'leadparent',
        route_name: 'cap',
        endpoint_id: ENDPOINT,
        endpoint_name: 'leads',
        event_type: 'EpcisObject',
        status: 'processed',
        received_at: e.recordTime,
        processed_at: e.recordTime,
        principal: '',
        source_ip: '',
        request_id: '',
        payload: JSON.stringify({ type: 'ObjectEvent', eventID: `urn:uuid:lead-${e.i}` }),
      });
      await db.knex('epcis_events').insert({
        event_id: id,
        endpoint_id: ENDPOINT,
        epcis_event_id: `urn:uuid:lead-${e.i}`,
        type: 'ObjectEvent',
        action: 'OBSERVE',
        event_time: e.eventTime,
        record_time: e.recordTime,
        biz_step: e.bizStep,
      });
    }
  }, 60_000);

  /** The events `query` selects, in its order, as the stored events say (its bizSteps and time ranges). */
  const expectedFor = (query: EpcisIndexQuery): string[] => {
    const within = (t: number, range: { ge?: number; lt?: number } | undefined) =>
      (range?.ge === undefined || t >= range.ge) && (range?.lt === undefined || t < range.lt);
    const key = (e: (typeof events)[number]) => (query.orderBy === 'eventTime' ? e.eventTime : e.recordTime);
    return events
      .filter(
        (e) =>
          within(e.eventTime, query.eventTime) &&
          within(e.recordTime, query.recordTime) &&
          (!query.bizSteps || query.bizSteps.includes(e.bizStep)),
      )
      .sort((a, b) => (key(a) - key(b) || a.i - b.i) * (query.direction === 'asc' ? 1 : -1))
      .slice(0, query.limit)
      .map((e) => `urn:uuid:lead-${e.i}`);
  };
  const answered = async (query: EpcisIndexQuery) =>
    (await epcisIndexRepo.page(db.knex, query)).rows.map(
      (row) => (JSON.parse(row.payload) as { eventID: string }).eventID,
    );

  it('answers exactly the events in range, in order, on either time and in either direction', async () => {
    const eventTimes = events.map((e) => e.eventTime).sort((a, b) => a - b);
    const at = (fraction: number) => eventTimes[Math.floor(fraction * (COUNT - 1))] ?? 0;
    const recordAt = (fraction: number) => RECORDED + Math.floor(fraction * COUNT) * 1_000;
    let checked = 0;
    for (const orderBy of ['recordTime', 'eventTime'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        for (const [from, to] of [
          [0.1, 0.35],
          [0.5, undefined],
          [undefined, 0.2],
          [0.9, 0.95],
        ] as const) {
          for (const onEventTime of [true, false]) {
            for (const bizSteps of [undefined, ['shipping']]) {
              const range = {
                ...(from === undefined ? {} : { ge: onEventTime ? at(from) : recordAt(from) }),
                ...(to === undefined ? {} : { lt: onEventTime ? at(to) : recordAt(to) }),
              };
              const query: EpcisIndexQuery = {
                ...base,
                endpointId: ENDPOINT,
                orderBy,
                direction,
                limit: 1_000,
                ...(bizSteps ? { bizSteps } : {}),
                ...(onEventTime ? { eventTime: range } : { recordTime: range }),
              };
              const expected = expectedFor(query);
              expect(await answered(query), JSON.stringify(query)).toEqual(expected);
              checked += expected.length;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1_000);
  });

  it('keeps a statement per query shape: each query answers with its own values, a kept one as a new one', async () => {
    const query = (fields: Partial<EpcisIndexQuery>): EpcisIndexQuery => ({
      ...base,
      endpointId: ENDPOINT,
      limit: 1_000,
      ...fields,
    });
    // A shape no other test here has (ranges on both times): its statement is built for it. Then
    // one of that shape with other values (the kept statement), one of another shape (two
    // bizSteps, another order, a limit), and the first once more (kept): each gets the stored
    // events' answer, and the first the same both times.
    const first = query({
      bizSteps: ['shipping'],
      eventTime: { ge: RECORDED - 400_000_000 },
      recordTime: { lt: RECORDED + 200_000 },
    });
    const sameShape = query({
      bizSteps: ['receiving'],
      eventTime: { ge: RECORDED + 100_000_000 },
      recordTime: { lt: RECORDED + 230_000 },
    });
    const otherShape = query({
      bizSteps: ['receiving', 'shipping'],
      eventTime: { lt: RECORDED + 90_000 },
      orderBy: 'eventTime',
      direction: 'desc',
      limit: 17,
    });
    const firstAnswer = await answered(first);
    for (const q of [first, sameShape, otherShape]) {
      const expected = expectedFor(q);
      expect(expected.length, JSON.stringify(q)).toBeGreaterThan(10);
      expect(q === first ? firstAnswer : await answered(q), JSON.stringify(q)).toEqual(expected);
    }
    expect(await answered(first)).toEqual(firstAnswer);
    expect(expectedFor(sameShape)).not.toEqual(firstAnswer);
    const sql = (q: EpcisIndexQuery) => epcisIndexRepo.pageStatement(db.knex, q).sql;
    expect(sql(sameShape)).toBe(sql(first));
    expect(sql(otherShape)).not.toBe(sql(first));
  });
});

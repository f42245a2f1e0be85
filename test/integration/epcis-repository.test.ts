import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestGateway, type TestGateway } from '../helpers/test-gateway';

const CONTEXT = 'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld';
const VALID = join(import.meta.dirname, '../fixtures/epcis/valid');
let gw: TestGateway;
let origin: string;

const doc = (events: unknown[]) => ({
  '@context': CONTEXT,
  type: 'EPCISDocument',
  schemaVersion: '2.0',
  creationDate: '2026-01-01T00:00:00Z',
  epcisBody: { eventList: events },
});

let serial = 0;
/** An ObjectEvent with a fresh eventID; `extra` overrides any field. */
const object = (extra: Record<string, unknown> = {}) => ({
  type: 'ObjectEvent',
  eventID: `urn:uuid:00000000-0000-4000-8000-${String(++serial).padStart(12, '0')}`,
  eventTime: '2026-03-01T10:00:00.000Z',
  eventTimeZoneOffset: '+00:00',
  action: 'OBSERVE',
  epcList: [`urn:epc:id:sgtin:0614141.107346.${serial}`],
  ...extra,
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${gw.base}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** Waits for a capture job to finish and returns it. */
async function finished(location: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const job = await json(await fetch(`${origin}${location}`));
    if (!job.running) return job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`capture ${location} never finished`);
}

/** Captures on `site/cap` and waits for its job. */
async function captured(events: unknown[], headers: Record<string, string> = {}): Promise<any> {
  const response = await post('site/cap/capture', doc(events), headers);
  expect(response.status).toBe(202);
  return finished(response.headers.get('location') ?? '');
}

const query = async (params: string, path = 'site/q/events') => {
  const response = await fetch(`${gw.base}/${path}${params ? `?${params}` : ''}`);
  return { response, body: await json(response) };
};
const ids = (body: any): string[] =>
  (body.epcisBody?.queryResults?.resultsBody?.eventList ?? []).map((e: any) => e.eventID);

beforeAll(async () => {
  gw = await startTestGateway();
  origin = `http://127.0.0.1:${gw.server.port}`;
  const route = (name: string, requestType: string, extra: Record<string, unknown> = {}) => ({
    name,
    eventType: 'EpcisObject',
    requestType,
    authType: 'noauth',
    ...extra,
  });
  const created = await gw.admin('POST', '/endpoints', {
    name: 'Site',
    baseRoutePath: 'site',
    routes: [
      route('cap', 'HttpPost'),
      route('q', 'HttpGet'),
      route('capLocked', 'HttpPost', { authType: 'basic' }),
      { name: 'plain', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' },
    ],
  });
  expect(created.status).toBe(201);
  // A second endpoint: its events never show in the first one's queries.
  const other = await gw.admin('POST', '/endpoints', {
    name: 'Other',
    baseRoutePath: 'other',
    routes: [route('ocap', 'HttpPost'), route('oq', 'HttpGet')],
  });
  expect(other.status).toBe(201);
});
afterAll(() => gw.close());

describe('capture (SPEC §17)', () => {
  it('answers 202 with the capture id and a Location to its job, which reports success', async () => {
    const event = object();
    const response = await post('site/cap/capture', doc([event]));
    expect(response.status).toBe(202);
    expect(response.headers.get('gs1-epcis-version')).toBe('2.0.0');
    expect(response.headers.get('gs1-cbv-version')).toBe('2.0.0');
    const { captureID } = await json(response);
    expect(response.headers.get('location')).toBe(`/GWENDPOINTAPI/site/cap/capture/${captureID}`);
    const job = await finished(response.headers.get('location') ?? '');
    expect(job).toMatchObject({
      captureID,
      running: false,
      success: true,
      captureErrorBehaviour: 'rollback',
      errors: [],
    });
    expect(job.finishedAt).toMatch(/Z$/);
    const { body } = await query(`EQ_eventID=${encodeURIComponent(event.eventID)}`);
    expect(ids(body)).toEqual([event.eventID]);
  });

  it('stores nothing of a document with an invalid event under rollback', async () => {
    const good = object();
    const job = await captured([good, object({ action: 'SIDEWAYS' })]);
    expect(job.success).toBe(false);
    expect(job.errors[0]).toMatchObject({
      type: 'epcisException:ValidationException',
      pointer: '/epcisBody/eventList/1/action',
    });
    expect(ids((await query(`EQ_eventID=${encodeURIComponent(good.eventID)}`)).body)).toEqual([]);
  });

  it('stores the valid events and reports the others under proceed', async () => {
    const good = object();
    const job = await captured([object({ action: 'SIDEWAYS' }), good], { 'GS1-Capture-Error-Behaviour': 'proceed' });
    expect(job).toMatchObject({ success: false, captureErrorBehaviour: 'proceed' });
    expect(job.errors).toHaveLength(1);
    expect(job.errors[0].pointer).toBe('/epcisBody/eventList/0/action');
    expect(ids((await query(`EQ_eventID=${encodeURIComponent(good.eventID)}`)).body)).toEqual([good.eventID]);
  });

  it('does not store an event whose eventID the endpoint holds, and is not an error', async () => {
    const event = object();
    expect((await captured([event])).success).toBe(true);
    const again = await captured([event, object()]);
    expect(again.success).toBe(true);
    expect(ids((await query(`EQ_eventID=${encodeURIComponent(event.eventID)}`)).body)).toEqual([event.eventID]);
  });

  it('refuses more than 10,000 events with 413 and GS1-EPCIS-Capture-Limit', async () => {
    const events = Array.from({ length: 10_001 }, () => ({ type: 'ObjectEvent' }));
    const response = await post('site/cap/capture', doc(events));
    expect(response.status).toBe(413);
    expect(response.headers.get('gs1-epcis-capture-limit')).toBe('10000');
    const problem = await json(response);
    expect(problem).toMatchObject({ type: 'epcisException:CaptureLimitExceededException', code: 'payload_too_large' });
  });

  it('refuses a body over bodyLimitBytes with 413 and GS1-EPCIS-Capture-File-Size-Limit', async () => {
    const response = await post('site/cap/capture', 'x'.repeat(1024 * 1024 + 10));
    expect(response.status).toBe(413);
    expect(response.headers.get('gs1-epcis-capture-file-size-limit')).toBe(String(1024 * 1024));
    expect((await json(response)).type).toBe('epcisException:CaptureLimitExceededException');
  });

  it('answers malformed JSON with a ValidationException beside invalid_json', async () => {
    const response = await post('site/cap/capture', '{"type":');
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ type: 'epcisException:ValidationException', code: 'invalid_json' });
  });

  it('answers an unknown capture id with 404 NoSuchNameException', async () => {
    const response = await fetch(`${gw.base}/site/cap/capture/01ARZ3NDEKTSV4RRFFQ69G5FAV`);
    expect(response.status).toBe(404);
    expect((await json(response)).type).toBe('epcisException:NoSuchNameException');
  });

  it('keeps the route’s own authentication: 401 without credentials on a basic route', async () => {
    const response = await post('site/capLocked/capture', doc([object()]));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Basic');
    expect(response.headers.get('gs1-epcis-version')).toBe('2.0.0');
  });

  it('has no capture path on routes of other event types or on GET routes', async () => {
    expect((await post('site/plain/capture', doc([object()]))).status).toBe(404);
    expect((await post('site/q/capture', doc([object()]))).status).toBe(404);
    expect((await fetch(`${gw.base}/site/cap/events`)).status).toBe(404);
  });

  it('accepts every GS1 example and the query returns each of their events', async () => {
    for (const file of readdirSync(VALID).filter((name) => name.endsWith('.jsonld'))) {
      const sample = JSON.parse(readFileSync(join(VALID, file), 'utf8'));
      const job = await captured(sample.epcisBody.eventList ?? sample.epcisBody.queryResults.resultsBody.eventList);
      expect(job.success, file).toBe(true);
    }
    // Example 9.6.1's event names an EPC no other example does.
    const { body } = await query('MATCH_epc=urn:epc:id:sgtin:0614141.107346.2017');
    expect(ids(body).length).toBeGreaterThanOrEqual(1);
  });
});

describe('OPTIONS and versions (SPEC §17)', () => {
  it('answers OPTIONS on R/capture and Q/events with 204, Allow and the GS1 headers', async () => {
    for (const [path, allow] of [
      ['site/cap/capture', 'POST'],
      ['site/q/events', 'GET'],
    ] as const) {
      const response = await fetch(`${gw.base}/${path}`, { method: 'OPTIONS' });
      expect(response.status).toBe(204);
      expect(response.headers.get('allow')).toContain(allow);
      expect(response.headers.get('gs1-epcis-version')).toBe('2.0.0');
      expect(response.headers.get('gs1-cbv-version')).toBe('2.0.0');
      expect(response.headers.get('gs1-epcis-capture-limit')).toBe('10000');
      expect(response.headers.get('gs1-epcis-capture-file-size-limit')).toBe(String(1024 * 1024));
    }
  });
});

describe('query (SPEC §17)', () => {
  const T = (minute: number) => `2027-05-01T08:${String(minute).padStart(2, '0')}:00.000Z`;
  const prefix = 'urn:epc:id:sgtin:9520001.';
  const set: Record<string, any> = {};

  beforeAll(async () => {
    set.a = object({
      eventTime: T(0),
      bizStep: 'shipping',
      disposition: 'in_transit',
      readPoint: { id: 'urn:epc:id:sgln:9520001.00001.0' },
      bizLocation: { id: 'urn:epc:id:sgln:9520001.00002.0' },
      epcList: [`${prefix}000001.1`],
    });
    set.b = object({
      eventTime: T(10),
      bizStep: 'https://ref.gs1.org/cbv/BizStep-receiving',
      action: 'ADD',
      epcList: [`${prefix}000001.2`],
      quantityList: [{ epcClass: 'urn:epc:class:lgtin:9520001.000002.LOT7', quantity: 3 }],
    });
    set.c = {
      type: 'AggregationEvent',
      eventID: 'urn:uuid:00000000-0000-4000-8000-aaaaaaaaaaaa',
      eventTime: T(20),
      eventTimeZoneOffset: '+00:00',
      action: 'ADD',
      parentID: 'urn:epc:id:sscc:9520001.0000000001',
      childEPCs: [`${prefix}000002.1`],
      bizStep: 'packing',
    };
    set.d = {
      type: 'TransformationEvent',
      eventID: 'urn:uuid:00000000-0000-4000-8000-bbbbbbbbbbbb',
      eventTime: T(30),
      eventTimeZoneOffset: '+00:00',
      inputEPCList: [`${prefix}000003.1`],
      outputEPCList: [`${prefix}000004.1`],
    };
    await captured([set.a, set.b, set.c, set.d]);
    // The other endpoint holds an event with the same EPC: never part of this endpoint's answers.
    const response = await post('other/ocap/capture', doc([object({ epcList: [`${prefix}000001.1`] })]));
    await finished(response.headers.get('location') ?? '');
  });

  const only = async (params: string) =>
    ids((await query(params)).body).filter((id) => Object.values(set).some((e) => e.eventID === id));
  const names = (...keys: string[]) => keys.map((key) => set[key].eventID as string);

  it('answers an EPCISQueryDocument with each event’s eventID and recordTime', async () => {
    const { response, body } = await query(`EQ_eventID=${encodeURIComponent(set.a.eventID)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(response.headers.get('gs1-epcis-version')).toBe('2.0.0');
    expect(body).toMatchObject({ type: 'EPCISQueryDocument', schemaVersion: '2.0' });
    expect(body.epcisBody.queryResults.queryName).toBe('SimpleEventQuery');
    const [event] = body.epcisBody.queryResults.resultsBody.eventList;
    expect(event.recordTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('takes GE_ as inclusive and LT_ as exclusive bounds', async () => {
    expect(await only(`GE_eventTime=${T(10)}&LT_eventTime=${T(30)}`)).toEqual(names('b', 'c'));
    expect(await only(`GE_eventTime=${encodeURIComponent('2027-05-01T10:10:00+02:00')}&LT_eventTime=${T(20)}`)).toEqual(
      names('b'),
    );
  });

  it('matches CBV values in any form, comma meaning any of them', async () => {
    expect(await only('EQ_bizStep=receiving')).toEqual(names('b'));
    expect(await only('EQ_bizStep=urn:epcglobal:cbv:bizstep:shipping,https://ref.gs1.org/cbv/BizStep-packing')).toEqual(
      names('a', 'c'),
    );
    expect(await only('EQ_disposition=https://ref.gs1.org/cbv/Disp-in_transit')).toEqual(names('a'));
  });

  it('filters by eventType, action, readPoint and bizLocation', async () => {
    expect(await only('eventType=AggregationEvent,TransformationEvent')).toEqual(names('c', 'd'));
    expect(await only('EQ_action=ADD')).toEqual(names('b', 'c'));
    expect(await only('EQ_readPoint=urn:epc:id:sgln:9520001.00001.0')).toEqual(names('a'));
    expect(await only('EQ_bizLocation=urn:epc:id:sgln:9520001.00002.0')).toEqual(names('a'));
  });

  it('matches each EPC role: MATCH_epc, parentID, input, output, anyEPC and epcClass', async () => {
    expect(await only(`MATCH_epc=${prefix}000001.1,${prefix}000002.1`)).toEqual(names('a', 'c'));
    expect(await only(`MATCH_epc=${prefix}000003.1`)).toEqual([]);
    expect(await only('MATCH_parentID=urn:epc:id:sscc:9520001.0000000001')).toEqual(names('c'));
    expect(await only('MATCH_epc=urn:epc:id:sscc:9520001.0000000001')).toEqual([]);
    expect(await only(`MATCH_inputEPC=${prefix}000003.1`)).toEqual(names('d'));
    expect(await only(`MATCH_outputEPC=${prefix}000004.1`)).toEqual(names('d'));
    expect(await only(`MATCH_anyEPC=urn:epc:id:sscc:9520001.0000000001,${prefix}000004.1`)).toEqual(names('c', 'd'));
    expect(await only('MATCH_epcClass=urn:epc:class:lgtin:9520001.000002.LOT7')).toEqual(names('b'));
  });

  it('matches urn:epc:idpat: patterns field by field', async () => {
    expect(await only('MATCH_epc=urn:epc:idpat:sgtin:9520001.000001.*')).toEqual(names('a', 'b'));
    expect(await only('MATCH_anyEPC=urn:epc:idpat:sgtin:9520001.*.*')).toEqual(names('a', 'b', 'c', 'd'));
    expect(await only('MATCH_anyEPC=urn:epc:idpat:sgtin:9520001.*.1')).toEqual(names('a', 'c', 'd'));
    expect(await only('MATCH_epcClass=urn:epc:idpat:sgtin:9520001.000002.*')).toEqual(names('b'));
  });

  it('orders by recordTime ascending by default, and by eventTime either way', async () => {
    const key = `MATCH_anyEPC=urn:epc:idpat:sgtin:9520001.*.*`;
    expect(await only(`${key}&orderBy=eventTime&orderDirection=DESC`)).toEqual(names('d', 'c', 'b', 'a'));
    expect(await only(`${key}&orderBy=eventTime`)).toEqual(names('a', 'b', 'c', 'd'));
    expect(await only(`${key}&orderBy=eventTime&eventCountLimit=2`)).toEqual(names('a', 'b'));
  });

  it('answers the repository’s recordTime, once, where the captured event carried its own', async () => {
    const sent = object({ recordTime: '2001-01-01T00:00:00.000Z' });
    expect((await captured([sent])).success).toBe(true);
    const response = await fetch(`${gw.base}/site/q/events?EQ_eventID=${encodeURIComponent(sent.eventID)}`);
    const text = await response.text();
    expect(text.match(/"recordTime"/g)).toHaveLength(1);
    const [event] = JSON.parse(text).epcisBody.queryResults.resultsBody.eventList;
    expect(event.eventID).toBe(sent.eventID);
    expect(Date.parse(event.recordTime)).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
  });

  it('answers each event of a page as captured, those stored compressed (over 1 KiB) among the others', async () => {
    // Two events of 60 EPCs each (stored compressed) between events stored as received, on one page.
    const many = (lot: number) => Array.from({ length: 60 }, (_, i) => `urn:epc:id:sgtin:9520009.00000${lot}.${i}`);
    const sent = [object(), object({ epcList: many(1) }), object(), object({ epcList: many(2) })];
    expect((await captured(sent)).success).toBe(true);
    const stored = await gw.gateway.db
      .knex('events')
      .where('event_type', 'EpcisObject')
      .whereNotNull('payload_bytes')
      .select('id');
    expect(stored.length).toBeGreaterThanOrEqual(2);
    for (const order of ['', '&orderDirection=DESC']) {
      const eventIds = sent.map((event) => encodeURIComponent(event.eventID)).join(',');
      const { body } = await query(`EQ_eventID=${eventIds}&orderBy=recordTime${order}`);
      const answered = body.epcisBody.queryResults.resultsBody.eventList.map(
        ({ recordTime, ...event }: Record<string, unknown>) => {
          expect(recordTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          return event;
        },
      );
      // Each stored event carries its document's @context.
      const expected = sent.map((event) => ({ '@context': CONTEXT, ...event }));
      expect(answered).toEqual(order ? expected.reverse() : expected);
    }
  });

  it('answers Q/events/<eventID> with that one event, and 404 for an unknown one', async () => {
    const { response, body } = await query('', `site/q/events/${encodeURIComponent(set.c.eventID)}`);
    expect(response.status).toBe(200);
    expect(ids(body)).toEqual(names('c'));
    const unknown = await query('', `site/q/events/${encodeURIComponent('urn:uuid:nothing-here')}`);
    expect(unknown.response.status).toBe(404);
    expect(unknown.body.type).toBe('epcisException:NoSuchNameException');
  });

  it('refuses unknown parameters and bad values with a QueryParameterException', async () => {
    for (const params of [
      'EQ_colour=red',
      'GE_eventTime=2027-05-01T08:00:00',
      'perPage=0',
      'perPage=1001',
      'eventCountLimit=3',
      'orderBy=bizStep',
      'EQ_action=MOVE',
      'eventType=Thing',
      'MATCH_epc=not a uri',
      'nextPageToken=garbage',
    ]) {
      const { response, body } = await query(params);
      expect(response.status, params).toBe(400);
      expect(body, params).toMatchObject({ type: 'epcisException:QueryParameterException', code: 'invalid_query' });
    }
  });
});

describe('paging (SPEC §17)', () => {
  it('pages with perPage and nextPageToken: none lost, none repeated while events keep arriving', async () => {
    const epc = 'urn:epc:id:sgtin:5000001.000001.';
    const batch = (from: number, count: number) =>
      Array.from({ length: count }, (_, k) => object({ epcList: [`${epc}${from + k}`] }));
    const first = batch(0, 1000);
    for (let start = 0; start < 1000; start += 250) await captured(first.slice(start, start + 250));
    const seen: string[] = [];
    let next: string | null = `${gw.base}/site/q/events?MATCH_epc=urn:epc:idpat:sgtin:5000001.000001.*&perPage=7`;
    let pages = 0;
    while (next) {
      const response: Response = await fetch(next);
      expect(response.status).toBe(200);
      const body = await json(response);
      const page = ids(body);
      const link = response.headers.get('link');
      if (link) {
        expect(page).toHaveLength(7);
        const target = /^<(\/GWENDPOINTAPI\/[^>]+)>; rel="next"$/.exec(link)?.[1];
        expect(target).toBeDefined();
        next = `${origin}${target}`;
      } else next = null;
      seen.push(...page);
      // Events keep arriving while the pages are read: none of them may appear in this walk.
      if (pages++ % 20 === 0) await captured(batch(10_000 + pages * 3, 3));
    }
    expect(seen).toEqual(first.map((e) => e.eventID));
    // A new query sees the later events.
    const fresh = await query('MATCH_epc=urn:epc:idpat:sgtin:5000001.000001.*&perPage=1000');
    expect(ids(fresh.body).length).toBe(1000);
    expect(fresh.response.headers.get('link')).not.toBeNull();
  });

  it('ends at eventCountLimit on a page shorter than perPage, without a next page', async () => {
    const events = Array.from({ length: 6 }, (_, k) => object({ eventTime: `2028-02-01T00:00:0${k}.000Z` }));
    await captured(events);
    const eventIds = events.map((event) => encodeURIComponent(event.eventID)).join(',');
    const pages: string[][] = [];
    let next: string | null =
      `${gw.base}/site/q/events?EQ_eventID=${eventIds}&orderBy=eventTime&eventCountLimit=5&perPage=2`;
    while (next) {
      const response: Response = await fetch(next);
      pages.push(ids(await json(response)));
      const target = /^<(\/GWENDPOINTAPI\/[^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
      next = target ? `${origin}${target}` : null;
    }
    const sent = events.map((event) => event.eventID);
    expect(pages).toEqual([sent.slice(0, 2), sent.slice(2, 4), sent.slice(4, 5)]);
  });

  it('refuses a token sent with other parameters, perPage included', async () => {
    const { response } = await query('perPage=1');
    const link = response.headers.get('link') ?? '';
    const token = /nextPageToken=([^&>]+)/.exec(link)?.[1] ?? '';
    expect(token).not.toBe('');
    expect((await query(`nextPageToken=${token}`)).response.status).toBe(200);
    const mixed = await query(`perPage=2&nextPageToken=${token}`);
    expect(mixed.response.status).toBe(400);
    expect(mixed.body.type).toBe('epcisException:QueryParameterException');
  });
});

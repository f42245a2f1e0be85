import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, json, startTestGateway, testDatabase, type TestGateway } from '../helpers/test-gateway';
import { receivedPayload } from '../../server/repositories/event-payload';

/**
 * The EPCIS repository beyond its wire rules (SPEC §17): events stored before its index,
 * idempotent captures inside one worker batch, the routes' own OAuth2 authentication, and query
 * answers checked against GS1's JSON schema.
 */
const CONTEXT = 'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld';
const VALID = join(import.meta.dirname, '../fixtures/epcis/valid');
/** GS1's `EPCIS-JSON-Schema.json`: not in this repository (its licence grants nothing), so given by path. */
const SCHEMA = process.env.GATEWAY_EPCIS_SCHEMA;

let gw: TestGateway;
let dataDir: string;
const creds: Record<string, string> = {};

const doc = (events: unknown[]) => ({
  '@context': CONTEXT,
  type: 'EPCISDocument',
  schemaVersion: '2.0',
  creationDate: '2026-01-01T00:00:00Z',
  epcisBody: { eventList: events },
});

let serial = 0;
const object = (extra: Record<string, unknown> = {}) => ({
  type: 'ObjectEvent',
  eventID: `urn:uuid:00000000-0000-4000-9000-${String(++serial).padStart(12, '0')}`,
  eventTime: '2026-04-01T10:00:00.000Z',
  eventTimeZoneOffset: '+00:00',
  action: 'OBSERVE',
  bizStep: 'shipping',
  epcList: [`urn:epc:id:sgtin:0614141.207346.${serial}`],
  ...extra,
});

const send = (method: string, path: string, authorization?: string, body?: unknown) =>
  fetch(`${gw.base}/${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(authorization ? { authorization } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Waits for a capture job (its Location) to finish and returns it. */
async function finished(location: string, authorization?: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const response = await fetch(`http://127.0.0.1:${gw.server.port}${location}`, {
      headers: authorization ? { authorization } : {},
    });
    const job = await json(response);
    if (!job.running) return job;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`capture ${location} never finished`);
}

async function captured(events: unknown[]): Promise<any> {
  const response = await send('POST', 'shop/cap/capture', undefined, doc(events));
  expect(response.status).toBe(202);
  return finished(response.headers.get('location') ?? '');
}

const query = async (params: string) => json(await send('GET', `shop/q/events?${params}`));
const eventList = (body: any): any[] => body.epcisBody?.queryResults?.resultsBody?.eventList ?? [];
const ids = (body: any): string[] => eventList(body).map((e) => e.eventID);

/** The same EPCIS event twice, each capture queued while no worker runs. */
const raced = object();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-epcis-upkeep-'));
  const database = await testDatabase(dataDir);
  // First an instance that takes submissions but does not process the queue.
  const intakeOnly = await startTestGateway({ dataDir, database, processQueue: false });
  gw = intakeOnly;
  await gw.admin('PUT', '/settings', { authFailureLimit: 1000 });
  await gw.admin('POST', '/roles', { name: 'site' });
  await gw.admin('POST', '/roles', { name: 'partner' });
  const route = (name: string, requestType: string, extra: Record<string, unknown> = {}) => ({
    name,
    eventType: 'EpcisObject',
    requestType,
    authType: 'noauth',
    ...extra,
  });
  const created = await gw.admin('POST', '/endpoints', {
    name: 'Shop',
    baseRoutePath: 'shop',
    routes: [
      route('cap', 'HttpPost'),
      route('q', 'HttpGet'),
      route('siteCap', 'HttpPost', { authType: 'OAuth2', roles: ['site'] }),
      route('siteQ', 'HttpGet', { authType: 'OAuth2', roles: ['site'] }),
      route('partnerQ', 'HttpGet', { authType: 'OAuth2', roles: ['partner'] }),
    ],
  });
  expect(created.status).toBe(201);
  await gw.admin('POST', '/users', { username: 'erp', password: 'erp-pass', roles: ['site'] });
  const partner = await gw.admin('POST', '/access-tokens', {
    name: 'partner',
    role: 'partner',
    expiryDate: '2999-01-01',
  });
  creds.partner = (partner.body as { token: string }).token;
  for (const events of [[raced, object()], [raced]]) {
    expect((await send('POST', 'shop/cap/capture', undefined, doc(events))).status).toBe(202);
  }
  await intakeOnly.close();
  // Then one that processes: its worker claims both captures in its first batch.
  gw = await startTestGateway({ dataDir, database });
  const login = await fetch(`${gw.base}/token`, {
    method: 'POST',
    headers: { authorization: basic('erp', 'erp-pass') },
  });
  creds.erp = `Bearer ${(await json(login)).access_token as string}`;
});
afterAll(async () => {
  await gw.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('idempotent capture within one worker batch (SPEC §17)', () => {
  it('stores an eventID once when two captures of one batch both carry it', async () => {
    for (let i = 0; i < 200 && ids(await query(`EQ_eventID=${encodeURIComponent(raced.eventID)}`)).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    // Both jobs are done once the queue is empty: wait for the worker to drain it.
    for (let i = 0; i < 200; i++) {
      const row = await gw.gateway.db.knex('events').where({ status: 'queued' }).count({ n: '*' }).first();
      if (Number(row?.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(ids(await query(`EQ_eventID=${encodeURIComponent(raced.eventID)}`))).toEqual([raced.eventID]);
    // Payloads may be stored compressed (issue 37.6): compared as received.
    const children = await gw.gateway.db
      .knex('events')
      .whereNotNull('parent_id')
      .select<{ payload: string; payload_bytes: unknown }[]>('payload', 'payload_bytes');
    const stored = children.filter((row) => receivedPayload(row.payload, row.payload_bytes).includes(raced.eventID));
    expect(stored).toHaveLength(1);
  });
});

describe('backfill of events stored before the index (SPEC §17)', () => {
  it('indexes stored EPCIS events that have no index rows, and the query then finds them', async () => {
    const events = [object({ bizStep: 'receiving' }), object({ bizStep: 'receiving' }), object()];
    expect((await captured(events)).success).toBe(true);
    const eventIds = events.map((e) => e.eventID);
    const knex = gw.gateway.db.knex;
    const rows = await knex<{ event_id: string }>('epcis_events')
      .whereIn('epcis_event_id', eventIds)
      .select('event_id');
    expect(rows).toHaveLength(3);
    // As if stored before the index migration: no index rows at all.
    const stored = rows.map((row) => row.event_id);
    await knex('epcis_epcs').whereIn('event_id', stored).delete();
    await knex('epcis_events').whereIn('event_id', stored).delete();
    const epc = encodeURIComponent(events[0]?.epcList[0] ?? '');
    expect(ids(await query(`MATCH_epc=${epc}`))).toEqual([]);

    expect(await gw.gateway.epcisBackfill.runOnce()).toBe(3);

    expect(ids(await query(`MATCH_epc=${epc}`))).toEqual([events[0]?.eventID]);
    const receiving = eventList(await query('EQ_bizStep=receiving&perPage=1000')).filter((e) =>
      eventIds.includes(e.eventID),
    );
    expect(receiving.map((e) => e.eventID)).toEqual(eventIds.slice(0, 2));
    expect(receiving[0].recordTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // A second pass finds nothing left to index.
    expect(await gw.gateway.epcisBackfill.runOnce()).toBe(0);
  });
});

describe('the routes’ own OAuth2 authentication (SPEC §17)', () => {
  it('lets a partner’s access token query its one GET route and nothing else', async () => {
    const partner = `Bearer ${creds.partner}`;
    const answer = await send('GET', 'shop/partnerQ/events', partner);
    expect(answer.status).toBe(200);
    expect((await json(answer)).type).toBe('EPCISQueryDocument');
    // The token alone (no `Bearer `) is an access token's other form.
    expect((await send('GET', 'shop/partnerQ/events', creds.partner)).status).toBe(200);
    const refused = await send('POST', 'shop/siteCap/capture', partner, doc([object()]));
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ code: 'forbidden' });
    expect((await send('GET', 'shop/siteQ/events', partner)).status).toBe(403);
  });

  it('captures and queries with an OAuth2 bearer token of the routes’ role, not the partner’s route', async () => {
    const event = object();
    const response = await send('POST', 'shop/siteCap/capture', creds.erp, doc([event]));
    expect(response.status).toBe(202);
    expect((await finished(response.headers.get('location') ?? '', creds.erp)).success).toBe(true);
    const found = await send('GET', `shop/siteQ/events/${encodeURIComponent(event.eventID)}`, creds.erp);
    expect(found.status).toBe(200);
    expect(ids(await json(found))).toEqual([event.eventID]);
    expect((await send('GET', 'shop/partnerQ/events', creds.erp)).status).toBe(403);
  });

  it('keeps 401 without credentials and with a bad token on capture, job and query paths', async () => {
    for (const authorization of [undefined, 'Bearer gwbt_nope']) {
      expect((await send('POST', 'shop/siteCap/capture', authorization, doc([object()]))).status).toBe(401);
      expect((await send('GET', 'shop/siteCap/capture/x', authorization)).status).toBe(401);
      expect((await send('GET', 'shop/partnerQ/events', authorization)).status).toBe(401);
      expect((await send('GET', 'shop/partnerQ/events/urn%3Auuid%3Ax', authorization)).status).toBe(401);
    }
  });
});

describe.skipIf(!SCHEMA)('GS1 JSON schema of query answers (SPEC §17, oracle)', () => {
  it('answers Q/events and Q/events/<eventID> with documents GS1’s schema accepts', async () => {
    const schema = JSON.parse(readFileSync(SCHEMA ?? '', 'utf8')) as object;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const valid = ajv.compile(schema);
    for (const file of readdirSync(VALID).filter((name) => name.endsWith('.jsonld'))) {
      const sample = JSON.parse(readFileSync(join(VALID, file), 'utf8'));
      const job = await captured(sample.epcisBody.eventList ?? sample.epcisBody.queryResults.resultsBody.eventList);
      expect(job.success, file).toBe(true);
    }
    const answer = await query('perPage=1000');
    expect(eventList(answer).length).toBeGreaterThan(20);
    expect(valid(answer) ? [] : valid.errors).toEqual([]);
    const one = await query('perPage=1&orderBy=eventTime&orderDirection=DESC&EQ_bizStep=shipping');
    expect(valid(one) ? [] : valid.errors).toEqual([]);
    const first = eventList(answer)[0];
    const byId = await json(await send('GET', `shop/q/events/${encodeURIComponent(first.eventID)}`));
    expect(valid(byId) ? [] : valid.errors).toEqual([]);
  });
});

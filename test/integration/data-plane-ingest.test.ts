import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, settledReceipt, startTestGateway, type TestGateway } from '../helpers/test-gateway';

const fixture = (path: string) => readFileSync(join(import.meta.dirname, '../fixtures', path), 'utf8');
let gw: TestGateway;

const send = (route: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.base}/plant/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
const get = (route: string, query = '') => fetch(`${gw.base}/plant/${route}${query}`);

const settled = (location: string) => settledReceipt(gw, location);

beforeAll(async () => {
  gw = await startTestGateway();
  const r = (name: string, eventType: string, extra: Record<string, unknown> = {}) => ({
    name,
    eventType,
    requestType: 'HttpPost',
    authType: 'noauth',
    ...extra,
  });
  const g = (name: string, eventType: string) => ({ name, eventType, requestType: 'HttpGet', authType: 'noauth' });
  const res = await gw.admin('POST', '/endpoints', {
    name: 'Plant',
    baseRoutePath: 'plant',
    routes: [
      r('all', 'AllData'),
      r('allAsync', 'AllData', { async: true }),
      r('tags', 'UHFTagRead'),
      r('tagsAsync', 'UHFTagRead', { async: true }),
      r('ghost', 'GhostData'),
      r('trigger', 'CustomTrigger'),
      r('epcisDoc', 'EpcisMessage'),
      r('epcisLenientDoc', 'EpcisMessage', { epcisLenient: true }),
      r('epcisEvents', 'EpcisObject'),
      g('allView', 'AllData'),
      g('inventory', 'UHFTagRead'),
      g('ghostView', 'GhostData'),
      g('triggerView', 'CustomTrigger'),
      g('epcisDocView', 'EpcisMessage'),
      g('epcisEventView', 'EpcisObject'),
      r('inactive', 'AllData', { active: false }),
    ],
  });
  expect(res.status).toBe(201);
  await gw.admin('POST', '/endpoints', {
    name: 'Off',
    baseRoutePath: 'off',
    active: false,
    routes: [r('offRoute', 'AllData')],
  });
});
afterAll(() => gw.close());

describe('routing', () => {
  it('answers unknown, inactive route and inactive endpoint with the same 404', async () => {
    const bodies = [];
    for (const path of ['/plant/nope', '/plant/inactive', '/off/offRoute']) {
      const res = await fetch(`${gw.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'same' },
        body: '{}',
      });
      expect(res.status).toBe(404);
      bodies.push(await res.text());
    }
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0])).toMatchObject({ code: 'route_not_found', status: 404 });
  });

  it('answers a wrong method with 405 and Allow, tolerates a trailing slash, always sets X-Request-Id', async () => {
    const wrong = await fetch(`${gw.base}/plant/all`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect((await json(wrong)).code).toBe('method_not_allowed');
    const slash = await fetch(`${gw.base}/plant/all/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(slash.status).toBe(200);
    expect(slash.headers.get('x-request-id')).toMatch(/.+/);
  });
});

describe('body handling', () => {
  it('needs a JSON content type (415), a body within the limit (413) and valid JSON (400)', async () => {
    expect((await send('all', '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await fetch(`${gw.base}/plant/all`, { method: 'POST', body: '{}' })).status).toBe(415);
    expect((await send('all', '{"a":1}', { 'content-type': 'application/ld+json' })).status).toBe(200);
    expect((await send('all', '{"a":1}', { 'content-type': 'application/vnd.acme+json; charset=utf-8' })).status).toBe(
      200,
    );
    const bad = await send('all', '{"a":');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect((await json(bad)).code).toBe('invalid_json');
    await gw.admin('PUT', '/settings', { bodyLimitBytes: 1024 });
    const big = await send('all', JSON.stringify({ pad: 'x'.repeat(2000) }));
    expect(big.status).toBe(413);
    expect((await json(big)).code).toBe('payload_too_large');
    await gw.admin('PUT', '/settings', { bodyLimitBytes: 1048576 });
  });

  it('cuts off a chunked body the moment it crosses the limit (413, connection closed) and reads one within it', async () => {
    await gw.admin('PUT', '/settings', { bodyLimitBytes: 1024 });
    const post = (chunks: string[]) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const req = request(`${gw.base}/plant/all`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
        });
        // The server may close while we are still writing: the answer is what counts.
        req.on('error', (error) => (req.writableEnded ? undefined : reject(error)));
        for (const chunk of chunks) req.write(chunk);
        req.end();
      });
    const over = await post(['{"pad":"', 'x'.repeat(600), 'x'.repeat(600), '"}']);
    expect(over.status).toBe(413);
    expect(over.connection).toBe('close');
    expect((JSON.parse(over.body) as { code: string }).code).toBe('payload_too_large');
    const within = await post(['{"pad":"', 'x'.repeat(300), 'x'.repeat(300), '"}']);
    expect(within.status).toBe(200);
    await gw.admin('PUT', '/settings', { bodyLimitBytes: 1048576 });
  });

  it('keeps a payload the event type rejects, with 422 and JSON Pointer errors', async () => {
    const res = await send('all', '42');
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body).toMatchObject({
      code: 'validation_failed',
      status: 422,
      errors: [expect.objectContaining({ path: '' })],
    });
    const stored = await gw.admin('GET', `/events/${body.id}`);
    expect(stored.body).toMatchObject({
      status: 'rejected',
      route: 'all',
      endpoint: 'Plant',
      payload: 42,
      errors: body.errors,
    });
  });
});

describe('sync processing per event type', () => {
  it('UHFTagRead: every reader format, dedup and the live inventory', async () => {
    for (const file of [
      'zebra-fx-single.json',
      'zebra-fx-array.json',
      'impinj-r700-webhook.json',
      'speedway-connect.json',
      'generic.json',
    ]) {
      const res = await send('tags', fixture(`readers/${file}`));
      expect(res.status, file).toBe(200);
      const body = await json(res);
      expect(body).toMatchObject({ eventType: 'UHFTagRead', status: 'processed' });
      expect(Object.keys(body.result).sort()).toEqual(['duplicatesSuppressed', 'reads', 'uniqueEpcs']);
    }
    const concatenated = await json(await send('tags', fixture('readers/zebra-fx-concatenated.txt')));
    expect(concatenated.result.reads).toBeGreaterThan(1);
    const read = {
      epc: 'e28011700000020a1b2c3d4e',
      readerId: 'dock-1',
      antenna: 1,
      rssi: -50,
      readAt: '2026-01-01T00:00:00.000Z',
    };
    const first = await json(
      await send('tags', JSON.stringify([read, { ...read, readAt: '2026-01-01T00:00:00.400Z' }])),
    );
    expect(first.result).toEqual({ reads: 2, uniqueEpcs: 1, duplicatesSuppressed: 1 });
    const again = await json(await send('tags', JSON.stringify({ ...read, readAt: '2026-01-01T00:00:00.900Z' })));
    expect(again.result).toEqual({ reads: 1, uniqueEpcs: 1, duplicatesSuppressed: 1 });
    const heartbeat = await send('tags', JSON.stringify({ antennaPort: 1, epc: '', isHeartBeat: true }));
    expect((await json(heartbeat)).result).toEqual({ reads: 0, uniqueEpcs: 0, duplicatesSuppressed: 0 });
    const inventory = await json(await get('inventory', '?readerId=dock-1'));
    expect(inventory.items).toEqual([
      {
        epc: 'E28011700000020A1B2C3D4E',
        epcUri: 'urn:epc:raw:96.xE28011700000020A1B2C3D4E',
        tid: null,
        readerId: 'dock-1',
        antenna: 1,
        rssi: -50,
        firstSeen: '2026-01-01T00:00:00.000Z',
        lastSeen: '2026-01-01T00:00:00.900Z',
        readCount: 1,
      },
    ]);
    const byUri = await json(await get('inventory', '?epc=urn:epc:raw:96.xE28011700000020A1B2C3D4E'));
    expect(byUri.items).toHaveLength(1);
    // SQLite writes this answer's text itself; it is JSON all the same, and HEAD has no body.
    const page = await get('inventory', '?readerId=dock-1');
    expect(page.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(page.headers.get('content-length'))).toBe(Buffer.byteLength(await page.text()));
    const head = await fetch(`${gw.base}/plant/inventory?readerId=dock-1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // The same page after another commit is read afresh (a kept answer lasts until the next commit).
    await send('tags', JSON.stringify({ ...read, readAt: '2026-01-01T00:00:05.000Z' }));
    const later = await json(await get('inventory', '?readerId=dock-1'));
    expect(later.items).toMatchObject([{ lastSeen: '2026-01-01T00:00:05.000Z', readCount: 2 }]);
    const invalid = await send('tags', JSON.stringify({ epc: 'not-hex' }));
    expect(invalid.status).toBe(422);
  });

  it('GhostData rows come back as objects, filtered by table', async () => {
    const res = await send('ghost', fixture('ghostdata/tables.json'));
    expect(res.status).toBe(200);
    const view = await json(await get('ghostView'));
    // Newest submission first; within it, the rows in the order they were sent.
    expect(view.items.map((item: { row: { OBJECT_ID: string } }) => item.row.OBJECT_ID)).toEqual([
      'LOC-1',
      'LOC-2',
      'SCN-100',
    ]);
    const { table } = view.items[0];
    const filtered = await json(await get('ghostView', `?table=${table}`));
    expect(filtered.items.every((item: { table: string }) => item.table === table)).toBe(true);
    expect(filtered.items[0]).toEqual({
      eventId: expect.any(String),
      receivedAt: expect.any(String),
      table,
      row: expect.any(Object),
    });
    const mismatch = await send('ghost', JSON.stringify({ T: [{ TN: 'T', CN: 'A;B', DR: [{ c: [1] }] }] }));
    expect(mismatch.status).toBe(422);
    expect((await json(mismatch)).errors[0].path).toBe('/T/0/DR/0/c');
  });

  it('CustomTrigger is stored and filtered by trigger', async () => {
    const res = await send(
      'trigger',
      JSON.stringify({
        trigger: 'door.open',
        source: 'gate-3',
        occurredAt: '2026-02-01T10:00:00Z',
        params: { door: 3 },
      }),
    );
    expect(res.status).toBe(200);
    const bare = { trigger: 'door.close', occurredAt: '2026-02-01T11:00:00+01:00' };
    const closed = await json(await send('trigger', JSON.stringify(bare)));
    // The inspector shows what the client sent; the snapshot the normalized trigger.
    expect((await gw.admin('GET', `/events/${closed.id}`)).body.payload).toEqual(bare);
    const view = await json(await get('triggerView', '?trigger=door.open'));
    expect(view.items).toEqual([
      {
        id: (await json(res)).id ?? expect.any(String),
        receivedAt: expect.any(String),
        trigger: 'door.open',
        source: 'gate-3',
        occurredAt: '2026-02-01T10:00:00.000Z',
        params: { door: 3 },
      },
    ]);
    expect((await send('trigger', JSON.stringify({ trigger: 'x', occurredAt: 'yesterday' }))).status).toBe(422);
  });

  it('EpcisMessage keeps the document as received; EpcisObject splits events with ids and @context', async () => {
    const doc = fixture('epcis/valid/Example_9.6.1-ObjectEvent.jsonld');
    const message = await json(await send('epcisDoc', doc, { 'content-type': 'application/ld+json' }));
    expect(message).toMatchObject({ status: 'processed', result: { eventCount: expect.any(Number) } });
    const docView = await json(await get('epcisDocView'));
    expect(docView.items[0].document).toEqual(JSON.parse(doc));
    const split = await json(await send('epcisEvents', doc));
    expect(split.result.eventIds).toHaveLength(split.result.eventCount);
    const child = await gw.admin('GET', `/events/${split.result.eventIds[0]}`);
    expect(child.body.payload['@context']).toBeDefined();
    expect(child.body.payload.eventID).toEqual(expect.any(String));
    const events = await json(await get('epcisEventView', '?type=ObjectEvent'));
    expect(events.items.length).toBe(split.result.eventCount);
    // The submission's events in the order they were sent (newest submission first).
    expect(events.items.map((item: { id: string }) => item.id)).toEqual(split.result.eventIds);
    const invalid = await send(
      'epcisDoc',
      JSON.stringify({ ...JSON.parse(doc), schemaVersion: undefined, type: 'EpcisDocument' }),
    );
    expect(invalid.status).toBe(422);
    const lenient = await json(
      await send('epcisLenientDoc', JSON.stringify({ ...JSON.parse(doc), type: 'EpcisDocument' })),
    );
    expect(lenient.warnings).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/type' })]));
    const inspected = await gw.admin('GET', `/events/${lenient.id}`);
    expect(inspected.body.payload.type).toBe('EpcisDocument');
  });
});

describe('async processing', () => {
  it('acknowledges with 202, Location and a receipt that ends processed', async () => {
    const res = await send('allAsync', JSON.stringify({ n: 1 }));
    expect(res.status).toBe(202);
    const body = await json(res);
    expect(body).toEqual({ id: expect.any(String), status: 'queued' });
    expect(res.headers.get('location')).toBe(`/GWENDPOINTAPI/plant/allAsync/receipts/${body.id}`);
    const receipt = await settled(res.headers.get('location') as string);
    expect(receipt).toMatchObject({
      id: body.id,
      eventType: 'AllData',
      status: 'processed',
      receivedAt: expect.any(String),
      processedAt: expect.any(String),
    });
  });

  it('processes an event in the transaction that acknowledges it while nothing is queued', async () => {
    // Issue 37: one write instead of a queued row, a claim and an update. The 202 follows the
    // COMMIT, so the event is final before the client hears back, every time; and no queued row
    // was acknowledged on its own (`/_health` counts those as the group commit's `events`).
    const commitStats = async () =>
      ((await json(await fetch(`${gw.base}/_health`))) as { commit: { events: number } }).commit;
    const before = await commitStats();
    for (let i = 0; i < 10; i++) {
      const res = await send('tagsAsync', JSON.stringify({ epc: `3074257BF7194E40000000${String(10 + i)}` }));
      expect(res.status).toBe(202);
      const { id } = await json(res);
      const event = await gw.admin('GET', `/events/${id}`);
      expect(event.body.status).toBe('processed');
      expect(event.body.result).toMatchObject({ reads: 1 });
    }
    expect((await commitStats()).events).toBe(before.events);
    // Rejected at once too, still answered 202 (an async route answers before validating).
    const bad = await send('tagsAsync', JSON.stringify({ epc: 'zz' }));
    expect(bad.status).toBe(202);
    expect((await gw.admin('GET', `/events/${(await json(bad)).id}`)).body.status).toBe('rejected');
  });

  it('replays the 202 of an event processed at once, not its result', async () => {
    const headers = { 'idempotency-key': 'async-at-once' };
    const first = await send('allAsync', '{"n":3}', headers);
    const firstBody = await json(first);
    expect(first.status).toBe(202);
    const repeat = await send('allAsync', '{"n":3}', headers);
    expect(repeat.status).toBe(202);
    expect(await json(repeat)).toEqual(firstBody);
  });

  it('rejects invalid payloads in the background and keeps them', async () => {
    const res = await send('tagsAsync', JSON.stringify({ epc: 'zz' }));
    expect(res.status).toBe(202);
    const receipt = await settled(res.headers.get('location') as string);
    expect(receipt.status).toBe('rejected');
    expect(receipt.errors[0]).toMatchObject({ path: expect.any(String), message: expect.any(String) });
  });

  it('does not show a receipt on another route', async () => {
    const res = await send('allAsync', JSON.stringify({ n: 2 }));
    const { id } = await json(res);
    const other = await fetch(`${gw.base}/plant/tagsAsync/receipts/${id}`);
    expect(other.status).toBe(404);
    expect((await json(other)).code).toBe('receipt_not_found');
  });
});

describe('idempotency', () => {
  it('replays the first answer for a repeated key and refuses the key with another body', async () => {
    const headers = { 'idempotency-key': 'order-42' };
    const first = await send('all', '{"order":42}', headers);
    const firstBody = await json(first);
    const repeat = await send('all', '{"order":42}', headers);
    expect(repeat.status).toBe(first.status);
    expect(await json(repeat)).toEqual(firstBody);
    const count = (await gw.admin('GET', '/events?route=all&limit=1000')).body.items.filter(
      (e: { payload: unknown }) => JSON.stringify(e.payload) === '{"order":42}',
    );
    expect(count).toHaveLength(1);
    const reused = await send('all', '{"order":43}', headers);
    expect(reused.status).toBe(409);
    expect((await json(reused)).code).toBe('idempotency_key_reused');
    expect((await send('all', '{}', { 'idempotency-key': 'k'.repeat(256) })).status).toBe(400);
    const asyncFirst = await send('allAsync', '{"a":1}', { 'idempotency-key': 'async-1' });
    const asyncRepeat = await send('allAsync', '{"a":1}', { 'idempotency-key': 'async-1' });
    expect(asyncRepeat.status).toBe(202);
    expect(await json(asyncRepeat)).toEqual(await json(asyncFirst));
    expect(asyncRepeat.headers.get('location')).toBe(asyncFirst.headers.get('location'));
    const rejected = await send('all', '"scalar"', { 'idempotency-key': 'rejected-1' });
    const rejectedAgain = await send('all', '"scalar"', { 'idempotency-key': 'rejected-1' });
    expect(rejectedAgain.status).toBe(422);
    expect(await json(rejectedAgain)).toEqual(await json(rejected));
  });
});

describe('GET snapshots', () => {
  it('pages newest first with a cursor and refuses unknown parameters', async () => {
    for (let i = 0; i < 5; i++) await send('all', JSON.stringify({ page: i }));
    const first = await json(await get('allView', '?limit=2'));
    expect(first.items).toHaveLength(2);
    expect(first.items[0]).toEqual({
      id: expect.any(String),
      route: 'all',
      receivedAt: expect.any(String),
      principal: 'anonymous',
      payload: expect.anything(),
    });
    expect(first.items[0].id > first.items[1].id).toBe(true);
    const second = await json(await get('allView', `?limit=2&cursor=${first.nextCursor}`));
    expect(second.items[0].id < first.items[1].id).toBe(true);
    for (const query of ['?bogus=1', '?limit=0', '?limit=1001', '?since=yesterday', '?limit=2&limit=3']) {
      const res = await get('allView', query);
      expect(res.status, query).toBe(400);
    }
    const future = await json(await get('allView', `?since=${new Date(Date.now() + 60_000).toISOString()}`));
    expect(future).toEqual({ items: [], nextCursor: null });
  });

  it('shows each answered write to every GET sent after it, while many clients poll the same page', async () => {
    // The kept pages and the shared reads together, end to end. That a poll never joins a read
    // already under way is pinned by test/unit/db/read-rounds.test.ts: here that window is too
    // short to hit.
    const page = async () => (await json(await get('inventory', '?limit=1000'))) as { items: { epc: string }[] };
    let polling = true;
    const pollers = Array.from({ length: 20 }, async () => {
      while (polling) await page();
    });
    try {
      for (let n = 0; n < 15; n++) {
        const epc = `E2801170000002${String(n).padStart(10, '0')}`;
        const read = { epc, readerId: 'poll-test', antenna: 1, rssi: -50, readAt: new Date().toISOString() };
        expect((await send('tags', JSON.stringify([read]))).status).toBe(200);
        const seen = await Promise.all(Array.from({ length: 5 }, page));
        for (const answer of seen) expect(answer.items.map((item) => item.epc)).toContain(epc);
      }
    } finally {
      polling = false;
      await Promise.all(pollers);
    }
  });

  it('refuses a cursor the route did not hand out, rather than starting from the top', async () => {
    const inventoryCursor = Buffer.from(JSON.stringify([Date.now(), 'E2801170'])).toString('base64url');
    for (const [route, bad, good] of [
      ['allView', 'zzz', (await json(await get('allView', '?limit=1'))).nextCursor],
      ['ghostView', '12x', '12'],
      ['inventory', Buffer.from('[1.5,"E2"]').toString('base64url'), inventoryCursor],
      ['inventory', 'not-base64-json', inventoryCursor],
    ] as const) {
      const refused = await get(route, `?cursor=${bad}`);
      expect([refused.status, (await json(refused)).code], `${route} ${bad}`).toEqual([400, 'invalid_query']);
      expect((await get(route, `?cursor=${good}`)).status, `${route} ${good}`).toBe(200);
    }
  });
});

describe('queue depth', () => {
  it('refuses with 503 and Retry-After once maxQueueDepth is reached', async () => {
    const held = await startTestGateway({ processQueue: false });
    try {
      await held.admin('PUT', '/settings', { maxQueueDepth: 2 });
      await held.admin('POST', '/endpoints', {
        name: 'Q',
        baseRoutePath: 'q',
        routes: [{ name: 'qIn', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth', async: true }],
      });
      const post = () =>
        fetch(`${held.base}/q/qIn`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect((await post()).status).toBe(202);
      expect((await post()).status).toBe(202);
      const full = await post();
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await json(full)).code).toBe('overloaded');
      expect((await held.admin('GET', '/status')).body.queueDepth).toBe(2);
    } finally {
      await held.close();
    }
  });
});

import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSelfSigned } from '../../server/tls/certificate';
import { afterEach, describe, expect, it } from 'vitest';
import { Receiver } from '../helpers/receiver';
import { gatewayWithDestination } from '../helpers/destination-rig';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

async function setup(destination: Record<string, unknown> = {}, routes?: Record<string, unknown>[]) {
  const { gw, receiver, destination: created, id } = await gatewayWithDestination(open, destination);
  const endpoint = await gw.admin('POST', '/endpoints', {
    name: 'Dock door 3',
    baseRoutePath: 'dock3',
    routes: routes ?? [
      { name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', destinations: [id] },
      {
        name: 'reads-async',
        eventType: 'UHFTagRead',
        requestType: 'HttpPost',
        authType: 'noauth',
        async: true,
        destinations: [id],
      },
    ],
  });
  expect(endpoint.status).toBe(201);
  return { gw, receiver, destination: created, id };
}

const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();

async function post(gw: TestGateway, path: string, body: unknown): Promise<Response> {
  return fetch(`${gw.base}/dock3/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('destinations: store and forward (SPEC §11)', () => {
  it('delivers each counted read of a sync UHFTagRead, not the suppressed duplicates, with the batch headers', async () => {
    const { gw, receiver } = await setup();
    const res = await post(gw, 'reads', [
      { epc: epc(1), antenna: 1, readerId: 'r1', rssi: -50, readAt: '2026-11-25T10:00:00.000Z' },
      { epc: epc(1), antenna: 1, readerId: 'r1', rssi: -51, readAt: '2026-11-25T10:00:00.100Z' },
      { epc: epc(2), antenna: 2, readerId: 'r1', rssi: -60, readAt: '2026-11-25T10:00:00.200Z' },
    ]);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { id: string };
    await receiver.waitFor((r) => r.items.length >= 2, 10_000);
    expect(receiver.items).toHaveLength(2);
    const [request] = receiver.requests;
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['idempotency-key']).toBe(request?.body.batchId);
    expect(request?.headers['x-gateway-attempt']).toBe('1');
    expect(request?.headers['x-gateway-signature']).toBeUndefined();
    const [first, second] = receiver.items;
    expect(first).toMatchObject({
      eventId: answer.id,
      route: 'reads',
      endpoint: 'Dock door 3',
      eventType: 'UHFTagRead',
      data: {
        epc: epc(1),
        epcUri: expect.stringMatching(/^urn:epc:/),
        readerId: 'r1',
        antenna: 1,
        rssi: -50,
        readAt: '2026-11-25T10:00:00.000Z',
      },
    });
    expect(Object.keys(first?.data ?? {}).sort()).toEqual(['antenna', 'epc', 'epcUri', 'readAt', 'readerId', 'rssi']);
    expect(second?.data).toMatchObject({ epc: epc(2), antenna: 2 });
    expect(first?.id).not.toBe(second?.id);
    expect(Date.parse(String(first?.receivedAt))).not.toBeNaN();
    expect(Date.parse(String(first?.processedAt))).not.toBeNaN();
  });

  it('delivers async events once processed, in the order they finished processing', async () => {
    const { gw, receiver } = await setup({ batchMaxEvents: 7 });
    for (let i = 0; i < 30; i++) {
      const res = await post(gw, 'reads-async', { epc: epc(100 + i), antenna: 1 });
      expect(res.status).toBe(202);
    }
    await receiver.waitFor((r) => r.items.length >= 30, 15_000);
    expect(receiver.items.map((item) => item.data.epc)).toEqual(Array.from({ length: 30 }, (_, i) => epc(100 + i)));
    expect(receiver.requests.every((request) => request.body.events.length <= 7)).toBe(true);
  });

  it('signs an hmac destination with the secret shown once: t=<seconds>,v1=HMAC(secret, t + "." + body)', async () => {
    const { gw, receiver, destination, id } = await setup({ auth: { type: 'hmac' } });
    const secret = destination.secret as string;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const again = await gw.admin('GET', `/destinations/${id}`);
    expect(JSON.stringify(again.body)).not.toContain(secret);
    expect(again.body.auth).toEqual({ type: 'hmac' });
    expect((await post(gw, 'reads', { epc: epc(7), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 1, 10_000);
    const request = receiver.requests[0];
    const header = String(request?.headers['x-gateway-signature']);
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
    expect(match).not.toBeNull();
    const expected = createHmac('sha256', secret).update(`${match?.[1]}.${request?.raw}`).digest('hex');
    expect(match?.[2]).toBe(expected);

    const regenerated = await gw.admin('POST', `/destinations/${id}/regenerate`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(regenerated.body.secret).not.toBe(secret);
  });

  it('sends Basic and bearer credentials and never answers them back', async () => {
    const { gw, receiver, id } = await setup({ auth: { type: 'basic', username: 'wms', password: 's3cret-pass' } });
    const shown = await gw.admin('GET', `/destinations/${id}`);
    expect(shown.body.auth).toEqual({ type: 'basic', username: 'wms' });
    expect(JSON.stringify(shown.body)).not.toContain('s3cret-pass');
    expect((await post(gw, 'reads', { epc: epc(8), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 1, 10_000);
    expect(receiver.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('wms:s3cret-pass').toString('base64')}`,
    );

    // An update that leaves the token out keeps it (same type); the answer never carries it.
    const bearer = await gw.admin('PUT', `/destinations/${id}`, {
      name: 'WMS',
      url: receiver.url,
      batchMaxWaitMs: 0,
      auth: { type: 'bearer', token: 'tok-123' },
    });
    expect(bearer.status).toBe(200);
    expect(JSON.stringify(bearer.body)).not.toContain('tok-123');
    const kept = await gw.admin('PUT', `/destinations/${id}`, {
      name: 'WMS',
      url: receiver.url,
      batchMaxWaitMs: 0,
      auth: { type: 'bearer' },
      headers: { 'X-Site': 'dock' },
    });
    expect(kept.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await post(gw, 'reads', { epc: epc(9), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 2, 10_000);
    expect(receiver.requests[1]?.headers.authorization).toBe('Bearer tok-123');
    expect(receiver.requests[1]?.headers['x-site']).toBe('dock');
  });

  it('retries a 500 with the same batch, and dead-letters a 400 until it is retried by hand', async () => {
    const { gw, receiver, id } = await setup();
    receiver.reply = (_request, index) => ({ status: index === 0 ? 500 : 200 });
    expect((await post(gw, 'reads', { epc: epc(20), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 2, 10_000);
    const [failed, retried] = receiver.requests;
    expect(retried?.body.batchId).toBe(failed?.body.batchId);
    expect(retried?.raw).toBe(failed?.raw);
    expect(retried?.headers['x-gateway-attempt']).toBe('2');
    expect((retried?.at ?? 0) - (failed?.at ?? 0)).toBeGreaterThanOrEqual(700);

    receiver.reply = () => ({ status: 400 });
    expect((await post(gw, 'reads', { epc: epc(21), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 3, 10_000);
    let dead = await gw.admin('GET', `/destinations/${id}/dead-letters`);
    for (let i = 0; i < 50 && dead.body.items.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      dead = await gw.admin('GET', `/destinations/${id}/dead-letters`);
    }
    expect(dead.status).toBe(200);
    expect(dead.body.items).toHaveLength(1);
    expect(dead.body.items[0]).toMatchObject({
      batchId: receiver.requests[2]?.body.batchId,
      itemCount: 1,
      attempts: 1,
      reason: 'http_status',
      lastStatus: 400,
    });
    expect(dead.body.nextCursor).toBeNull();
    const status = await gw.admin('GET', `/destinations/${id}`);
    expect(status.body.status).toMatchObject({ state: 'failing', backlog: 0 });
    expect(status.body.status.lastError).toMatchObject({ status: 400 });

    receiver.reply = () => ({ status: 200 });
    const retry = await gw.admin('POST', `/destinations/${id}/dead-letters/retry`, { ids: [dead.body.items[0].id] });
    expect(retry.status).toBe(202);
    await receiver.waitFor((r) => r.requests.length >= 4, 10_000);
    expect(receiver.requests[3]?.body.batchId).toBe(receiver.requests[2]?.body.batchId);
    expect(receiver.requests[3]?.body.events[0]?.data.epc).toBe(epc(21));
    const after = await gw.admin('GET', `/destinations/${id}/dead-letters`);
    expect(after.body.items).toHaveLength(0);
    const audit = await gw.admin('GET', '/audit');
    expect(audit.body.items.map((entry: { action: string }) => entry.action)).toContain('retry');
  });

  it('sends a dead letter retried while batches go back to back next, ahead of the backlog', async () => {
    const { gw, receiver, id } = await setup({ batchMaxEvents: 1 });
    receiver.reply = (_request, index) => (index === 0 ? { status: 400 } : { status: 200, delayMs: 150 });
    expect((await post(gw, 'reads', { epc: epc(100), antenna: 1 })).status).toBe(200);
    let dead = await gw.admin('GET', `/destinations/${id}/dead-letters`);
    for (let i = 0; i < 50 && dead.body.items.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      dead = await gw.admin('GET', `/destinations/${id}/dead-letters`);
    }
    expect(dead.body.items).toHaveLength(1);
    // A backlog of 20 one-item batches, each answered after 150 ms: sent back to back.
    for (let i = 1; i <= 20; i++) expect((await post(gw, 'reads', { epc: epc(100 + i), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 4, 10_000);
    const retry = await gw.admin('POST', `/destinations/${id}/dead-letters/retry`, { ids: [dead.body.items[0].id] });
    expect(retry.status).toBe(202);
    const seenAtRetry = receiver.requests.length;
    // The backlog was still being sent when the dead letter came back (else this proves nothing).
    expect(seenAtRetry).toBeLessThan(21);
    await receiver.waitFor((r) => r.items.filter((item) => item.data.epc === epc(100)).length >= 2, 10_000);
    const resentAt = receiver.requests.findLastIndex((request) => request.body.events[0]?.data.epc === epc(100));
    // Only the batch in flight when the retry was answered may go first.
    expect(resentAt).toBeLessThanOrEqual(seenAtRetry + 1);
    await receiver.waitFor((r) => r.items.length >= 22, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Sent again once, as the same batch (same key), and nothing else twice.
    const resends = receiver.requests.filter((request) => request.body.events[0]?.data.epc === epc(100));
    expect(resends.map((request) => request.body.batchId)).toEqual([
      resends[0]?.body.batchId,
      resends[0]?.body.batchId,
    ]);
    expect(resends[1]?.headers['idempotency-key']).toBe(resends[0]?.body.batchId);
    expect(receiver.items).toHaveLength(22);
    const backlog = receiver.items.map((item) => item.data.epc).filter((value) => value !== epc(100));
    expect(backlog).toEqual(Array.from({ length: 20 }, (_, i) => epc(101 + i)));
  });

  it('holds a partial batch for batchMaxWaitMs and sends a full one at once', async () => {
    const { gw, receiver } = await setup({ batchMaxEvents: 3, batchMaxWaitMs: 1500 });
    const postedAt = Date.now();
    expect((await post(gw, 'reads', { epc: epc(60), antenna: 1 })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(receiver.requests).toHaveLength(0);
    await receiver.waitFor((r) => r.requests.length >= 1, 5_000);
    expect((receiver.requests[0]?.at ?? 0) - postedAt).toBeGreaterThanOrEqual(1400);
    expect(receiver.requests[0]?.body.events.map((event) => event.data.epc)).toEqual([epc(60)]);

    const fullAt = Date.now();
    for (const n of [61, 62, 63]) expect((await post(gw, 'reads', { epc: epc(n), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 2, 5_000);
    expect((receiver.requests[1]?.at ?? 0) - fullAt).toBeLessThan(1400);
    expect(receiver.requests[1]?.body.events.map((event) => event.data.epc)).toEqual([epc(61), epc(62), epc(63)]);
  });

  it('honours Retry-After on a 429', async () => {
    const { gw, receiver } = await setup();
    receiver.reply = (_request, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 };
    expect((await post(gw, 'reads', { epc: epc(30), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 2, 10_000);
    expect((receiver.requests[1]?.at ?? 0) - (receiver.requests[0]?.at ?? 0)).toBeGreaterThanOrEqual(2900);
  });

  it('discards dead letters, one by one or all', async () => {
    const { gw, receiver, id } = await setup({ batchMaxEvents: 1 });
    receiver.reply = () => ({ status: 422 });
    for (let i = 0; i < 3; i++) expect((await post(gw, 'reads', { epc: epc(40 + i), antenna: 1 })).status).toBe(200);
    let dead = await gw.admin('GET', `/destinations/${id}/dead-letters`);
    for (let i = 0; i < 100 && dead.body.items.length < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      dead = await gw.admin('GET', `/destinations/${id}/dead-letters`);
    }
    expect(dead.body.items).toHaveLength(3);
    const page = await gw.admin('GET', `/destinations/${id}/dead-letters?limit=2`);
    expect(page.body.items).toHaveLength(2);
    const rest = await gw.admin('GET', `/destinations/${id}/dead-letters?limit=2&cursor=${page.body.nextCursor}`);
    expect(rest.body.items).toHaveLength(1);
    expect(
      (await gw.admin('DELETE', `/destinations/${id}/dead-letters`, { ids: [dead.body.items[0].id] })).status,
    ).toBe(204);
    expect((await gw.admin('GET', `/destinations/${id}/dead-letters`)).body.items).toHaveLength(2);
    expect((await gw.admin('DELETE', `/destinations/${id}/dead-letters`)).status).toBe(204);
    expect((await gw.admin('GET', `/destinations/${id}/dead-letters`)).body.items).toHaveLength(0);
  });
});

describe('delivery keeps pace (SPEC §11, issue 37)', () => {
  it('cuts the next full batches while one is in flight, and sends them in order once it is answered', async () => {
    const { gw, receiver, id } = await setup({ batchMaxEvents: 5 });
    const heldMs = 6000;
    receiver.reply = (_request, index) => ({ status: 200, delayMs: index === 0 ? heldMs : 0 });
    expect((await post(gw, 'reads', { epc: epc(300), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length === 1, 5_000);
    const answeredAt = (receiver.requests[0]?.at ?? 0) + heldMs;
    // While the first batch waits for its answer: 12 reads, two full batches and two over.
    for (let i = 1; i <= 12; i++) expect((await post(gw, 'reads', { epc: epc(300 + i), antenna: 1 })).status).toBe(200);
    const openBatches = async () => {
      const rows: { item_count: unknown }[] = await gw.gateway.db
        .knex('delivery_batches')
        .where({ destination_id: id, state: 'open' })
        .orderBy('first_seq')
        .select('item_count');
      return rows.map((row) => Number(row.item_count));
    };
    let open = await openBatches();
    while (open.length < 3 && Date.now() < answeredAt - 1000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      open = await openBatches();
    }
    // Still unanswered, the first batch has the next two behind it, cut full; the two over wait.
    expect(receiver.requests).toHaveLength(1);
    expect(Date.now()).toBeLessThan(answeredAt);
    expect(open).toEqual([1, 5, 5]);

    await receiver.waitFor((r) => r.items.length >= 13, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Once it is answered the cut ones go at once, in order, each once; the rest as a partial batch.
    expect(receiver.requests.map((request) => request.body.events.length)).toEqual([1, 5, 5, 2]);
    expect(receiver.items.map((item) => item.data.epc)).toEqual(Array.from({ length: 13 }, (_, i) => epc(300 + i)));
    expect(new Set(receiver.requests.map((request) => request.body.batchId)).size).toBe(4);
  });
});

describe('destinations: what each event type sends (SPEC §11)', () => {
  it('GhostData one item per row, EPCIS events each as stored, the trigger, the AllData document', async () => {
    const route = (name: string, eventType: string) => ({
      name,
      eventType,
      requestType: 'HttpPost',
      authType: 'noauth',
    });
    const { gw, receiver, id } = await setup({}, [route('ghost', 'GhostData')]);
    await gw.admin('PUT', `/endpoints/${(await gw.admin('GET', '/endpoints')).body[0].id}`, {
      name: 'Dock door 3',
      baseRoutePath: 'dock3',
      routes: ['GhostData', 'EpcisMessage', 'EpcisObject', 'CustomTrigger', 'AllData'].map((type, i) => ({
        ...route(['ghost', 'message', 'object', 'trigger', 'all'][i] ?? type, type),
        destinations: [id],
      })),
    });
    const fixtures = join(import.meta.dirname, '../fixtures');
    const ghost = readFileSync(join(fixtures, 'ghostdata/tables.json'), 'utf8');
    const epcis = readFileSync(join(fixtures, 'epcis/valid/Example_9.6.1-ObjectEvent.jsonld'), 'utf8');
    const send = async (path: string, body: string) =>
      fetch(`${gw.base}/dock3/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect((await send('ghost', ghost)).status).toBe(200);
    const message = await send('message', epcis);
    expect(message.status).toBe(200);
    const object = await send('object', epcis);
    expect(object.status).toBe(200);
    const objectAnswer = (await object.json()) as { result: { eventIds: string[] } };
    const trigger = { trigger: 'door.open', occurredAt: '2026-02-01T10:00:00Z' };
    expect((await send('trigger', JSON.stringify(trigger))).status).toBe(200);
    expect((await send('all', '[1, {"a": "b"}]')).status).toBe(200);

    const eventCount = objectAnswer.result.eventIds.length;
    await receiver.waitFor((r) => r.items.length >= 3 + 1 + eventCount + 2, 10_000);
    const byRoute = (name: string) => receiver.items.filter((item) => item.route === name);
    expect(byRoute('ghost').map((item) => item.data)).toEqual([
      { table: 'T_LOCATION', row: expect.anything() },
      { table: 'T_LOCATION', row: expect.anything() },
      { table: 'T_SCAN', row: expect.anything() },
    ]);
    expect(byRoute('message')).toHaveLength(1);
    expect(byRoute('message')[0]?.data).toEqual(JSON.parse(epcis));
    expect(byRoute('object').map((item) => item.eventId)).toEqual(objectAnswer.result.eventIds);
    expect(byRoute('object')[0]?.data.type).toBe('ObjectEvent');
    expect(byRoute('trigger')[0]?.data).toMatchObject({ trigger: 'door.open' });
    expect(byRoute('all')[0]?.data).toEqual([1, { a: 'b' }]);
  });

  it('sends nothing for a rejected event, and a paused destination collects without sending', async () => {
    const { gw, receiver, id } = await setup();
    expect((await post(gw, 'reads', { nothing: true })).status).toBe(422);
    await gw.admin('PUT', `/destinations/${id}`, { name: 'WMS', url: receiver.url, batchMaxWaitMs: 0, active: false });
    expect((await post(gw, 'reads', { epc: epc(60), antenna: 1 })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.requests).toHaveLength(0);
    const paused = await gw.admin('GET', `/destinations/${id}`);
    expect(paused.body.status).toMatchObject({ state: 'paused', backlog: 1 });
    expect((await gw.admin('GET', '/status')).body.destinations).toEqual([
      {
        id,
        name: 'WMS',
        state: 'paused',
        backlog: 1,
        oldestPendingAt: expect.any(String),
        lastError: null,
        routeCount: 2,
      },
    ]);
    await gw.admin('PUT', `/destinations/${id}`, { name: 'WMS', url: receiver.url, batchMaxWaitMs: 0, active: true });
    await receiver.waitFor((r) => r.items.length >= 1, 10_000);
    expect(receiver.items.map((item) => item.data.epc)).toEqual([epc(60)]);
  });
});

describe('the outbox bound (SPEC §11, §13)', () => {
  it('dead-letters items past maxOutboxItems as outbox_full, never refusing intake, and /_health says so', async () => {
    const { gw, receiver, id } = await setup({ active: false });
    expect((await gw.admin('PUT', '/settings', { maxOutboxItems: 1000 })).status).toBe(200);
    const reads = Array.from({ length: 1200 }, (_, i) => ({ epc: epc(1000 + i), antenna: 1 }));
    const res = await post(gw, 'reads', reads);
    expect(res.status).toBe(200);
    const status = await gw.admin('GET', `/destinations/${id}`);
    expect(status.body.status.backlog).toBe(1000);
    const dead = await gw.admin('GET', `/destinations/${id}/dead-letters`);
    expect(dead.body.items).toEqual([expect.objectContaining({ reason: 'outbox_full', itemCount: 200, attempts: 0 })]);
    const health = await fetch(`${gw.base}/_health`);
    expect(health.status).toBe(503);
    const body = (await health.json()) as { reasons: { code: string }[] };
    expect(body.reasons.map((reason) => reason.code)).toContain('outbox_full');

    // Retried by hand, they go back to the head of the outbox: out first, then the rest in order.
    const retried = await gw.admin('POST', `/destinations/${id}/dead-letters/retry`, {});
    expect(retried).toMatchObject({ status: 202, body: { retried: 1 } });
    await gw.admin('PUT', `/destinations/${id}`, {
      name: 'WMS',
      url: receiver.url,
      batchMaxWaitMs: 0,
      batchMaxEvents: 1000,
    });
    await receiver.waitFor((r) => r.items.length >= 1200, 15_000);
    const sent = receiver.items.map((item) => item.data.epc);
    expect(sent).toEqual([
      ...Array.from({ length: 200 }, (_, i) => epc(2000 + i)),
      ...Array.from({ length: 1000 }, (_, i) => epc(1000 + i)),
    ]);
  });
});

describe('destinations over HTTPS (SPEC §11)', () => {
  it('verifies the receiver against a custom CA; an unknown certificate fails as tls until verification is off', async () => {
    const material = await generateSelfSigned();
    const receiver = await Receiver.start({ key: material.privateKeyPem, cert: material.certificatePem });
    open.push(receiver);
    const gw = await startTestGateway();
    open.push(gw);
    const trusted = await gw.admin('POST', '/destinations', {
      name: 'Trusted',
      url: receiver.url,
      batchMaxWaitMs: 0,
      caCertificatePem: material.certificatePem,
    });
    expect(trusted.status).toBe(201);
    const untrusted = await gw.admin('POST', '/destinations', {
      name: 'Untrusted',
      url: receiver.url,
      batchMaxWaitMs: 0,
    });
    await gw.admin('POST', '/endpoints', {
      name: 'Dock door 3',
      baseRoutePath: 'dock3',
      routes: [
        {
          name: 'reads',
          eventType: 'UHFTagRead',
          requestType: 'HttpPost',
          authType: 'noauth',
          destinations: [trusted.body.id, untrusted.body.id],
        },
      ],
    });
    expect((await post(gw, 'reads', { epc: epc(70), antenna: 1 })).status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.requests).toHaveLength(1);
    let refused = await gw.admin('GET', `/destinations/${untrusted.body.id}`);
    for (let i = 0; i < 50 && refused.body.status.lastError === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      refused = await gw.admin('GET', `/destinations/${untrusted.body.id}`);
    }
    expect(refused.body.status.state).toBe('retrying');
    expect(refused.body.status.lastError.message).toMatch(/^TLS: /);
    const metrics = await (await fetch(`${gw.base}/_metrics`)).text();
    expect(metrics).toContain('gateway_destination_failures_total{destination="Untrusted",reason="tls"}');

    await gw.admin('PUT', `/destinations/${untrusted.body.id}`, {
      name: 'Untrusted',
      url: receiver.url,
      batchMaxWaitMs: 0,
      tlsVerify: false,
    });
    await receiver.waitFor((r) => r.requests.length >= 2, 10_000);
  });
});

describe('destinations: the resource (SPEC §11)', () => {
  it('answers defaults, validates fields, refuses a taken name and a destination in use', async () => {
    const gw = await startTestGateway();
    open.push(gw);
    const created = await gw.admin('POST', '/destinations', { name: 'ERP', url: 'https://erp.example/in' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'ERP',
      kind: 'http',
      url: 'https://erp.example/in',
      headers: {},
      auth: { type: 'none' },
      timeoutMs: 10000,
      batchMaxEvents: 100,
      batchMaxWaitMs: 1000,
      maxRetryAgeSeconds: 604800,
      tlsVerify: true,
      caCertificatePem: null,
      active: true,
      status: { state: 'healthy', backlog: 0, oldestPendingAt: null, deliveredLastMinute: 0, lastError: null },
    });
    expect(created.body.secret).toBeUndefined();
    expect(Date.parse(created.body.createdDate)).not.toBeNaN();

    const bad = await gw.admin('POST', '/destinations', {
      name: '',
      url: 'ftp://x',
      timeoutMs: 999,
      batchMaxEvents: 1001,
      batchMaxWaitMs: -1,
      maxRetryAgeSeconds: 59,
      headers: { 'Content-Type': 'text/plain', 'Idempotency-Key': 'x', Host: 'h', 'Content-Length': '1' },
      auth: { type: 'basic' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    const paths = bad.body.errors.map((error: { path: string }) => error.path).sort();
    expect(paths).toEqual(
      [
        '/name',
        '/url',
        '/timeoutMs',
        '/batchMaxEvents',
        '/batchMaxWaitMs',
        '/maxRetryAgeSeconds',
        '/headers/Content-Type',
        '/headers/Idempotency-Key',
        '/headers/Host',
        '/headers/Content-Length',
        '/auth/username',
      ].sort(),
    );
    const noPassword = await gw.admin('POST', '/destinations', {
      name: 'B',
      url: 'http://b.example',
      auth: { type: 'basic', username: 'u' },
    });
    expect(noPassword.status).toBe(400);

    const taken = await gw.admin('POST', '/destinations', { name: 'erp', url: 'http://other.example' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('destination_name_taken');

    const getRoute = await gw.admin('POST', '/endpoints', {
      name: 'E',
      baseRoutePath: 'e',
      routes: [
        {
          name: 'g',
          eventType: 'UHFTagRead',
          requestType: 'HttpGet',
          authType: 'noauth',
          destinations: [created.body.id],
        },
      ],
    });
    expect(getRoute.status).toBe(400);
    expect(getRoute.body.errors[0].path).toBe('/routes/0/destinations');
    const unknown = await gw.admin('POST', '/endpoints', {
      name: 'E',
      baseRoutePath: 'e',
      routes: [
        { name: 'p', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', destinations: [9999] },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].path).toBe('/routes/0/destinations/0');
    const endpoint = await gw.admin('POST', '/endpoints', {
      name: 'E',
      baseRoutePath: 'e',
      routes: [
        {
          name: 'p',
          eventType: 'UHFTagRead',
          requestType: 'HttpPost',
          authType: 'noauth',
          destinations: [created.body.id],
        },
      ],
    });
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.routes[0].destinations).toEqual([created.body.id]);
    const routeDefault = await gw.admin('POST', '/endpoints', {
      name: 'F',
      baseRoutePath: 'f',
      routes: [{ name: 'q', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' }],
    });
    expect(routeDefault.body.routes[0].destinations).toEqual([]);

    const inUse = await gw.admin('DELETE', `/destinations/${created.body.id}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.code).toBe('destination_in_use');
    expect(inUse.body.references).toEqual([{ kind: 'route', id: endpoint.body.routes[0].id, name: 'p' }]);
    expect((await gw.admin('DELETE', `/endpoints/${endpoint.body.id}`)).status).toBe(204);
    expect((await gw.admin('DELETE', `/destinations/${created.body.id}`)).status).toBe(204);
    expect((await gw.admin('GET', `/destinations/${created.body.id}`)).status).toBe(404);

    const audit = await gw.admin('GET', '/audit');
    const entries = audit.body.items.filter((entry: { resource: string }) => entry.resource === 'destinations');
    expect(entries.map((entry: { action: string }) => entry.action).sort()).toEqual(['create', 'delete']);
    const status = await gw.admin('GET', '/status');
    expect(status.body.destinations).toEqual([]);
  });
});

describe('destinations in backups (SPEC §11)', () => {
  it('restores destinations with their credential and route links; a kept destination keeps its outbox', async () => {
    const {
      gw: source,
      receiver,
      id,
    } = await setup({ auth: { type: 'basic', username: 'wms', password: 'wms-pass-1' } });
    const file = await source.gateway.handlers.exportBackup({ passphrase: 'correct horse battery' }, { actor: 'cli' });
    const plain = JSON.stringify(file);
    expect(plain).not.toContain('wms-pass-1');

    const target = await startTestGateway();
    open.push(target);
    const dry = await target.admin('POST', '/backup/import', {
      file: file.data,
      passphrase: 'correct horse battery',
      dryRun: true,
    });
    expect(dry.status).toBe(200);
    expect(dry.body.changes.destinations).toEqual({ added: ['WMS'], changed: [], removed: [] });
    const applied = await target.admin('POST', '/backup/import', {
      file: file.data,
      passphrase: 'correct horse battery',
    });
    expect(applied.status).toBe(200);

    const [restored] = (await target.admin('GET', '/destinations')).body;
    expect(restored).toMatchObject({ name: 'WMS', url: receiver.url, auth: { type: 'basic', username: 'wms' } });
    const endpoints = (await target.admin('GET', '/endpoints')).body;
    expect(endpoints[0].routes.map((route: { destinations: number[] }) => route.destinations)).toEqual([
      [restored.id],
      [restored.id],
    ]);
    // The restored credential is the one that is sent.
    const res = await fetch(`${target.base}/dock3/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ epc: epc(500), antenna: 1 }),
    });
    expect(res.status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 1, 10_000);
    expect(receiver.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('wms:wms-pass-1').toString('base64')}`,
    );

    // Importing into the source itself keeps the destination's id (and so its outbox).
    const again = await source.admin('POST', '/backup/import', {
      file: file.data,
      passphrase: 'correct horse battery',
    });
    expect(again.status).toBe(200);
    expect((await source.admin('GET', '/destinations')).body[0].id).toBe(id);
  });
});

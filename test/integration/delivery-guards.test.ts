import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { outboxRepo } from '../../server/repositories/outbox.repo';
import { dockDeliveringTo, Receiver } from '../helpers/receiver';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (open.length > 0) await open.pop()?.close();
});

const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function gateway(): Promise<TestGateway> {
  const gw = await startTestGateway();
  open.push(gw);
  return gw;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(50);
  }
}

/**
 * A reverse proxy in front of the gateway, as a site's load balancer would be: it forwards every
 * request, headers and body, so the gateway sees no local address in the destination's URL.
 */
async function proxyTo(port: number): Promise<{ url: string; statuses: number[]; close(): Promise<void> }> {
  const statuses: number[] = [];
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        statuses.push(answer.statusCode ?? 0);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxyPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    statuses,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('delivery loops (issue 38)', () => {
  it('refuses, 400 destination_loop, an active destination whose URL leads to its own data routes', async () => {
    const gw = await gateway();
    const port = gw.server.port;
    for (const url of [
      `${gw.base}/dock/reads`,
      `http://localhost:${port}/GWENDPOINTAPI/dock/reads`,
      `http://127.0.0.1:${port}/GWENDPOINTAPI`,
    ]) {
      const refused = await gw.admin('POST', '/destinations', { name: 'Self', url });
      expect(refused.status, url).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'destination_loop',
        errors: [{ path: '/url', message: expect.stringContaining('this gateway itself') }],
      });
    }
    // Another path of the gateway answers 404 (a dead letter, not a loop); another port or address is another server.
    const others = [
      `http://127.0.0.1:${port}/elsewhere`,
      `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}/GWENDPOINTAPI/dock/reads`,
      `http://127.0.0.2:${port}/GWENDPOINTAPI/dock/reads`,
    ];
    for (const [index, url] of others.entries()) {
      const name = `Other ${index}`;
      const created = await gw.admin('POST', '/destinations', { name, url, active: false });
      expect(created.status, url).toBe(201);
      expect((await gw.admin('PUT', `/destinations/${created.body.id}`, { name, url })).status, url).toBe(200);
    }
    // A paused one is taken (it sends nothing), and refused once it is switched on.
    const paused = await gw.admin('POST', '/destinations', {
      name: 'Later',
      url: `${gw.base}/dock/reads`,
      active: false,
    });
    expect(paused.status).toBe(201);
    const resumed = await gw.admin('PUT', `/destinations/${paused.body.id}`, {
      name: 'Later',
      url: `${gw.base}/dock/reads`,
    });
    expect(resumed).toMatchObject({ status: 400, body: { code: 'destination_loop' } });
    // The gateway's own mark cannot be set (or doubled) by a destination's headers.
    const marked = await gw.admin('POST', '/destinations', {
      name: 'Marked',
      url: 'http://192.0.2.1/ingest',
      headers: { 'X-Gateway-Id': 'x' },
    });
    expect(marked).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
  });

  it('marks deliveries with X-Gateway-Id and refuses its own with 508 before reading the body', async () => {
    const gw = await gateway();
    const receiver = await Receiver.start();
    open.push(receiver);
    const destination = await gw.admin('POST', '/destinations', { name: 'WMS', url: receiver.url, batchMaxWaitMs: 0 });
    await gw.admin('POST', '/endpoints', dockDeliveringTo([destination.body.id]));
    const sent = await fetch(`${gw.base}/dock/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ epc: epc(1), antenna: 1 }),
    });
    expect(sent.status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 1, 10_000);
    const mark = String(receiver.requests[0]?.headers['x-gateway-id']);
    expect(mark).toMatch(/^[0-9a-f-]{36}$/);

    const replay = (id: string) =>
      fetch(`${gw.base}/dock/reads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-id': id },
        body: JSON.stringify({ epc: epc(2), antenna: 1 }),
      });
    const own = await replay(mark);
    expect(own.status).toBe(508);
    expect(await own.json()).toMatchObject({ code: 'loop_detected' });
    // Another gateway's delivery is welcome.
    expect((await replay('5f0c2d0e-8a1b-4c3d-9e4f-0a1b2c3d4e5f')).status).toBe(200);
    const stored = (await gw.admin('GET', '/events?limit=10')).body.items as { id: string }[];
    expect(stored).toHaveLength(2);
  });

  it('a destination that leads back through a proxy stays one event, its attempts refused with 508', async () => {
    const gw = await gateway();
    const proxy = await proxyTo(gw.server.port);
    open.push(proxy);
    // The save check cannot see through the proxy: only the mark on the delivery can stop it.
    const destination = await gw.admin('POST', '/destinations', {
      name: 'Loop',
      url: `${proxy.url}/GWENDPOINTAPI/loop/all`,
      batchMaxWaitMs: 0,
    });
    expect(destination.status).toBe(201);
    const endpoint = await gw.admin('POST', '/endpoints', {
      name: 'Loop',
      baseRoutePath: 'loop',
      routes: [
        {
          name: 'all',
          eventType: 'AllData',
          requestType: 'HttpPost',
          authType: 'noauth',
          destinations: [destination.body.id],
        },
      ],
    });
    expect(endpoint.status).toBe(201);
    const first = await fetch(`${gw.base}/loop/all`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hello: 'loop' }),
    });
    expect(first.status).toBe(200);
    // The first retries come after 1 s and 2 s: time for a loop to have doubled a few times.
    await until(
      () => Promise.resolve(proxy.statuses.length),
      (count) => count >= 3,
      8_000,
    );
    expect(proxy.statuses.length).toBeGreaterThanOrEqual(2);
    expect(new Set(proxy.statuses)).toEqual(new Set([508]));
    const stored = (await gw.admin('GET', '/events?limit=100')).body.items as unknown[];
    expect(stored).toHaveLength(1);
    const status = (await gw.admin('GET', `/destinations/${destination.body.id}`)).body.status;
    expect(status.lastError).toMatchObject({ status: 508, message: 'HTTP 508' });
  });
});

describe('a delivery loop failing inside the gateway (issue 38)', () => {
  it('makes the destination failing with that error, on its status and in /_health, until it runs again', async () => {
    const gw = await gateway();
    const receiver = await Receiver.start();
    open.push(receiver);
    const destination = await gw.admin('POST', '/destinations', { name: 'WMS', url: receiver.url, batchMaxWaitMs: 0 });
    const id = destination.body.id as number;
    await gw.admin('POST', '/endpoints', dockDeliveringTo([id]));
    // The disk fills up under the delivery loop: its cut (a read in a write transaction) fails.
    const full = Object.assign(
      new Error('select `seq` from `outbox_items` where `destination_id` = 1 - SQLITE_FULL: database or disk is full'),
      { code: 'SQLITE_FULL', errno: 13 },
    );
    const waiting = vi.spyOn(outboxRepo, 'waiting').mockRejectedValue(full);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${gw.base}/dock/reads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ epc: epc(10 + i), antenna: 1 }),
      });
      expect(res.status).toBe(200);
    }
    const failing = await until(
      async () => (await gw.admin('GET', `/destinations/${id}`)).body.status,
      (status) => status.state !== 'healthy',
      5_000,
    );
    expect(waiting).toHaveBeenCalled();
    expect(failing).toMatchObject({
      state: 'failing',
      backlog: 3,
      lastError: { status: null, message: expect.stringContaining('SQLITE_FULL: database or disk is full') },
    });
    // The statement Knex puts in front (it may carry the items' data) is not shown.
    expect(failing.lastError.message).not.toContain('outbox_items');
    const listed = (await gw.admin('GET', '/destinations')).body[0].status;
    expect(listed.state).toBe('failing');
    const health = await fetch(`${gw.base}/_health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      status: 'degraded',
      reasons: expect.arrayContaining([
        { code: 'delivery_failing', message: expect.stringMatching(/"WMS".*SQLITE_FULL/) },
      ]),
    });

    // Room again: the next step goes through, the backlog is sent, the state and /_health recover.
    waiting.mockRestore();
    await fetch(`${gw.base}/dock/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ epc: epc(20), antenna: 1 }),
    });
    await receiver.waitFor((r) => r.items.length >= 4, 10_000);
    const healthy = await until(
      async () => (await gw.admin('GET', `/destinations/${id}`)).body.status,
      (status) => status.state === 'healthy' && status.backlog === 0,
      5_000,
    );
    expect(healthy.state).toBe('healthy');
    expect((await fetch(`${gw.base}/_health`)).status).toBe(200);
  });
});

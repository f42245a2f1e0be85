import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { dockDeliveringTo } from '../helpers/receiver';
import { gatewayWithDestination } from '../helpers/destination-rig';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

async function setup(destination: Record<string, unknown> = {}) {
  const rig = await gatewayWithDestination(open, destination);
  return { ...rig, secret: rig.destination.secret as string | undefined };
}

const read = (n: number) => ({
  epc: (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase(),
  antenna: 1,
  readerId: 'r1',
  rssi: -50,
  readAt: '2026-11-25T10:00:00.000Z',
});

/** Issue 40 item 6: what a destination tells about itself, and a technician's two buttons. */
describe('destinations explain themselves (issue 40)', () => {
  it('names the routes that send to a destination; a new one has none', async () => {
    const { gw, id } = await setup();
    expect((await gw.admin('GET', `/destinations/${id}`)).body.routes).toEqual([]);
    expect((await gw.admin('GET', '/status')).body.destinations[0]).toMatchObject({ id, routeCount: 0 });
    expect((await gw.admin('POST', '/endpoints', dockDeliveringTo([id]))).status).toBe(201);
    const listed = await gw.admin('GET', '/destinations');
    expect(listed.body[0]).toMatchObject({ routes: ['reads'], status: { nextAttemptAt: null } });
    expect((await gw.admin('GET', '/status')).body.destinations[0]).toMatchObject({ id, routeCount: 1 });
  });

  it('sends a signed, marked test batch the receiver can recognize, shows its answer, and keeps it out of the outbox', async () => {
    const { gw, receiver, id, secret } = await setup({ auth: { type: 'hmac' }, headers: { 'X-Site': 'dock-3' } });
    receiver.reply = () => ({ status: 202, body: '{"accepted":"test batch"}' });
    const result = await gw.admin('POST', `/destinations/${id}/test`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      ok: true,
      status: 202,
      message: 'HTTP 202',
      answer: '{"accepted":"test batch"}',
    });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    // Marked twice: a header, and `test: true` on the batch and on its one item.
    expect(request?.headers['x-gateway-test']).toBe('1');
    expect(request?.body).toMatchObject({ batchId: result.body.batchId, test: true });
    expect(request?.body.events).toHaveLength(1);
    expect(request?.body.events[0]).toMatchObject({
      test: true,
      route: null,
      endpoint: null,
      eventType: 'CustomTrigger',
      data: { trigger: 'gateway.test', params: { test: true } },
    });
    // Sent as a delivery is: its headers, its signature over the raw body, the destination's own headers.
    expect(request?.headers['idempotency-key']).toBe(result.body.batchId);
    expect(request?.headers['x-gateway-attempt']).toBe('1');
    expect(request?.headers['x-site']).toBe('dock-3');
    const [t, v1] = String(request?.headers['x-gateway-signature']).split(',');
    const unix = t?.slice(2) ?? '';
    expect(v1).toBe(
      `v1=${createHmac('sha256', secret ?? '')
        .update(`${unix}.${request?.raw}`)
        .digest('hex')}`,
    );

    // Not in the outbox: no backlog, no second attempt, no dead letter, the state untouched.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.requests).toHaveLength(1);
    const after = await gw.admin('GET', `/destinations/${id}`);
    expect(after.body.status).toMatchObject({ state: 'healthy', backlog: 0, lastError: null });
    expect((await gw.admin('GET', `/destinations/${id}/dead-letters`)).body.items).toEqual([]);
    const audit = await gw.admin('GET', '/audit');
    expect(audit.body.items[0]).toMatchObject({ action: 'test', resource: 'destinations', resourceId: id });
  });

  it('answers a refused connection as the attempt would have said it, and the state stays as it was', async () => {
    const { gw, receiver, id } = await setup();
    await receiver.down();
    const result = await gw.admin('POST', `/destinations/${id}/test`);
    expect(result.body).toMatchObject({ ok: false, status: null, answer: null });
    expect(result.body.message).toMatch(/^ECONNREFUSED: /);
    expect((await gw.admin('GET', `/destinations/${id}`)).body.status).toMatchObject({
      state: 'healthy',
      lastError: null,
    });
  });

  it('shows when a failed batch is tried again, and Retry now sends it at once', async () => {
    const { gw, receiver, id } = await setup();
    expect((await gw.admin('POST', '/endpoints', dockDeliveringTo([id]))).status).toBe(201);
    // The receiver asks for an hour's pause: without Retry now the batch would wait that long.
    let answer = 503;
    receiver.reply = () => (answer === 503 ? { status: 503, headers: { 'retry-after': '3600' } } : { status: 200 });
    const res = await fetch(`${gw.base}/dock/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([read(1), read(2)]),
    });
    expect(res.status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 1, 10_000);
    let status: any = null;
    for (let i = 0; i < 100 && (status?.nextAttemptAt ?? null) === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await gw.admin('GET', `/destinations/${id}`)).body.status;
    }
    expect(status).toMatchObject({ state: 'retrying', backlog: 2, lastError: { status: 503 } });
    const waitMs = Date.parse(status.nextAttemptAt) - Date.now();
    expect(waitMs).toBeGreaterThan(3_000_000);

    answer = 200;
    const retried = await gw.admin('POST', `/destinations/${id}/retry-now`);
    expect(retried.status).toBe(200);
    expect(retried.body.name).toBe('WMS');
    await receiver.waitFor((r) => r.requests.length >= 2, 5_000);
    expect(receiver.requests[1]?.body.batchId).toBe(receiver.requests[0]?.body.batchId);
    expect(receiver.requests[1]?.headers['x-gateway-attempt']).toBe('2');
    for (let i = 0; i < 100 && status?.backlog !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await gw.admin('GET', `/destinations/${id}`)).body.status;
    }
    expect(status).toMatchObject({ backlog: 0, nextAttemptAt: null });
    const audit = await gw.admin('GET', '/audit');
    expect(audit.body.items[0]).toMatchObject({ action: 'retry', summary: 'Retry now for WMS' });
  });

  it('refuses Retry now for a paused destination and an unknown one', async () => {
    const { gw, id } = await setup({ active: false });
    const paused = await gw.admin('POST', `/destinations/${id}/retry-now`);
    expect(paused.status).toBe(400);
    expect(paused.body.errors).toEqual([{ path: '/active', message: expect.stringMatching(/paused/) }]);
    expect((await gw.admin('POST', '/destinations/999/retry-now')).status).toBe(404);
    expect((await gw.admin('POST', '/destinations/999/test')).status).toBe(404);
  });

  it('gives the dashboard each destination’s id and last error', async () => {
    const { gw, receiver, id } = await setup();
    expect((await gw.admin('POST', '/endpoints', dockDeliveringTo([id]))).status).toBe(201);
    await receiver.down();
    await fetch(`${gw.base}/dock/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(read(1)),
    });
    let line: any = null;
    for (let i = 0; i < 200 && !line?.lastError; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      line = (await gw.admin('GET', '/status')).body.destinations[0];
    }
    expect(line).toMatchObject({ id, name: 'WMS', lastError: { status: null }, routeCount: 1 });
    expect(line.lastError.message).toMatch(/^ECONNREFUSED: /);
  });
});

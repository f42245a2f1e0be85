import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { childAdminToken, startChildGateway, type ChildGateway } from '../helpers/child-gateway';
import { createDatabase } from '../helpers/postgres-cluster';
import { dockDeliveringTo, Receiver } from '../helpers/receiver';

const dirs: string[] = [];
const children: ChildGateway[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const child of children) child.process.kill('SIGKILL');
  for (const receiver of receivers) await receiver.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One gateway instance on the shared database, in a data folder of its own. */
async function startInstance(url: string, env: Record<string, string> = {}): Promise<ChildGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-delivery-pg-'));
  dirs.push(dir);
  const child = await startChildGateway(['--data-dir', dir, '--database-url', url, '--https-port', '0'], env);
  children.push(child);
  return child;
}

const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();

describe('delivery from several instances on one PostgreSQL database (SPEC §11)', () => {
  it('sends each batch from one instance at a time, in outbox order, none lost', { timeout: 120_000 }, async () => {
    const url = await createDatabase(inject('postgresUrl'), `gw_delivery_${process.pid}`);
    const [a, b] = await Promise.all([startInstance(url), startInstance(url)]);
    const receiver = await Receiver.start();
    receivers.push(receiver);
    // Each answer takes a while, so both instances have time to try for the same batch.
    let inFlight = 0;
    let overlapped = false;
    receiver.reply = () => {
      inFlight += 1;
      if (inFlight > 1) overlapped = true;
      setTimeout(() => (inFlight -= 1), 50);
      return { status: 200, delayMs: 50 };
    };
    const token = await childAdminToken(a.base);
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${a.base}/_admin/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { id: number };
    };
    const destination = await call('/destinations', {
      name: 'WMS',
      url: receiver.url,
      batchMaxEvents: 10,
      batchMaxWaitMs: 0,
    });
    await call('/endpoints', dockDeliveringTo([destination.id]));
    // The second instance learns of the new route through the change feed.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    // Sync requests, alternating instances, one after another: the outbox order is this order.
    const total = 120;
    for (let i = 0; i < total; i++) {
      const gw = i % 2 === 0 ? a : b;
      const res = await fetch(`${gw.base}/dock/reads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ epc: epc(i), antenna: 1 }),
      });
      expect(res.status).toBe(200);
    }
    await receiver.waitFor((r) => new Set(r.items.map((item) => item.data.epc)).size >= total, 60_000);

    expect(overlapped).toBe(false);
    const batchIds = receiver.requests.map((request) => request.body.batchId);
    expect(new Set(batchIds).size).toBe(batchIds.length);
    expect(receiver.items.map((item) => item.data.epc)).toEqual(Array.from({ length: total }, (_, i) => epc(i)));
  });
  it(
    'sends dead letters retried through either instance again, once each, while the backlog keeps its order',
    {
      timeout: 120_000,
    },
    async () => {
      const url = await createDatabase(inject('postgresUrl'), `gw_delivery_retry_${process.pid}`);
      const [a, b] = await Promise.all([startInstance(url), startInstance(url)]);
      const receiver = await Receiver.start();
      receivers.push(receiver);
      const refused = new Set([epc(1000), epc(1001)]);
      receiver.reply = (request) => {
        const first = request.body.events[0]?.data.epc as string;
        if (refused.delete(first)) return { status: 400 };
        return { status: 200, delayMs: 50 };
      };
      const admin = async (gw: ChildGateway, method: string, path: string, body?: unknown) => {
        const token = await childAdminToken(gw.base);
        const res = await fetch(`${gw.base}/_admin/api${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      const post = (gw: ChildGateway, n: number) =>
        fetch(`${gw.base}/dock/reads`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ epc: epc(n), antenna: 1 }),
        });
      const destination = await admin(a, 'POST', '/destinations', {
        name: 'WMS',
        url: receiver.url,
        batchMaxEvents: 1,
        batchMaxWaitMs: 0,
      });
      await admin(a, 'POST', '/endpoints', dockDeliveringTo([destination.body.id]));
      await new Promise((resolve) => setTimeout(resolve, 1500));

      expect((await post(a, 1000)).status).toBe(200);
      expect((await post(b, 1001)).status).toBe(200);
      let dead = await admin(a, 'GET', `/destinations/${destination.body.id}/dead-letters`);
      for (let i = 0; i < 100 && dead.body.items.length < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        dead = await admin(a, 'GET', `/destinations/${destination.body.id}/dead-letters`);
      }
      expect(dead.body.items).toHaveLength(2);

      const backlog = 30;
      for (let i = 0; i < backlog; i++) expect((await post(i % 2 === 0 ? a : b, i)).status).toBe(200);
      // One dead letter sent back through each instance: one of them is not the one sending.
      const [first, second] = dead.body.items as { id: number }[];
      const path = `/destinations/${destination.body.id}/dead-letters/retry`;
      expect((await admin(a, 'POST', path, { ids: [first?.id] })).status).toBe(202);
      expect((await admin(b, 'POST', path, { ids: [second?.id] })).status).toBe(202);
      await receiver.waitFor((r) => r.items.length >= backlog + 4, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 500));

      expect(receiver.items).toHaveLength(backlog + 4);
      for (const n of [1000, 1001]) {
        const sent = receiver.requests.filter((request) => request.body.events[0]?.data.epc === epc(n));
        expect(sent).toHaveLength(2);
        expect(sent[1]?.body.batchId).toBe(sent[0]?.body.batchId);
      }
      const rest = receiver.items
        .map((item) => item.data.epc)
        .filter((value) => value !== epc(1000) && value !== epc(1001));
      expect(rest).toEqual(Array.from({ length: backlog }, (_, i) => epc(i)));
    },
  );

  it(
    'an instance opens the credentials another one sealed when they share GATEWAY_SECRET_KEY',
    { timeout: 120_000 },
    async () => {
      const url = await createDatabase(inject('postgresUrl'), `gw_delivery_key_${process.pid}`);
      const env = { GATEWAY_SECRET_KEY: randomBytes(32).toString('hex') };
      const [a, b] = await Promise.all([startInstance(url, env), startInstance(url, env)]);
      const receiver = await Receiver.start();
      receivers.push(receiver);
      const admin = async (gw: ChildGateway, method: string, path: string, body?: unknown) => {
        const token = await childAdminToken(gw.base);
        const res = await fetch(`${gw.base}/_admin/api${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      // Saved through A, paused so that A never sends it; then A is gone and B sends.
      const fields = { name: 'Signed', url: receiver.url, batchMaxWaitMs: 0 };
      const created = await admin(a, 'POST', '/destinations', { ...fields, active: false, auth: { type: 'hmac' } });
      expect(created.status).toBe(201);
      const secret = created.body.secret as string;
      a.process.kill('SIGKILL');
      await a.exited;
      await admin(b, 'POST', '/endpoints', dockDeliveringTo([created.body.id]));
      expect(
        (await admin(b, 'PUT', `/destinations/${created.body.id}`, { ...fields, auth: { type: 'hmac' } })).status,
      ).toBe(200);
      const res = await fetch(`${b.base}/dock/reads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ epc: epc(1), antenna: 1 }),
      });
      expect(res.status).toBe(200);
      await receiver.waitFor((r) => r.requests.length >= 1, 30_000);
      const [request] = receiver.requests;
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request?.headers['x-gateway-signature']));
      expect(match?.[2]).toBe(createHmac('sha256', secret).update(`${match?.[1]}.${request?.raw}`).digest('hex'));
    },
  );
});

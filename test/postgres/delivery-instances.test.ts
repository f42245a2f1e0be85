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

const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();

describe('delivery from several instances on one PostgreSQL database (SPEC §11)', () => {
  it('sends each batch from one instance at a time, in outbox order, none lost', { timeout: 120_000 }, async () => {
    const url = await createDatabase(inject('postgresUrl'), `gw_delivery_${process.pid}`);
    const start = async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gateway-delivery-pg-'));
      dirs.push(dir);
      const child = await startChildGateway(['--data-dir', dir, '--database-url', url, '--https-port', '0']);
      children.push(child);
      return child;
    };
    const [a, b] = await Promise.all([start(), start()]);
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
});

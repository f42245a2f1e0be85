import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childAdminToken, startChildGateway, type ChildGateway } from '../helpers/child-gateway';

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-crash-'));
const children: ChildGateway[] = [];
afterAll(() => {
  for (const child of children) child.process.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('durability of async acknowledgements', () => {
  it('processes every event answered 202 after a SIGKILL mid-load and a restart', async () => {
    const first = await startChildGateway(['--data-dir', dataDir]);
    children.push(first);
    const token = await childAdminToken(first.base);
    const created = await fetch(`${first.base}/_admin/api/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Crash',
        baseRoutePath: 'crash',
        routes: [{ name: 'ingest', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', async: true }],
      }),
    });
    expect(created.status).toBe(201);

    // 16 concurrent senders post until the process dies under them.
    const acknowledged: string[] = [];
    let stop = false;
    const sender = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await fetch(`${first.base}/crash/ingest`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              epc: (0x300000000000000000000000n + BigInt(n * 100000 + i)).toString(16),
              antenna: 1,
            }),
          });
          if (res.status === 202) acknowledged.push(((await res.json()) as { id: string }).id);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const senders = Array.from({ length: 16 }, (_, n) => sender(n));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    first.process.kill('SIGKILL');
    stop = true;
    await Promise.all(senders);
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThan(50);
    console.log(`${acknowledged.length} events answered 202 before SIGKILL`);

    const second = await startChildGateway(['--data-dir', dataDir]);
    children.push(second);
    const token2 = await childAdminToken(second.base);
    const pending = new Set(acknowledged);
    const deadline = Date.now() + 60_000;
    while (pending.size > 0 && Date.now() < deadline) {
      for (const id of [...pending]) {
        const res = await fetch(`${second.base}/_admin/api/events/${id}`, {
          headers: { authorization: `Bearer ${token2}` },
        });
        expect(res.status, `event ${id} answered 202 but is missing`).toBe(200);
        const event = (await res.json()) as { status: string };
        if (event.status === 'processed') pending.delete(id);
        else expect(event.status).toBe('queued');
      }
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect([...pending]).toEqual([]);
    second.process.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});

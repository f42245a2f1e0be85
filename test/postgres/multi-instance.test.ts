import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { childAdminToken, startChildGateway, type ChildGateway } from '../helpers/child-gateway';
import { createDatabase } from '../helpers/postgres-cluster';
import { basic } from '../helpers/test-gateway';

const dirs: string[] = [];
const children: ChildGateway[] = [];
let url: string;
let a: ChildGateway;
let b: ChildGateway;
let tokenA: string;

const start = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-multi-'));
  dirs.push(dir);
  const child = await startChildGateway(['--data-dir', dir, '--database-url', url]);
  children.push(child);
  return child;
};

const adminCall = async (gw: ChildGateway, token: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${gw.base}/_admin/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};

/** Polls until `check` holds; answers the milliseconds it took. */
async function until(check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > limitMs) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

beforeAll(async () => {
  url = await createDatabase(inject('postgresUrl'), `gw_multi_${process.pid}`);
  // Both start at once on a fresh database: migrations must run once, without a clash.
  [a, b] = await Promise.all([start(), start()]);
  tokenA = await childAdminToken(a.base);
}, 90_000);

afterAll(() => {
  for (const child of children) child.process.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('several gateway instances on one PostgreSQL database', () => {
  it('makes a configuration change through one instance live on the other within a second', async () => {
    const created = await adminCall(a, tokenA, 'POST', '/endpoints', {
      name: 'Shared',
      baseRoutePath: 'shared',
      routes: [
        { name: 'ingest', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', async: true },
        { name: 'gate', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic' },
        { name: 'inventory', eventType: 'UHFTagRead', requestType: 'HttpGet', authType: 'noauth' },
      ],
    });
    expect(created.status).toBe(201);
    const visible = await until(async () => (await fetch(`${b.base}/shared/inventory`)).status === 200, 3000);
    console.log(`endpoint visible on the other instance after ${visible} ms`);
    expect(visible).toBeLessThan(1000);

    const user = await adminCall(a, tokenA, 'POST', '/external-users', {
      username: 'reader',
      password: 'reader-pass',
      routes: ['gate'],
    });
    const postGate = (gw: ChildGateway) =>
      fetch(`${gw.base}/shared/gate`, {
        method: 'POST',
        headers: { authorization: basic('reader', 'reader-pass'), 'content-type': 'application/json' },
        body: '{}',
      });
    await until(async () => (await postGate(b)).status === 200, 3000);
    await adminCall(a, tokenA, 'PUT', `/external-users/${user.body.id}`, {
      username: 'reader',
      routes: ['gate'],
      active: false,
    });
    expect(await until(async () => (await postGate(b)).status === 403, 3000)).toBeLessThan(1000);

    await adminCall(a, tokenA, 'PUT', '/settings', { bodyLimitBytes: 2048 });
    const big = () =>
      fetch(`${b.base}/shared/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ epc: '30', pad: 'x'.repeat(3000) }),
      });
    expect(await until(async () => (await big()).status === 413, 3000)).toBeLessThan(1000);
    await adminCall(a, tokenA, 'PUT', '/settings', { bodyLimitBytes: 1048576 });
  });

  it('processes every acknowledged event exactly once when one instance is killed mid-load', async () => {
    const acknowledged = new Map<string, string>();
    let stop = false;
    let counter = 0;
    const sender = async (gw: ChildGateway) => {
      while (!stop) {
        const epc = (0x3000_0000_0000_0000_0000_0000n + BigInt(++counter)).toString(16).toUpperCase();
        try {
          const res = await fetch(`${gw.base}/shared/ingest`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ epc, readerId: 'dock', antenna: 1 }),
          });
          if (res.status === 202) acknowledged.set(((await res.json()) as { id: string }).id, epc);
        } catch {
          if (gw === a) return; // a's connections die with it
        }
      }
    };
    const senders = [...Array.from({ length: 6 }, () => sender(a)), ...Array.from({ length: 6 }, () => sender(b))];
    await new Promise((resolve) => setTimeout(resolve, 1500));
    a.process.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop = true;
    await Promise.all(senders);
    expect(acknowledged.size).toBeGreaterThan(100);
    console.log(`${acknowledged.size} events acknowledged across both instances before and after the kill`);

    // b finishes everything, including what a had claimed when it died (after the lease runs out).
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await until(
        async () =>
          Number((await db.query("select count(*) as n from events where status = 'queued'")).rows[0].n) === 0,
        60_000,
      );
      const ids = [...acknowledged.keys()];
      const events = await db.query('select id, status from events where id = any($1)', [ids]);
      expect(events.rows).toHaveLength(ids.length);
      expect(events.rows.every((row: { status: string }) => row.status === 'processed')).toBe(true);
      // Processed exactly once: every EPC counted once in the shared inventory.
      const inventory = await db.query(
        "select epc, read_count from tag_inventory where upper(encode(epc, 'hex')) = any($1)",
        [[...acknowledged.values()]],
      );
      expect(inventory.rows).toHaveLength(acknowledged.size);
      expect(inventory.rows.filter((row: { read_count: number }) => row.read_count !== 1)).toEqual([]);
    } finally {
      await db.end();
    }
  }, 120_000);
});

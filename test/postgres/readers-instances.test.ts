import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createGateway, type Gateway } from '../../server/gateway';
import { startServer, type RunningServer } from '../../server/http/start-server';
import { silentLogger } from '../../server/logger';
import { openSecretBox } from '../../server/secret-box';
import { createDatabase } from '../helpers/postgres-cluster';
import { ADMIN_PASSWORD } from '../helpers/test-gateway';

/**
 * SPEC §16: two gateways on one PostgreSQL database hearing one reader keep one record whose
 * counts add up (the upserts add; neither overwrites the other's counts).
 */
const instances: { gateway: Gateway; server: RunningServer; base: string; dir: string }[] = [];

async function start(url: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-readers-pg-'));
  const gateway = await createGateway({
    secrets: openSecretBox({ dataDir: dir }),
    database: { kind: 'postgres', url },
    logger: silentLogger,
    adminPassword: ADMIN_PASSWORD,
  });
  const server = await startServer(gateway.app, { port: 0, host: '127.0.0.1' });
  const instance = { gateway, server, base: `http://127.0.0.1:${server.port}/GWENDPOINTAPI`, dir };
  instances.push(instance);
  return instance;
}

const epc = (n: number) => `E2003412${n.toString(16).toUpperCase().padStart(16, '0')}`;

beforeAll(async () => {
  const url = await createDatabase(inject('postgresUrl'), `gw_readers_${process.pid}`);
  const a = await start(url);
  await a.gateway.handlers.createEndpoint(
    {
      name: 'Hall',
      baseRoutePath: 'hall',
      routes: [{ name: 'hallTags', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' }],
    },
    { actor: 'cli' },
  );
  await start(url);
}, 60_000);

afterAll(async () => {
  for (const { gateway, server, dir } of instances) {
    await server.stop(1000);
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('reader records on several instances', () => {
  it('adds the counts of one reader heard by two instances at once into one record', async () => {
    const [a, b] = instances;
    // The route reaches the second instance through the change feed.
    for (let i = 0; i < 100; i++) {
      const probe = await fetch(`${b.base}/hall/hallTags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '[]',
      });
      if (probe.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const post = (base: string, from: number) =>
      fetch(`${base}/hall/hallTags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          Array.from({ length: 25 }, (_, i) => ({ epc: epc(from + i), readerId: 'shared-fx', antenna: 1 + (i % 2) })),
        ),
      });
    const sends = [];
    for (let round = 0; round < 8; round++) {
      sends.push(post(a.base, round * 100), post(b.base, 10_000 + round * 100));
    }
    const answers = await Promise.all(sends);
    expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
    const reader = await a.gateway.handlers.getReader({ id: 'shared-fx' }, { actor: 'cli' });
    expect(reader.readsTotal).toBe(16 * 25);
    expect(reader.antennas.map((antenna) => antenna.readsTotal)).toEqual([16 * 13, 16 * 12]);
    const history = await b.gateway.handlers.getReaderHistory({ id: 'shared-fx', minutes: 2 }, { actor: 'cli' });
    expect(history.reduce((sum, minute) => sum + minute.reads, 0)).toBe(16 * 25);
    const list = await b.gateway.handlers.listReaders(undefined, { actor: 'cli' });
    expect(list.filter((r) => r.readerId === 'shared-fx')).toHaveLength(1);
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../server/gateway';
import { createSecretBox } from '../../server/secret-box';
import { startServer, type RunningServer } from '../../server/http/start-server';
import { silentLogger } from '../../server/logger';
import { createDatabase, startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster';
import { ADMIN_PASSWORD } from '../helpers/test-gateway';

let cluster: PostgresCluster;
let server: RunningServer;
let close: () => Promise<void>;
let base: string;

beforeAll(async () => {
  // A cluster of its own: this test takes the database away.
  cluster = await startPostgresCluster();
  const url = await createDatabase(cluster.url, 'gw_loss');
  const gateway = await createGateway({
    secrets: createSecretBox(randomBytes(32)),
    database: { kind: 'postgres', url },
    logger: silentLogger,
    adminPassword: ADMIN_PASSWORD,
  });
  server = await startServer(gateway.app, { port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${server.port}/GWENDPOINTAPI`;
  close = async () => {
    await server.stop(1000);
    await gateway.close();
  };
  await gateway.handlers.createEndpoint(
    {
      name: 'Loss',
      baseRoutePath: 'loss',
      routes: [
        { name: 'queue', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth', async: true },
        { name: 'now', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' },
        { name: 'view', eventType: 'AllData', requestType: 'HttpGet', authType: 'noauth' },
      ],
    },
    { actor: 'cli' },
  );
}, 60_000);

afterAll(async () => {
  await close();
  await cluster.stop();
});

const post = (route: string) =>
  fetch(`${base}/loss/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });

describe('a database lost while running', () => {
  it('answers data routes with 503 overloaded and Retry-After, then recovers by itself', async () => {
    const before = await post('queue');
    expect(before.status).toBe(202);
    const acknowledged = ((await before.json()) as { id: string }).id;

    await cluster.pause();
    for (const res of [await post('queue'), await post('now'), await fetch(`${base}/loss/view`)]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await res.json()) as { code: string }).code).toBe('overloaded');
    }
    const health = await fetch(`${base}/_health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ database: { kind: 'postgres', reachable: false } });

    await cluster.resume();
    let recovered = 0;
    for (let i = 0; i < 100 && recovered !== 202; i++) {
      recovered = (await post('queue')).status;
      if (recovered !== 202) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(recovered).toBe(202);
    expect((await post('now')).status).toBe(200);
    const receipt = await fetch(`${base}/loss/queue/receipts/${acknowledged}`);
    expect(receipt.status).toBe(200);
  }, 60_000);
});

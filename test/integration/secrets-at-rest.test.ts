import { createHmac } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET_KEY_FILE } from '../../server/secret-box';
import { sealDestinationSecrets } from '../../server/services/bootstrap';
import { childAdminToken, startChildGateway, type ChildGateway } from '../helpers/child-gateway';
import { dockDeliveringTo, Receiver, type Received } from '../helpers/receiver';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';

const onSqlite = process.env.GATEWAY_TEST_DATABASE !== 'postgres';
const open: { close(): Promise<void> }[] = [];
const children: ChildGateway[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.process.kill('SIGKILL');
  while (open.length > 0) await open.pop()?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

async function gateway(dataDir?: string): Promise<TestGateway> {
  const gw = await startTestGateway({ dataDir });
  open.push(gw);
  return gw;
}

async function receiver(): Promise<Receiver> {
  const started = await Receiver.start();
  open.push(started);
  return started;
}

/** One read through the dock's route; answers once the receiver has its `n`-th request. */
async function deliverOne(gw: TestGateway, to: Receiver, n: number): Promise<Received> {
  const res = await fetch(`${gw.base}/dock/reads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ epc: epc(n), antenna: 1 }),
  });
  expect(res.status).toBe(200);
  await to.waitFor((r) => r.requests.length >= n, 10_000);
  const request = to.requests[n - 1];
  if (!request) throw new Error(`request ${n} never arrived`);
  return request;
}

const rawSecrets = async (gw: TestGateway) =>
  (await gw.gateway.db.knex('destinations').select('name', 'auth_secret').orderBy('name')) as {
    name: string;
    auth_secret: string | null;
  }[];

const basicHeader = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('destination credentials at rest (issue 38)', () => {
  it('are stored sealed, never in clear, and delivery still signs and authenticates with them', async () => {
    const gw = await gateway();
    const hmacReceiver = await receiver();
    const hmac = await gw.admin('POST', '/destinations', {
      name: 'Signed',
      url: hmacReceiver.url,
      batchMaxWaitMs: 0,
      auth: { type: 'hmac' },
    });
    const secret = hmac.body.secret as string;
    const basicReceiver = await receiver();
    const basic = await gw.admin('POST', '/destinations', {
      name: 'Basic',
      url: basicReceiver.url,
      batchMaxWaitMs: 0,
      auth: { type: 'basic', username: 'wms', password: 'wms-password-at-rest' },
    });
    const bearer = await gw.admin('POST', '/destinations', {
      name: 'Bearer',
      url: 'http://192.0.2.1/in',
      active: false,
      auth: { type: 'bearer', token: 'bearer-token-at-rest' },
    });
    expect([hmac.status, basic.status, bearer.status]).toEqual([201, 201, 201]);

    const stored = await rawSecrets(gw);
    expect(stored.map((row) => row.name)).toEqual(['Basic', 'Bearer', 'Signed']);
    for (const row of stored) expect(row.auth_secret).toMatch(/^gwsec1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);
    const clear = [secret, 'wms-password-at-rest', 'bearer-token-at-rest'];
    const column = JSON.stringify(stored);
    for (const value of clear) expect(column).not.toContain(value);
    if (onSqlite) {
      // What a copy of the database files would carry: none of them either.
      const files = ['gateway.db', 'gateway.db-wal'].map((name) => join(gw.dataDir, name)).filter(existsSync);
      const bytes = Buffer.concat(files.map((file) => readFileSync(file)));
      for (const value of clear) expect(bytes.includes(value)).toBe(false);
    }

    await gw.admin('POST', '/endpoints', dockDeliveringTo([hmac.body.id, basic.body.id]));
    const signed = await deliverOne(gw, hmacReceiver, 1);
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(signed.headers['x-gateway-signature']));
    expect(match?.[2]).toBe(createHmac('sha256', secret).update(`${match?.[1]}.${signed.raw}`).digest('hex'));
    await basicReceiver.waitFor((r) => r.requests.length >= 1, 10_000);
    expect(basicReceiver.requests[0]?.headers.authorization).toBe(basicHeader('wms', 'wms-password-at-rest'));

    // An edit that leaves the password out keeps the sealed one; a regenerated secret is sealed too.
    const kept = await gw.admin('PUT', `/destinations/${basic.body.id}`, {
      name: 'Basic',
      url: basicReceiver.url,
      batchMaxWaitMs: 0,
      auth: { type: 'basic', username: 'wms' },
    });
    expect(kept.status).toBe(200);
    const regenerated = await gw.admin('POST', `/destinations/${hmac.body.id}/regenerate`);
    const after = JSON.stringify(await rawSecrets(gw));
    expect(after).not.toContain('wms-password-at-rest');
    expect(after).not.toContain(regenerated.body.secret as string);
    await deliverOne(gw, basicReceiver, 2);
    expect(basicReceiver.requests[1]?.headers.authorization).toBe(basicHeader('wms', 'wms-password-at-rest'));
  });

  it('seals credentials stored in clear before (at start), and sends them as they were', async () => {
    const dataDir = tempDir('gateway-legacy-');
    let gw = await gateway(dataDir);
    const to = await receiver();
    const created = await gw.admin('POST', '/destinations', {
      name: 'Legacy',
      url: to.url,
      batchMaxWaitMs: 0,
      auth: { type: 'bearer', token: 'placeholder-token' },
    });
    // As an earlier version wrote it.
    await gw.gateway.db.knex('destinations').where({ id: created.body.id }).update({ auth_secret: 'legacy-token' });
    if (onSqlite) {
      // The next start seals it (on PostgreSQL the helper's restart would get a new database).
      await gw.close();
      open.splice(open.indexOf(gw), 1);
      gw = await gateway(dataDir);
    } else
      expect(await sealDestinationSecrets(gw.gateway.db, gw.gateway.deps.secrets)).toEqual({ sealed: 1, otherKey: 0 });
    // Once sealed, there is nothing left to seal.
    expect(await sealDestinationSecrets(gw.gateway.db, gw.gateway.deps.secrets)).toEqual({ sealed: 0, otherKey: 0 });
    const [row] = await rawSecrets(gw);
    expect(row?.auth_secret).toMatch(/^gwsec1:/);
    expect(row?.auth_secret).not.toContain('legacy-token');
    // The sender reads the destination again on a change: touch it, keeping the token.
    await gw.admin('PUT', `/destinations/${created.body.id}`, {
      name: 'Legacy',
      url: to.url,
      batchMaxWaitMs: 0,
      auth: { type: 'bearer' },
    });
    await gw.admin('POST', '/endpoints', dockDeliveringTo([created.body.id]));
    expect((await deliverOne(gw, to, 1)).headers.authorization).toBe('Bearer legacy-token');
  });

  it('travel through a backup into a gateway with another key, which seals them with its own', async () => {
    const source = await gateway();
    const to = await receiver();
    const hmac = await source.admin('POST', '/destinations', {
      name: 'Signed',
      url: to.url,
      batchMaxWaitMs: 0,
      auth: { type: 'hmac' },
    });
    const secret = hmac.body.secret as string;
    await source.admin('POST', '/endpoints', dockDeliveringTo([hmac.body.id]));
    const file = await source.gateway.handlers.exportBackup({ passphrase: 'correct horse battery' }, { actor: 'cli' });

    const target = await gateway();
    expect(target.gateway.deps.secrets.keyId).not.toBe(source.gateway.deps.secrets.keyId);
    const imported = await target.admin('POST', '/backup/import', {
      file: file.data,
      passphrase: 'correct horse battery',
    });
    expect(imported.status).toBe(200);
    const [row] = await rawSecrets(target);
    expect(row?.auth_secret?.startsWith(`gwsec1:${target.gateway.deps.secrets.keyId}:`)).toBe(true);
    const signed = await deliverOne(target, to, 1);
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(signed.headers['x-gateway-signature']));
    expect(match?.[2]).toBe(createHmac('sha256', secret).update(`${match?.[1]}.${signed.raw}`).digest('hex'));
    // And out again: the target's backup carries the same secret (a dry run into the source changes nothing).
    const again = await target.gateway.handlers.exportBackup({ passphrase: 'correct horse battery' }, { actor: 'cli' });
    const dry = await source.admin('POST', '/backup/import', {
      file: again.data,
      passphrase: 'correct horse battery',
      dryRun: true,
    });
    expect(dry.body.changes.destinations).toEqual({ added: [], changed: [], removed: [] });
  });

  it.runIf(onSqlite)(
    'a database copied without its key gives none away: its destinations fail until the secret is entered again',
    async () => {
      const first = await gateway();
      const to = await receiver();
      const created = await first.admin('POST', '/destinations', {
        name: 'WMS',
        url: to.url,
        batchMaxWaitMs: 0,
        auth: { type: 'basic', username: 'wms', password: 'copied-password' },
      });
      await first.admin('POST', '/endpoints', dockDeliveringTo([created.body.id]));
      await first.gateway.db.knex.raw('PRAGMA wal_checkpoint(TRUNCATE)');
      const copy = tempDir('gateway-copy-');
      copyFileSync(join(first.dataDir, 'gateway.db'), join(copy, 'gateway.db'));
      expect(readFileSync(join(copy, 'gateway.db')).includes('copied-password')).toBe(false);

      const second = await gateway(copy);
      const res = await fetch(`${second.base}/dock/reads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ epc: epc(1), antenna: 1 }),
      });
      expect(res.status).toBe(200);
      const deadline = Date.now() + 5_000;
      let status = (await second.admin('GET', `/destinations/${created.body.id}`)).body.status;
      while (status.state !== 'failing' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await second.admin('GET', `/destinations/${created.body.id}`)).body.status;
      }
      const [firstKey, secondKey] = [first.gateway.deps.secrets.keyId, second.gateway.deps.secrets.keyId];
      expect(status).toMatchObject({ state: 'failing', lastError: { status: null } });
      expect(status.lastError.message).toContain(`sealed with key ${firstKey}`);
      expect(status.lastError.message).toContain(secondKey);
      expect(to.requests).toHaveLength(0);

      // Entered again, it is sealed with this gateway's key, and the backlog goes out.
      const mended = await second.admin('PUT', `/destinations/${created.body.id}`, {
        name: 'WMS',
        url: to.url,
        batchMaxWaitMs: 0,
        auth: { type: 'basic', username: 'wms', password: 'copied-password' },
      });
      expect(mended.status).toBe(200);
      await to.waitFor((r) => r.requests.length >= 1, 10_000);
      expect(to.requests[0]?.headers.authorization).toBe(basicHeader('wms', 'copied-password'));
    },
  );
});

describe.runIf(onSqlite)('files at rest under umask 022 (issue 38)', () => {
  it('serve makes the data folder 0700, the database files and the key 0600, and narrows old ones', async () => {
    const data = join(tempDir('gateway-modes-'), 'data');
    const serve = async () => {
      const child = await startChildGateway(['--data-dir', data, '--https-port', '0'], {}, { umask: '022' });
      children.push(child);
      return child;
    };
    const child = await serve();
    // A write while it runs, so the WAL holds something.
    const token = await childAdminToken(child.base);
    const created = await fetch(`${child.base}/_admin/api/destinations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'WMS', url: 'http://192.0.2.1/in', auth: { type: 'bearer', token: 't-1' } }),
    });
    expect(created.status).toBe(201);
    const modes = () =>
      Object.fromEntries(
        ['.', 'gateway.db', 'gateway.db-wal', 'gateway.db-shm', SECRET_KEY_FILE, 'logs', 'tls'].map((name) => [
          name,
          modeOf(join(data, name)),
        ]),
      );
    const expected = {
      '.': '700',
      'gateway.db': '600',
      'gateway.db-wal': '600',
      'gateway.db-shm': '600',
      [SECRET_KEY_FILE]: '600',
      logs: '700',
      tls: '700',
    };
    expect(modes()).toEqual(expected);

    // Files an earlier version left readable by all are narrowed at the next start.
    child.process.kill('SIGTERM');
    await child.exited;
    for (const name of ['gateway.db', 'gateway.db-wal', 'gateway.db-shm', SECRET_KEY_FILE])
      if (existsSync(join(data, name))) chmodSync(join(data, name), 0o644);
    await serve();
    expect(modes()).toEqual(expected);
  });
});

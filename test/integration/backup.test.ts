import bcrypt from 'bcryptjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallContext } from '../../server/contract/operations';
import { accessTokensRepo } from '../../server/repositories/access-tokens.repo';
import { externalUsersRepo } from '../../server/repositories/external-users.repo';
import { usersRepo } from '../../server/repositories/users.repo';
import { sha256Hex } from '../../server/secrets';
import { decryptBackup, encryptBackup } from '../../server/services/backup/crypto';
import type { SealedSecret } from '../../server/secret-box';
import { readConfiguration } from '../../server/services/backup/snapshot';
import { ADMIN_PASSWORD, startTestGateway, type TestGateway } from '../helpers/test-gateway';

const ctx: CallContext = { actor: 'user:admin' };
const PASSPHRASE = 'correct horse battery staple';
const ALICE_PASSWORD = 'alice-password-1';
const READER_PASSWORD = 'reader-password-1';

/** Gateway A, configured by hand and exported once; every test restores into a fresh B. */
let a: TestGateway;
let file: { filename: string; data: string };
let accessToken: string;
const opened: TestGateway[] = [];

async function freshGateway(): Promise<TestGateway> {
  const gw = await startTestGateway();
  opened.push(gw);
  return gw;
}

/** The gateway's own way to open its stored destination credentials. */
const opener = (gw: TestGateway) => (stored: SealedSecret) => gw.gateway.deps.secrets.open(stored);

/** Everything a restore may change, hashes included, plus the sessions. */
async function state(gw: TestGateway) {
  const db = gw.gateway.db.knex;
  const bearer = (await db('bearer_tokens').count({ n: '*' }).first()) as { n: unknown };
  return { config: await readConfiguration(db, opener(gw)), bearerTokens: Number(bearer.n) };
}

async function login(gw: TestGateway, userName: string, password: string): Promise<Response> {
  return fetch(`${gw.base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName, password }),
  });
}

const adminGet = (gw: TestGateway, path: string, bearer: string) =>
  fetch(`${gw.base}/_admin/api${path}`, { headers: { authorization: `Bearer ${bearer}` } });

/** A backup built from a plain document of our choosing, encrypted like a real one. */
async function craft(document: unknown): Promise<string> {
  return (await encryptBackup(Buffer.from(JSON.stringify(document), 'utf8'), PASSPHRASE)).toString('base64');
}

async function plainDocument(): Promise<
  { config: { endpoints: { routes: { name: string }[] }[] } } & Record<string, unknown>
> {
  const plain = await decryptBackup(Buffer.from(file.data, 'base64'), PASSPHRASE);
  return JSON.parse(plain.toString('utf8')) as { config: { endpoints: { routes: { name: string }[] }[] } };
}

beforeAll(async () => {
  a = await startTestGateway();
  const h = a.gateway.handlers;
  await h.updateSettings({ bcryptCost: 4, tagDedupWindowMs: 2500, timeZone: 'Europe/Berlin' }, ctx);
  // A throwaway endpoint first, so A's ids differ from what a fresh B would hand out.
  const temp = await h.createEndpoint(
    {
      name: 'Temp',
      baseRoutePath: 'temp',
      routes: [{ name: 'tmp', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' }],
    },
    ctx,
  );
  await h.deleteEndpoint({ id: temp.id }, ctx);
  await h.createRole({ name: 'operators', description: 'Floor operators' }, ctx);
  await h.createRole({ name: 'readers' }, ctx);
  await h.createEndpoint(
    {
      name: 'Warehouse',
      baseRoutePath: 'warehouse',
      routes: [
        { name: 'dock-in', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'basic' },
        {
          name: 'epcis',
          eventType: 'EpcisObject',
          requestType: 'HttpPost',
          authType: 'OAuth2',
          roles: ['operators'],
          async: true,
          epcisLenient: true,
        },
      ],
    },
    ctx,
  );
  await h.createUser(
    { username: 'alice', displayName: 'Alice', roles: ['admin', 'operators'], password: ALICE_PASSWORD },
    ctx,
  );
  await h.createExternalUser(
    { username: 'reader01', firstName: 'Dock', lastName: 'Reader', routes: ['dock-in'], password: READER_PASSWORD },
    ctx,
  );
  accessToken = (
    await h.createAccessToken(
      { name: 'mes', role: 'operators', expiryDate: '2099-12-31', description: 'MES link' },
      ctx,
    )
  ).token;
  file = await h.exportBackup({ passphrase: PASSPHRASE }, ctx);
});

afterEach(async () => {
  for (const gw of opened.splice(0)) await gw.close();
});

afterAll(async () => {
  await a.close();
});

describe('backup export', () => {
  it('names the file by date and audits the export without any secret', async () => {
    expect(file.filename).toMatch(/^gateway-\d{4}-\d{2}-\d{2}\.gwbackup$/);
    const audit = await a.gateway.handlers.listAudit({}, ctx);
    const entry = audit.items.find((item) => item.action === 'export');
    expect(entry).toMatchObject({ actor: 'user:admin', action: 'export', resource: 'backup', resourceId: null });
    expect(entry?.summary).not.toContain(PASSPHRASE);
  });

  it('refuses a passphrase under 8 characters or none', async () => {
    const expected = { code: 'validation_failed', errors: [expect.objectContaining({ path: '/passphrase' })] };
    await expect(a.gateway.handlers.exportBackup({ passphrase: 'short' }, ctx)).rejects.toMatchObject(expected);
    await expect(a.gateway.handlers.exportBackup({}, ctx)).rejects.toMatchObject(expected);
  });

  it('writes an encrypted file: no passphrase, no plaintext, only hashes inside', async () => {
    const raw = Buffer.from(file.data, 'base64');
    expect(raw.subarray(0, 5)).toEqual(Buffer.from([0x47, 0x57, 0x42, 0x4b, 0x02])); // "GWBK" 2 (scrypt N = 2^17)
    const plain = await decryptBackup(raw, PASSPHRASE);
    const text = plain.toString('utf8');
    const stored = await readConfiguration(a.gateway.db.knex, opener(a));
    const alice = stored.users.find((user) => user.username === 'alice');
    const needles = [
      'gateway-backup',
      'Warehouse',
      'dock-in',
      'reader01',
      alice?.passwordHash ?? '?',
      sha256Hex(accessToken),
    ];
    for (const needle of needles) {
      // Found in the decrypted document (so the search works) and nowhere in the file.
      expect(text).toContain(needle);
      expect(raw.includes(Buffer.from(needle))).toBe(false);
    }
    expect(raw.includes(Buffer.from(PASSPHRASE))).toBe(false);
    // The document carries no password, token value, event or bearer token.
    for (const secret of [ALICE_PASSWORD, READER_PASSWORD, ADMIN_PASSWORD, accessToken, 'gwbt_'])
      expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({
      format: 'gateway-backup',
      version: 2,
      config: { settings: { bcryptCost: 4, tagDedupWindowMs: 2500 } },
    });
  });

  it('is served over HTTP as an octet-stream download that imports again', async () => {
    const response = await fetch(`${a.base}/_admin/api/backup/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await a.adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ passphrase: PASSPHRASE }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="gateway-\d{4}-\d{2}-\d{2}\.gwbackup"$/,
    );
    const data = Buffer.from(await response.arrayBuffer()).toString('base64');
    // Restoring a gateway's own fresh backup onto itself changes nothing.
    const diff = await a.gateway.handlers.importBackup({ file: data, passphrase: PASSPHRASE, dryRun: true }, ctx);
    for (const change of Object.values(diff.changes)) expect(change).toEqual({ added: [], changed: [], removed: [] });
  });
});

describe('backup import', () => {
  it('dry run: lists what would change, changes nothing and is not audited', async () => {
    const b = await freshGateway();
    const before = await state(b);
    const diff = await b.gateway.handlers.importBackup({ file: file.data, passphrase: PASSPHRASE, dryRun: true }, ctx);
    expect(diff).toEqual({
      dryRun: true,
      changes: {
        endpoints: { added: ['Warehouse'], changed: [], removed: [] },
        roles: { added: ['operators', 'readers'], changed: [], removed: [] },
        // Both gateways have an `admin`, with different hashes and creation times.
        users: { added: ['alice'], changed: ['admin'], removed: [] },
        externalUsers: { added: ['reader01'], changed: [], removed: [] },
        accessTokens: { added: ['mes'], changed: [], removed: [] },
        destinations: { added: [], changed: [], removed: [] },
        // A setting always exists: keys whose effective value (stored, else default) would change.
        settings: { added: [], changed: ['bcryptCost', 'tagDedupWindowMs', 'timeZone'], removed: [] },
      },
      settingChanges: [
        { key: 'bcryptCost', from: 10, to: 4 },
        { key: 'tagDedupWindowMs', from: 1000, to: 2500 },
        { key: 'timeZone', from: b.gateway.deps.settings.current().timeZone, to: 'Europe/Berlin' },
      ],
    });
    expect(await state(b)).toEqual(before);
    const audit = await b.gateway.handlers.listAudit({}, ctx);
    expect(audit.items.filter((item) => item.resource === 'backup')).toEqual([]);
  });

  it('dry run: settings compare effective values, defaults included', async () => {
    const b = await freshGateway();
    // Same as the backup (bcryptCost), a stored default (tagDedupWindowMs 1000 vs the backup's
    // 2500), and a key the backup does not hold (retentionDays: back to its default of 30).
    await b.gateway.handlers.updateSettings(
      { bcryptCost: 4, tagDedupWindowMs: 1000, retentionDays: 90, timeZone: 'Europe/Berlin' },
      ctx,
    );
    const diff = await b.gateway.handlers.importBackup({ file: file.data, passphrase: PASSPHRASE, dryRun: true }, ctx);
    expect(diff.changes.settings).toEqual({ added: [], changed: ['retentionDays', 'tagDedupWindowMs'], removed: [] });
    expect(diff.settingChanges).toEqual([
      { key: 'retentionDays', from: 90, to: 30 },
      { key: 'tagDedupWindowMs', from: 1000, to: 2500 },
    ]);
  });

  it('apply: restores every record with its ids and hashes, credentials work, old sessions end', async () => {
    const b = await freshGateway();
    const oldBearer = await b.adminToken();
    expect((await adminGet(b, '/roles', oldBearer)).status).toBe(200);

    const diff = await b.gateway.handlers.importBackup({ file: file.data, passphrase: PASSPHRASE }, ctx);
    expect(diff.dryRun).toBe(false);
    expect(diff.changes.endpoints.added).toEqual(['Warehouse']);

    // The same configuration, record for record: ids, hashes, creation times, settings.
    expect((await state(b)).config).toEqual(await readConfiguration(a.gateway.db.knex, opener(a)));
    const [ha, hb] = [a.gateway.handlers, b.gateway.handlers];
    expect(await hb.listEndpoints(undefined, ctx)).toEqual(await ha.listEndpoints(undefined, ctx));
    expect(await hb.listRoles(undefined, ctx)).toEqual(await ha.listRoles(undefined, ctx));
    expect(await hb.listUsers(undefined, ctx)).toEqual(await ha.listUsers(undefined, ctx));
    expect(await hb.listExternalUsers(undefined, ctx)).toEqual(await ha.listExternalUsers(undefined, ctx));
    expect(await hb.listAccessTokens(undefined, ctx)).toEqual(await ha.listAccessTokens(undefined, ctx));
    expect(await hb.getSettings(undefined, ctx)).toEqual(await ha.getSettings(undefined, ctx));
    // Settings are live at once, not only stored.
    expect(b.gateway.deps.settings.current()).toMatchObject({
      tagDedupWindowMs: 2500,
      bcryptCost: 4,
      timeZone: 'Europe/Berlin',
    });

    // The external user's password and the access token value verify against what B stores.
    const reader = (await externalUsersRepo.list(b.gateway.db.knex)).find((user) => user.username === 'reader01');
    expect(reader?.routes).toEqual(['dock-in']);
    expect(await bcrypt.compare(READER_PASSWORD, reader?.passwordHash ?? '')).toBe(true);
    const alice = await usersRepo.findByUsername(b.gateway.db.knex, 'alice');
    expect(await bcrypt.compare(ALICE_PASSWORD, alice?.passwordHash ?? '')).toBe(true);
    expect(await accessTokensRepo.findByHash(b.gateway.db.knex, sha256Hex(accessToken))).toMatchObject({
      name: 'mes',
      role: 'operators',
    });

    // Real logins on B's HTTP app: the restored user gets a token; the session from before is dead.
    expect((await adminGet(b, '/roles', oldBearer)).status).toBe(401);
    const response = await login(b, 'alice', ALICE_PASSWORD);
    expect(response.status).toBe(200);
    const { access_token: aliceBearer } = (await response.json()) as { access_token: string };
    expect((await adminGet(b, '/endpoints', aliceBearer)).status).toBe(200);
    expect((await login(b, 'admin', ADMIN_PASSWORD)).status).toBe(200);

    // New records still get fresh ids after the explicit-id inserts.
    const yard = await hb.createEndpoint(
      {
        name: 'Yard',
        baseRoutePath: 'yard',
        routes: [{ name: 'gate', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' }],
      },
      ctx,
    );
    const restoredRouteIds = (await ha.listEndpoints(undefined, ctx)).flatMap((endpoint) =>
      endpoint.routes.map((route) => route.id),
    );
    expect(yard.routes[0]?.id).toBeGreaterThan(Math.max(...restoredRouteIds));

    const audit = await hb.listAudit({}, ctx);
    expect(audit.items.filter((item) => item.resource === 'backup')).toEqual([
      expect.objectContaining({ actor: 'user:admin', action: 'import', resource: 'backup', resourceId: null }),
    ]);
  });

  it('refuses a wrong passphrase, damaged, truncated or non-base64 files, changing nothing', async () => {
    const b = await freshGateway();
    const before = await state(b);
    const importing = (data: string, passphrase = PASSPHRASE) =>
      b.gateway.handlers.importBackup({ file: data, passphrase }, ctx);
    await expect(importing(file.data, 'wrong passphrase')).rejects.toMatchObject({
      code: 'backup_invalid',
      status: 400,
    });
    const raw = Buffer.from(file.data, 'base64');
    // magic, container version, salt, IV, tag, ciphertext start and end
    for (const offset of [0, 4, 5, 20, 21, 32, 33, 48, 49, raw.length - 1]) {
      const damaged = Buffer.from(raw);
      damaged[offset] = (damaged[offset] ?? 0) ^ 0x80;
      await expect(importing(damaged.toString('base64')), `byte ${offset}`).rejects.toMatchObject({
        code: 'backup_invalid',
      });
    }
    for (const length of [raw.length - 1, 60, 49, 10]) {
      await expect(importing(raw.subarray(0, length).toString('base64')), `length ${length}`).rejects.toMatchObject({
        code: 'backup_invalid',
      });
    }
    await expect(importing('this is not base64!')).rejects.toMatchObject({ code: 'backup_invalid' });
    await expect(importing('')).rejects.toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ path: '/file' })],
    });
    expect(await state(b)).toEqual(before);
  });

  it('refuses a newer format version with backup_version_unsupported, and non-backups with backup_invalid', async () => {
    const b = await freshGateway();
    const before = await state(b);
    const document = await plainDocument();
    const importing = async (plain: unknown) =>
      b.gateway.handlers.importBackup({ file: await craft(plain), passphrase: PASSPHRASE }, ctx);
    await expect(importing({ ...document, version: 99 })).rejects.toMatchObject({
      code: 'backup_version_unsupported',
      status: 400,
    });
    await expect(importing({ ...document, format: 'something-else' })).rejects.toMatchObject({
      code: 'backup_invalid',
    });
    await expect(importing('just a string')).rejects.toMatchObject({ code: 'backup_invalid' });
    expect(await state(b)).toEqual(before);
  });

  it('refuses contents that break SPEC §3 with validation_failed and paths into the backup, changing nothing', async () => {
    const b = await freshGateway();
    const before = await state(b);
    const document = await plainDocument();
    const routes = document.config.endpoints[0]?.routes ?? [];
    expect(routes.map((route) => route.name)).toEqual(['dock-in', 'epcis']);
    routes[1] = { ...routes[1], name: 'DOCK-IN' };
    const crafted = await craft(document);
    await expect(b.gateway.handlers.importBackup({ file: crafted, passphrase: PASSPHRASE }, ctx)).rejects.toMatchObject(
      {
        code: 'validation_failed',
        status: 400,
        errors: [{ path: '/endpoints/0/routes/1/name', message: 'Route name "DOCK-IN" is used more than once' }],
      },
    );
    // A dry run validates just the same.
    await expect(
      b.gateway.handlers.importBackup({ file: crafted, passphrase: PASSPHRASE, dryRun: true }, ctx),
    ).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(await state(b)).toEqual(before);
    const audit = await b.gateway.handlers.listAudit({}, ctx);
    expect(audit.items.filter((item) => item.resource === 'backup')).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, basic, startTestGateway, type TestGateway, json } from '../helpers/test-gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const login = (userName: string, password: string) =>
  fetch(`${gw.base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName, password }),
  });

describe('roles', () => {
  it('has the built-in admin role, which cannot be deleted or renamed', async () => {
    const roles = (await gw.admin('GET', '/roles')).body;
    const admin = roles.find((r: { name: string }) => r.name === 'admin');
    expect(admin).toMatchObject({ builtIn: true });
    expect((await gw.admin('DELETE', `/roles/${admin.id}`)).body.code).toBe('role_builtin');
    const rename = await gw.admin('PUT', `/roles/${admin.id}`, { name: 'boss' });
    expect(rename.status).toBe(409);
    expect(rename.body.code).toBe('role_builtin');
  });

  it('checks the name pattern and case-insensitive uniqueness', async () => {
    expect((await gw.admin('POST', '/roles', { name: '1st' })).status).toBe(400);
    expect((await gw.admin('POST', '/roles', { name: 'site.ops-1', description: 'Ops' })).status).toBe(201);
    const dup = await gw.admin('POST', '/roles', { name: 'SITE.OPS-1' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('role_name_taken');
  });

  it('refuses to delete a role in use, listing every reference', async () => {
    const role = (await gw.admin('POST', '/roles', { name: 'scanners' })).body;
    const endpoint = await gw.admin('POST', '/endpoints', {
      name: 'Scan',
      baseRoutePath: 'scan',
      routes: [
        { name: 'scanIn', eventType: 'AllData', requestType: 'HttpPost', authType: 'OAuth2', roles: ['scanners'] },
      ],
    });
    const user = await gw.admin('POST', '/users', {
      username: 'scanuser',
      password: 'scan-pass-1',
      roles: ['scanners'],
    });
    const token = await gw.admin('POST', '/access-tokens', {
      name: 'scan-token',
      role: 'scanners',
      expiryDate: '2999-01-01',
    });
    const res = await gw.admin('DELETE', `/roles/${role.id}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('role_in_use');
    expect(res.body.references).toEqual(
      expect.arrayContaining([
        { kind: 'route', id: endpoint.body.routes[0].id, name: 'scanIn' },
        { kind: 'user', id: user.body.id, name: 'scanuser' },
        { kind: 'accessToken', id: token.body.id, name: 'scan-token' },
      ]),
    );
    const unused = (await gw.admin('POST', '/roles', { name: 'unused' })).body;
    expect((await gw.admin('DELETE', `/roles/${unused.id}`)).status).toBe(204);
  });
});

describe('users', () => {
  it.each([
    ['seven77', 400],
    ['é'.repeat(37), 400], // 74 bytes in UTF-8: over bcrypt's 72, refused rather than truncated
    ['x'.repeat(73), 400],
    ['x'.repeat(72), 201],
    ['eight888', 201],
  ])('password %j → %i', async (password, status) => {
    const res = await gw.admin('POST', '/users', {
      username: `pw${password.length}${status}${password.charCodeAt(0)}`,
      password,
    });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body.errors).toContainEqual(expect.objectContaining({ path: '/password' }));
  });

  it('checks username pattern and case-insensitive uniqueness, never returns the password', async () => {
    expect((await gw.admin('POST', '/users', { username: 'bad-name', password: 'password-1' })).status).toBe(400);
    const created = await gw.admin('POST', '/users', {
      username: 'Operator',
      password: 'password-1',
      displayName: 'Op',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      username: 'Operator',
      displayName: 'Op',
      roles: [],
      active: true,
      createdAt: expect.any(String),
    });
    const dup = await gw.admin('POST', '/users', { username: 'operator', password: 'password-1' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('username_taken');
    expect(JSON.stringify((await gw.admin('GET', '/users')).body)).not.toMatch(/password|\$2[aby]\$/);
  });

  it('ends bearer tokens when a user is disabled or changes password, and keeps roles live', async () => {
    const user = (await gw.admin('POST', '/users', { username: 'temp', password: 'temp-pass-1', roles: ['admin'] }))
      .body;
    const first = (await json(await login('temp', 'temp-pass-1'))).access_token as string;
    const asTemp = (token: string) =>
      fetch(`${gw.base}/_admin/api/roles`, { headers: { authorization: `Bearer ${token}` } });
    expect((await asTemp(first)).status).toBe(200);
    // role removed → 403 at once
    await gw.admin('PUT', `/users/${user.id}`, { username: 'temp', roles: [] });
    expect((await asTemp(first)).status).toBe(403);
    await gw.admin('PUT', `/users/${user.id}`, { username: 'temp', roles: ['admin'] });
    expect((await asTemp(first)).status).toBe(200);
    // password changed → old bearer dead
    await gw.admin('PUT', `/users/${user.id}`, { username: 'temp', roles: ['admin'], password: 'temp-pass-2' });
    const dead = await asTemp(first);
    expect(dead.status).toBe(401);
    expect((await json(dead)).code).toBe('credentials_invalid');
    const second = (await json(await login('temp', 'temp-pass-2'))).access_token as string;
    await gw.admin('PUT', `/users/${user.id}`, { username: 'temp', roles: ['admin'], active: false });
    expect((await asTemp(second)).status).toBe(401);
    expect((await login('temp', 'temp-pass-2')).status).toBe(401);
  });
});

describe('the last active admin (SPEC §14)', () => {
  interface UserDto {
    id: number;
    username: string;
    roles: string[];
    active: boolean;
  }
  const activeAdmins = async () =>
    ((await gw.admin('GET', '/users')).body as UserDto[]).filter((u) => u.active && u.roles.includes('admin'));

  it('cannot lose the admin role, be deactivated or be deleted: 409 last_admin', async () => {
    const admins = await activeAdmins();
    expect(admins.map((u) => u.username)).toEqual(['admin']);
    const id = admins[0].id;
    for (const [method, body] of [
      ['PUT', { username: 'admin', roles: [] }],
      ['PUT', { username: 'admin', roles: ['admin'], active: false }],
      ['DELETE', undefined],
    ] as const) {
      const res = await gw.admin(method, `/users/${id}`, body);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('last_admin');
      expect(res.body.detail).toMatch(/last active administrator/);
    }
    expect(await activeAdmins()).toEqual(admins);
    // Keeping the role (written in any case) and changing anything else is fine.
    const kept = await gw.admin('PUT', `/users/${id}`, { username: 'admin', roles: ['ADMIN'], displayName: 'Boss' });
    expect(kept.status).toBe(200);
  });

  it('lets an admin go once another active admin exists', async () => {
    const admin = (await activeAdmins())[0];
    const second = (
      await gw.admin('POST', '/users', { username: 'deputy', password: 'deputy-pass-1', roles: ['admin'] })
    ).body as UserDto;
    // An inactive admin does not count: deactivating the deputy leaves "admin" the last one again.
    expect(
      (await gw.admin('PUT', `/users/${second.id}`, { username: 'deputy', roles: ['admin'], active: false })).status,
    ).toBe(200);
    expect((await gw.admin('PUT', `/users/${admin.id}`, { username: 'admin', roles: [] })).body.code).toBe(
      'last_admin',
    );
    expect((await gw.admin('PUT', `/users/${second.id}`, { username: 'deputy', roles: ['admin'] })).status).toBe(200);
    // Now either may step down, but not both.
    expect((await gw.admin('PUT', `/users/${second.id}`, { username: 'deputy', roles: [] })).status).toBe(200);
    expect((await gw.admin('DELETE', `/users/${admin.id}`)).body.code).toBe('last_admin');
    expect((await gw.admin('DELETE', `/users/${second.id}`)).status).toBe(204);
  });
});

describe('external users', () => {
  beforeAll(async () => {
    const res = await gw.admin('POST', '/endpoints', {
      name: 'Ext',
      baseRoutePath: 'ext',
      routes: [
        { name: 'extBasic', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic' },
        { name: 'extOpen', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' },
      ],
    });
    expect(res.status).toBe(201);
  });

  it('may only hold existing basic routes, at least one on create', async () => {
    const none = await gw.admin('POST', '/external-users', { username: 'e1', password: 'ext-pass-1', routes: [] });
    expect(none.status).toBe(400);
    const open = await gw.admin('POST', '/external-users', {
      username: 'e1',
      password: 'ext-pass-1',
      routes: ['extOpen'],
    });
    expect(open.status).toBe(400);
    expect(open.body.errors).toContainEqual(expect.objectContaining({ path: '/routes/0' }));
    const missing = await gw.admin('POST', '/external-users', {
      username: 'e1',
      password: 'ext-pass-1',
      routes: ['nope'],
    });
    expect(missing.status).toBe(400);
    const ok = await gw.admin('POST', '/external-users', {
      firstName: 'Ann',
      lastName: 'Lee',
      username: 'e1',
      password: 'ext-pass-1',
      routes: ['EXTBASIC'],
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({
      id: expect.any(Number),
      firstName: 'Ann',
      lastName: 'Lee',
      username: 'e1',
      routes: ['extBasic'],
      active: true,
    });
    const emptied = await gw.admin('PUT', `/external-users/${ok.body.id}`, { username: 'e1', routes: [] });
    expect(emptied.status).toBe(200);
    expect(emptied.body.routes).toEqual([]);
  });

  it('has its own username namespace, unique case-insensitively', async () => {
    expect(
      (await gw.admin('POST', '/external-users', { username: 'admin', password: 'ext-pass-1', routes: ['extBasic'] }))
        .status,
    ).toBe(201);
    const dup = await gw.admin('POST', '/external-users', {
      username: 'ADMIN',
      password: 'ext-pass-1',
      routes: ['extBasic'],
    });
    expect(dup.body.code).toBe('username_taken');
    expect(
      (await gw.admin('POST', '/external-users', { username: 'no-dash', password: 'ext-pass-1', routes: ['extBasic'] }))
        .status,
    ).toBe(400);
  });
});

describe('access tokens', () => {
  it('returns the value once, stores only its hash, and cannot be edited', async () => {
    const created = await gw.admin('POST', '/access-tokens', {
      name: 'Dock reader',
      role: 'admin',
      expiryDate: '2999-12-31',
      description: 'x',
    });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^gwat_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({
      name: 'Dock reader',
      role: 'admin',
      expiryDate: '2999-12-31',
      status: 'Active',
      description: 'x',
    });
    expect(created.body.expiryInDays).toBeGreaterThan(300_000);
    expect(new Date(created.body.createdDate).toISOString()).toBe(created.body.createdDate);
    const listed = (await gw.admin('GET', '/access-tokens')).body;
    expect(JSON.stringify(listed)).not.toContain(created.body.token);
    expect((await gw.admin('GET', `/access-tokens/${created.body.id}`)).body.token).toBeUndefined();
    for (const method of ['PUT', 'PATCH']) {
      const res = await gw.admin(method, `/access-tokens/${created.body.id}`, { name: 'renamed' });
      expect(res.status).toBe(405);
      expect(res.body.code).toBe('method_not_allowed');
    }
    const regenerated = await gw.admin('POST', `/access-tokens/${created.body.id}/regenerate`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.token).not.toBe(created.body.token);
    expect(regenerated.body).toMatchObject({ role: 'admin', expiryDate: '2999-12-31', id: created.body.id });
    const files = readdirSync(gw.dataDir)
      .map((f) => readFileSync(join(gw.dataDir, f)).toString('latin1'))
      .join('');
    expect(files).not.toContain(created.body.token);
    expect(files).not.toContain(regenerated.body.token);
    expect(files).not.toContain(ADMIN_PASSWORD);
  });

  it('validates name, role and expiry date', async () => {
    const past = await gw.admin('POST', '/access-tokens', { name: 'old', role: 'admin', expiryDate: '2001-01-01' });
    expect(past.status).toBe(400);
    expect(past.body.errors).toContainEqual(expect.objectContaining({ path: '/expiryDate' }));
    expect(
      (await gw.admin('POST', '/access-tokens', { name: 'bad', role: 'admin', expiryDate: '2999-02-30' })).status,
    ).toBe(400);
    expect(
      (await gw.admin('POST', '/access-tokens', { name: 'norole', role: 'nobody', expiryDate: '2999-01-01' })).status,
    ).toBe(400);
    expect((await gw.admin('POST', '/access-tokens', { role: 'admin', expiryDate: '2999-01-01' })).status).toBe(400);
    await gw.admin('POST', '/access-tokens', { name: 'Twice', role: 'admin', expiryDate: '2999-01-01' });
    const dup = await gw.admin('POST', '/access-tokens', { name: 'twice', role: 'admin', expiryDate: '2999-01-01' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('token_name_taken');
  });
});

describe('settings', () => {
  it('answers every tunable and validates ranges without partial writes', async () => {
    const before = (await gw.admin('GET', '/settings')).body;
    expect(Object.keys(before).sort()).toEqual(
      [
        'adminAccess',
        'authFailureLimit',
        'bcryptCost',
        'bearerTokenTtlSeconds',
        'bodyLimitBytes',
        'host',
        'httpsPort',
        'maxOutboxItems',
        'maxQueueDepth',
        'mqttMode',
        'mqttPort',
        'mqttsPort',
        'port',
        'readerSilentAfterSeconds',
        'retentionDays',
        'retentionMaxEvents',
        'tagDedupWindowMs',
        'timeZone',
        'tlsMode',
        'trustedProxies',
      ].sort(),
    );
    expect(before).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      bodyLimitBytes: 1048576,
      bearerTokenTtlSeconds: 3600,
      bcryptCost: 10,
      retentionDays: 30,
      retentionMaxEvents: 5000000,
      tagDedupWindowMs: 1000,
      mqttMode: 'off',
      mqttPort: 1883,
      mqttsPort: 8883,
      authFailureLimit: 10,
      tlsMode: 'both',
      httpsPort: 8443,
      trustedProxies: [],
      adminAccess: 'lan',
    });
    for (const bad of [
      { tlsMode: 'sometimes' },
      { httpsPort: 65536 },
      { trustedProxies: '10.0.0.0/8' },
      { trustedProxies: ['not-an-ip'] },
      { adminAccess: 'nobody' },
      { bcryptCost: 3 },
      { bcryptCost: 15 },
      { timeZone: 'Mars/Olympus' },
      { port: 70000 },
      { bodyLimitBytes: '2048' },
      { surprise: 1 },
      { retentionMaxEvents: 999 },
      { host: 'bad host!' },
    ]) {
      const res = await gw.admin('PUT', '/settings', { retentionDays: 7, ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await gw.admin('GET', '/settings')).body).toEqual(before);
    const ok = await gw.admin('PUT', '/settings', { retentionDays: 7, timeZone: 'Europe/Berlin' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ retentionDays: 7, timeZone: 'Europe/Berlin' });
    expect(ok.body.restartRequired).toBeUndefined();
    const port = await gw.admin('PUT', '/settings', { port: 9090 });
    expect(port.body).toMatchObject({ port: 9090, restartRequired: true });
    expect((await gw.admin('PUT', '/settings', { port: 9090 })).body.restartRequired).toBeUndefined();
    expect((await gw.admin('PUT', '/settings', { tlsMode: 'on' })).body).toMatchObject({
      tlsMode: 'on',
      restartRequired: true,
    });
    expect((await gw.admin('PUT', '/settings', { httpsPort: 9443 })).body).toMatchObject({
      httpsPort: 9443,
      restartRequired: true,
    });
    const proxies = await gw.admin('PUT', '/settings', { trustedProxies: ['10.0.0.0/8'], adminAccess: 'lan' });
    expect(proxies.body.restartRequired).toBeUndefined();
  });
});

describe('audit log', () => {
  it('records who changed what, newest first, with no secrets', async () => {
    const res = await gw.admin('GET', '/audit?limit=5');
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(5);
    expect(res.body.nextCursor).toEqual(expect.any(String));
    const [newest] = res.body.items;
    expect(newest).toMatchObject({ actor: 'user:admin', action: 'update', resource: 'settings', resourceId: null });
    const all = (await gw.admin('GET', '/audit?limit=1000')).body.items;
    expect(all.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['create', 'update', 'delete', 'regenerate']),
    );
    expect(JSON.stringify(all)).not.toMatch(/gwat_|gwbt_|pass-/);
    const next = await gw.admin('GET', `/audit?limit=5&cursor=${res.body.nextCursor}`);
    expect(next.body.items[0].id).toBeLessThan(res.body.items[4].id);
  });
});

describe('ids that cannot name a record', () => {
  it.each(['roles', 'users', 'external-users', 'access-tokens'])(
    '/%s answers them with the same 404 as an unknown id',
    async (resource) => {
      const unknown = await gw.admin('GET', `/${resource}/99999`);
      expect(unknown.status).toBe(404);
      // `1e0` and ` 1` once reached record 1 (the admin user, the admin role) through Number().
      for (const id of ['abc', '0', '-3', '1e0', '%201', '2147483648']) {
        const calls: [string, string, unknown?][] = [
          ['GET', `/${resource}/${id}`],
          resource === 'access-tokens' ? ['POST', `/${resource}/${id}/regenerate`] : ['PUT', `/${resource}/${id}`, {}],
          ['DELETE', `/${resource}/${id}`],
        ];
        for (const [method, path, body] of calls) {
          const res = await gw.admin(method, path, body);
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(res.body).toMatchObject({ code: 'not_found', detail: unknown.body.detail });
        }
      }
      expect((await gw.admin('GET', '/users')).body.map((u: { username: string }) => u.username)).toContain('admin');
    },
  );
});

describe('list queries', () => {
  it.each(['/audit', '/events'])('%s refuses unknown parameters, bad cursors and bad limits', async (path) => {
    for (const query of ['foo=1', 'cursor=abc', 'cursor=0', 'cursor=a&cursor=b', 'limit=0', 'limit=x', 'limit=1001']) {
      const res = await gw.admin('GET', `${path}?${query}`);
      expect(res.status, `${path}?${query}`).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.errors[0].path).toBe(`/${query.split('=')[0]}`);
    }
    expect((await gw.admin('GET', `${path}?limit=2&cursor=`)).status).toBe(200);
  });
});

describe('names and lengths', () => {
  const emoji = '🙂'; // one character, two UTF-16 units

  it('counts lengths in characters, not UTF-16 units', async () => {
    const route = { name: 'wideR', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' };
    const wide = await gw.admin('POST', '/endpoints', {
      name: emoji.repeat(64),
      baseRoutePath: 'wide',
      routes: [route],
    });
    expect(wide.status).toBe(201);
    const wider = await gw.admin('POST', '/endpoints', {
      name: emoji.repeat(65),
      baseRoutePath: 'wider',
      routes: [{ ...route, name: 'widerR' }],
    });
    expect(wider.status).toBe(400);
    expect(wider.body.errors).toEqual([{ path: '/name', message: expect.any(String) }]);
    const token = { role: 'admin', expiryDate: '2999-01-01', description: emoji.repeat(1024) };
    expect((await gw.admin('POST', '/access-tokens', { ...token, name: emoji.repeat(128) })).status).toBe(201);
    expect((await gw.admin('POST', '/access-tokens', { ...token, name: emoji.repeat(129) })).status).toBe(400);
    const user = { username: 'wideUser', password: 'wide-pass-1', displayName: emoji.repeat(128) };
    expect((await gw.admin('POST', '/users', user)).status).toBe(201);
    const external = { password: 'wide-pass-1', routes: ['extBasic'], firstName: emoji.repeat(128) };
    expect((await gw.admin('POST', '/external-users', { ...external, username: 'wideExt' })).status).toBe(201);
    expect((await gw.admin('POST', '/roles', { name: 'wideRole', description: emoji.repeat(1024) })).status).toBe(201);
  });

  it.each([
    ['/endpoints', { name: ' \t ', baseRoutePath: 'blank', routes: [] }, '/name'],
    [
      '/endpoints',
      {
        name: 'Blank route',
        baseRoutePath: 'blankRoute',
        routes: [{ name: '  ', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' }],
      },
      '/routes/0/name',
    ],
    ['/access-tokens', { name: '   ', role: 'admin', expiryDate: '2999-01-01' }, '/name'],
    ['/roles', { name: '   ' }, '/name'],
    ['/users', { username: '  ', password: 'blank-pass-1' }, '/username'],
    ['/external-users', { username: ' ', password: 'blank-pass-1', routes: ['extBasic'] }, '/username'],
  ])('POST %s refuses a name that is blank after trimming', async (path, body, field) => {
    const res = await gw.admin('POST', path, body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({ path: field, message: expect.stringMatching(/required/) });
  });
});

describe('passwords on update', () => {
  it.each(['users', 'external-users'])(
    '/%s refuses an empty or short password and keeps the stored one only when it is omitted',
    async (resource) => {
      const username = `keep_${resource.replace('-', '_')}`;
      const fields = resource === 'users' ? { username } : { username, routes: ['extBasic'] };
      const created = await gw.admin('POST', `/${resource}`, { ...fields, password: 'kept-pass-1' });
      expect(created.status).toBe(201);
      for (const password of ['', 'short']) {
        const res = await gw.admin('PUT', `/${resource}/${created.body.id}`, { ...fields, password });
        expect(res.status, JSON.stringify(password)).toBe(400);
        expect(res.body.errors).toEqual([{ path: '/password', message: expect.stringMatching(/at least 8/) }]);
      }
      expect((await gw.admin('PUT', `/${resource}/${created.body.id}`, fields)).status).toBe(200);
      const works =
        resource === 'users'
          ? await login(username, 'kept-pass-1')
          : await fetch(`${gw.base}/ext/extBasic`, {
              method: 'POST',
              headers: { authorization: basic(username, 'kept-pass-1'), 'content-type': 'application/json' },
              body: '{}',
            });
      expect(works.status).toBe(200);
    },
  );
});

describe('settings values', () => {
  it.each(['999.999.999.999', '256.1.1.1', '1.2.3', '123', 'gateway.123', '1.2.3.4.5'])(
    'refuses host %j, which looks like an address and is none, changing nothing',
    async (host) => {
      const before = (await gw.admin('GET', '/settings')).body;
      const res = await gw.admin('PUT', '/settings', { retentionDays: 11, host });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ path: '/host', message: expect.any(String) }]);
      expect((await gw.admin('GET', '/settings')).body).toEqual(before);
    },
  );

  it.each(['192.168.1.10', '::1', 'gateway.local', 'reader-7', '3com.example', 'a1.b2c3', '0.0.0.0'])(
    'accepts host %j',
    async (host) => {
      const res = await gw.admin('PUT', '/settings', { host });
      expect(res.status).toBe(200);
      expect(res.body.host).toBe(host);
    },
  );

  it('stores and answers a time zone in its proper case, and an alias as written', async () => {
    for (const [sent, canonical] of [
      ['utc', 'UTC'],
      ['europe/berlin', 'Europe/Berlin'],
      ['AMERICA/NEW_YORK', 'America/New_York'],
      // ICU calls Asia/Calcutta canonical; the operator's (current IANA) name is kept.
      ['Asia/Kolkata', 'Asia/Kolkata'],
      ['Europe/Kyiv', 'Europe/Kyiv'],
    ]) {
      expect((await gw.admin('PUT', '/settings', { timeZone: sent })).body.timeZone).toBe(canonical);
      expect((await gw.admin('GET', '/settings')).body.timeZone).toBe(canonical);
    }
    expect((await gw.admin('PUT', '/settings', { timeZone: '+01:00' })).status).toBe(400);
  });
});

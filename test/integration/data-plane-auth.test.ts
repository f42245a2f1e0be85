import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, json, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** A controllable clock, so an access token can be made to expire. */
let clock = Date.now();
let gw: TestGateway;
const creds: Record<string, string> = {};
let ids: Record<string, number> = {};

const post = (route: string, authorization?: string, body: unknown = { hello: 'world' }) =>
  fetch(`${gw.base}/site/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify(body),
  });

const login = async (userName: string, password: string) =>
  (
    await json(
      await fetch(`${gw.base}/token`, { method: 'POST', headers: { authorization: basic(userName, password) } }),
    )
  ).access_token as string;

beforeAll(async () => {
  gw = await startTestGateway({ now: () => clock });
  // Generous limit: this file presents many bad credentials on purpose.
  await gw.admin('PUT', '/settings', { authFailureLimit: 1000, timeZone: 'UTC', bearerTokenTtlSeconds: 2_592_000 });
  await gw.admin('POST', '/roles', { name: 'ops' });
  await gw.admin('POST', '/roles', { name: 'other' });
  const route = (name: string, authType: string, roles: string[] = []) => ({
    name,
    eventType: 'AllData',
    requestType: 'HttpPost',
    authType,
    roles,
  });
  const endpoint = await gw.admin('POST', '/endpoints', {
    name: 'Site',
    baseRoutePath: 'site',
    routes: [
      route('open', 'noauth'),
      route('gate', 'basic'),
      route('gate2', 'basic'),
      route('secure', 'OAuth2', ['ops']),
    ],
  });
  expect(endpoint.status).toBe(201);
  const ext = await gw.admin('POST', '/external-users', {
    username: 'reader',
    password: 'reader-pass',
    routes: ['gate'],
  });
  const extOther = await gw.admin('POST', '/external-users', {
    username: 'reader2',
    password: 'reader2-pass',
    routes: ['gate2'],
  });
  const extOff = await gw.admin('POST', '/external-users', {
    username: 'readeroff',
    password: 'readeroff-pass',
    routes: ['gate'],
    active: false,
  });
  await gw.admin('POST', '/users', { username: 'opsuser', password: 'opsuser-pass', roles: ['ops'] });
  await gw.admin('POST', '/users', { username: 'plain', password: 'plain-pass', roles: ['other'] });
  const offUser = await gw.admin('POST', '/users', { username: 'offuser', password: 'offuser-pass', roles: ['ops'] });
  const opsToken = await gw.admin('POST', '/access-tokens', {
    name: 'ops-token',
    role: 'ops',
    expiryDate: '2999-01-01',
  });
  const otherToken = await gw.admin('POST', '/access-tokens', {
    name: 'other-token',
    role: 'other',
    expiryDate: '2999-01-01',
  });
  const today = new Date(clock).toISOString().slice(0, 10);
  const shortToken = await gw.admin('POST', '/access-tokens', { name: 'short-token', role: 'ops', expiryDate: today });
  const goneToken = await gw.admin('POST', '/access-tokens', {
    name: 'gone-token',
    role: 'ops',
    expiryDate: '2999-01-01',
  });
  const oldToken = await gw.admin('POST', '/access-tokens', {
    name: 'old-token',
    role: 'ops',
    expiryDate: '2999-01-01',
  });
  creds.basicOk = basic('reader', 'reader-pass');
  creds.basicWrong = basic('reader', 'not-the-pass');
  creds.basicUnassigned = basic('reader2', 'reader2-pass');
  creds.basicDisabled = basic('readeroff', 'readeroff-pass');
  creds.basicDashboardUser = basic('opsuser', 'opsuser-pass');
  creds.bearerOps = `Bearer ${await login('opsuser', 'opsuser-pass')}`;
  creds.bearerOther = `Bearer ${await login('plain', 'plain-pass')}`;
  creds.bearerDisabled = `Bearer ${await login('offuser', 'offuser-pass')}`;
  creds.tokenRaw = opsToken.body.token;
  creds.tokenBearer = `Bearer ${opsToken.body.token}`;
  creds.tokenOtherRole = otherToken.body.token;
  creds.tokenExpired = shortToken.body.token;
  creds.tokenDeleted = goneToken.body.token;
  creds.tokenRegenerated = oldToken.body.token;
  creds.garbage = 'Bearer gwbt_nope';
  await gw.admin('PUT', `/users/${offUser.body.id}`, { username: 'offuser', roles: ['ops'], active: false });
  await gw.admin('DELETE', `/access-tokens/${goneToken.body.id}`);
  await gw.admin('POST', `/access-tokens/${oldToken.body.id}/regenerate`);
  ids = { ext: ext.body.id, extOther: extOther.body.id, extOff: extOff.body.id, shortToken: shortToken.body.id };
  // The short token expires at 00:00 UTC after today.
  clock = Date.parse(`${today}T00:00:00Z`) + 86_400_000 + 1;
});
afterAll(() => gw.close());

type Expect = [number, string | null];
const OK: Expect = [200, null];
const MISSING: Expect = [401, 'credentials_missing'];
const INVALID: Expect = [401, 'credentials_invalid'];
const EXPIRED: Expect = [401, 'token_expired'];
const FORBIDDEN: Expect = [403, 'forbidden'];

const MATRIX: [string, Record<'open' | 'gate' | 'secure', Expect>][] = [
  ['none', { open: OK, gate: MISSING, secure: MISSING }],
  ['basicOk', { open: OK, gate: OK, secure: INVALID }],
  ['basicWrong', { open: OK, gate: INVALID, secure: INVALID }],
  ['basicUnassigned', { open: OK, gate: FORBIDDEN, secure: INVALID }],
  ['basicDisabled', { open: OK, gate: FORBIDDEN, secure: INVALID }],
  ['basicDashboardUser', { open: OK, gate: INVALID, secure: INVALID }],
  ['bearerOps', { open: OK, gate: INVALID, secure: OK }],
  ['bearerOther', { open: OK, gate: INVALID, secure: FORBIDDEN }],
  ['bearerDisabled', { open: OK, gate: INVALID, secure: INVALID }],
  ['tokenRaw', { open: OK, gate: INVALID, secure: OK }],
  ['tokenBearer', { open: OK, gate: INVALID, secure: OK }],
  ['tokenOtherRole', { open: OK, gate: INVALID, secure: FORBIDDEN }],
  ['tokenExpired', { open: OK, gate: INVALID, secure: EXPIRED }],
  ['tokenDeleted', { open: OK, gate: INVALID, secure: INVALID }],
  ['tokenRegenerated', { open: OK, gate: INVALID, secure: INVALID }],
  ['garbage', { open: OK, gate: INVALID, secure: INVALID }],
];

describe('authentication matrix (SPEC §4)', () => {
  for (const [credential, expectations] of MATRIX) {
    for (const route of ['open', 'gate', 'secure'] as const) {
      const [status, code] = expectations[route];
      it(`${credential} on ${route} → ${status}${code ? ` ${code}` : ''}`, async () => {
        const res = await post(route, credential === 'none' ? undefined : creds[credential]);
        expect(res.status).toBe(status);
        const body = await json(res);
        if (code) {
          expect(res.headers.get('content-type')).toContain('application/problem+json');
          expect(body).toMatchObject({ code, status });
          const challenge = res.headers.get('www-authenticate');
          if (status === 401)
            expect(challenge).toBe(route === 'gate' ? 'Basic realm="GWENDPOINTAPI"' : 'Bearer realm="GWENDPOINTAPI"');
          else expect(challenge).toBeNull();
        } else {
          expect(body).toMatchObject({ status: 'processed', eventType: 'AllData' });
        }
      });
    }
  }

  it('records who sent each event', async () => {
    await post('gate', creds.basicOk);
    await post('secure', creds.tokenRaw);
    await post('secure', creds.bearerOps);
    const events = (await gw.admin('GET', '/events?limit=3')).body.items.map((e: { principal: string }) => e.principal);
    expect(events).toEqual(['user:opsuser', 'token:ops-token', 'external:reader']);
  });

  it('applies changes on the very next request', async () => {
    expect((await post('gate', creds.basicOk)).status).toBe(200);
    await gw.admin('PUT', `/external-users/${ids.ext}`, { username: 'reader', routes: ['gate'], active: false });
    expect((await post('gate', creds.basicOk)).status).toBe(403);
    await gw.admin('PUT', `/external-users/${ids.ext}`, { username: 'reader', routes: ['gate'], active: true });
    expect((await post('gate', creds.basicOk)).status).toBe(200);
    await gw.admin('PUT', `/external-users/${ids.ext}`, {
      username: 'reader',
      routes: ['gate'],
      password: 'reader-pass-2',
    });
    expect((await post('gate', creds.basicOk)).status).toBe(401);
    expect((await post('gate', basic('reader', 'reader-pass-2'))).status).toBe(200);
    await gw.admin('DELETE', `/external-users/${ids.extOther}`);
    expect((await post('gate2', creds.basicUnassigned)).status).toBe(401);
  });

  it('refuses regenerating an expired token', async () => {
    const res = await gw.admin('POST', `/access-tokens/${ids.shortToken}/regenerate`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('token_expired');
    expect((await gw.admin('GET', `/access-tokens/${ids.shortToken}`)).body).toMatchObject({
      status: 'Expired',
      expiryInDays: -1,
    });
  });

  it('refuses an unauthenticated 50 MB upload without reading it', async () => {
    const url = new URL(`${gw.base}/site/gate`);
    const started = Date.now();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': 50 * 1024 * 1024 },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error),
      );
      // Send only the first kilobyte: the answer must come without the rest.
      req.write(Buffer.alloc(1024, 32));
    });
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ADMIN_PASSWORD, basic, startTestGateway, type TestGateway, json } from '../helpers/test-gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.close());

const adminGet = (authorization?: string) =>
  fetch(`${gw.base}/_admin/api/endpoints`, { headers: authorization ? { authorization } : {} });

describe('POST /GWENDPOINTAPI/token', () => {
  it('issues an opaque bearer token from JSON or Basic credentials', async () => {
    const res = await fetch(`${gw.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = await json(res);
    expect(body).toEqual({
      access_token: expect.stringMatching(/^gwbt_[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      roles: ['admin'],
    });
    const viaBasic = await fetch(`${gw.base}/token`, {
      method: 'POST',
      headers: { authorization: basic('admin', ADMIN_PASSWORD) },
    });
    expect(viaBasic.status).toBe(200);
  });

  it('refuses wrong credentials with invalid_grant and no challenge', async () => {
    const res = await fetch(`${gw.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'admin', password: 'wrong-password' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(res)).toMatchObject({ error: 'invalid_grant', code: 'credentials_invalid', status: 401 });
    const unknown = await fetch(`${gw.base}/token`, {
      method: 'POST',
      headers: { authorization: basic('nobody', 'whatever1') },
    });
    expect(unknown.status).toBe(401);
  });

  it('answers malformed JSON with 400 invalid_json and GET with 405', async () => {
    const res = await fetch(`${gw.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"userName":',
    });
    expect(res.status).toBe(400);
    expect((await json(res)).code).toBe('invalid_json');
    const get = await fetch(`${gw.base}/token`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});

describe('admin API authentication', () => {
  it('needs a credential', async () => {
    const res = await adminGet();
    expect(res.status).toBe(401);
    expect((await json(res)).code).toBe('credentials_missing');
  });

  it('refuses Basic, unknown bearers and access tokens, even with role admin', async () => {
    const token = (
      await gw.admin('POST', '/access-tokens', { name: 'admin-token', role: 'admin', expiryDate: '2999-01-01' })
    ).body.token;
    for (const authorization of [basic('admin', ADMIN_PASSWORD), 'Bearer gwbt_unknown', token, `Bearer ${token}`]) {
      const res = await adminGet(authorization);
      expect(res.status, authorization.slice(0, 12)).toBe(401);
      expect((await json(res)).code).toBe('credentials_invalid');
    }
  });

  it('refuses a live bearer without role admin with 403', async () => {
    await gw.admin('POST', '/users', { username: 'viewer', password: 'viewer-pass-1' });
    const login = await fetch(`${gw.base}/token`, {
      method: 'POST',
      headers: { authorization: basic('viewer', 'viewer-pass-1') },
    });
    const { access_token } = await json(login);
    const res = await adminGet(`Bearer ${access_token}`);
    expect(res.status).toBe(403);
    expect((await json(res)).code).toBe('forbidden');
  });

  it('answers unknown admin paths with 404 and bad bodies with 400', async () => {
    expect((await gw.admin('GET', '/nothing-here')).status).toBe(404);
    const res = await fetch(`${gw.base}/_admin/api/roles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await gw.adminToken()}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(400);
    expect((await json(res)).code).toBe('invalid_json');
  });
});

describe('health and unknown paths', () => {
  it('reports liveness without auth', async () => {
    const res = await fetch(`${gw.base}/_health`);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      status: 'ok',
      database: { kind: process.env.GATEWAY_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite', reachable: true },
      queueDepth: 0,
    });
  });

  it('answers paths outside the gateway with problem+json 404 and a request id', async () => {
    const res = await fetch(`http://127.0.0.1:${gw.server.port}/elsewhere`, { headers: { 'x-request-id': 'req-123' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('req-123');
    expect(await json(res)).toMatchObject({ code: 'route_not_found', requestId: 'req-123' });
  });
});

describe('brute-force lockout', () => {
  it('locks an IP out after more than authFailureLimit failures, even with the right password', async () => {
    // A gateway of its own: the other tests' failures from this address must not count here.
    const gw = await startTestGateway();
    onTestFinished(() => gw.close());
    expect((await gw.admin('PUT', '/settings', { authFailureLimit: 3 })).status).toBe(200);
    const attempt = (password: string) =>
      fetch(`${gw.base}/token`, { method: 'POST', headers: { authorization: basic('admin', password) } });
    for (let i = 0; i < 4; i++) expect((await attempt('wrong-password')).status).toBe(401);
    const locked = await attempt(ADMIN_PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(300);
    expect((await json(locked)).code).toBe('too_many_failures');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, json, startTestGateway, type TestGateway } from '../helpers/test-gateway';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  await gw.admin('PUT', '/settings', { authFailureLimit: 2 });
  await gw.admin('POST', '/endpoints', {
    name: 'L',
    baseRoutePath: 'l',
    routes: [{ name: 'locked', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic' }],
  });
  await gw.admin('POST', '/external-users', { username: 'scanner', password: 'scanner-pass', routes: ['locked'] });
});
afterAll(() => gw.close());

const post = (authorization?: string) =>
  fetch(`${gw.base}/l/locked`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: '{}',
  });

describe('brute-force lockout on data routes', () => {
  it('does not count missing credentials, counts wrong ones, then refuses even the right password', async () => {
    for (let i = 0; i < 5; i++) expect((await post()).status).toBe(401); // no credential: not a failure
    expect((await post(basic('scanner', 'scanner-pass'))).status).toBe(200);
    expect((await post(basic('scanner', 'wrong-1'))).status).toBe(401);
    expect((await post(basic('scanner', 'wrong-2'))).status).toBe(401);
    // The failure that takes the counter past the limit still answers 401 …
    expect((await post(basic('scanner', 'wrong-3'))).status).toBe(401);
    // … every request after that is refused, the right password included.
    const locked = await post(basic('scanner', 'scanner-pass'));
    expect(locked.status).toBe(429);
    expect((await json(locked)).code).toBe('too_many_failures');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

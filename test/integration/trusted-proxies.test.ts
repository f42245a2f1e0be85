import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, json, startTestGateway, type TestGateway } from '../helpers/test-gateway';

// SPEC §12: Forwarded / X-Forwarded-For are read only from a trusted proxy; the client is the
// right-most address that is not a trusted proxy, and that address is locked out and stored.
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
  await gw.adminToken(); // cached before any test locks out the loopback peer
  await gw.admin('PUT', '/settings', { authFailureLimit: 2 });
  await gw.admin('POST', '/endpoints', {
    name: 'P',
    baseRoutePath: 'p',
    routes: [{ name: 'proxied', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic' }],
  });
  await gw.admin('POST', '/external-users', { username: 'scanner', password: 'scanner-pass', routes: ['proxied'] });
});
afterAll(() => gw.close());

const post = (authorization: string, headers: Record<string, string> = {}, body = '{}') =>
  fetch(`${gw.base}/p/proxied`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization, ...headers },
    body,
  });

/** Wrong passwords of an unknown user: the address is locked out, `scanner` itself is not. */
const lockOut = async (headers: Record<string, string>, intruder: string) => {
  for (let i = 0; i < 3; i++) expect((await post(basic(intruder, `wrong-${i}`), headers)).status).toBe(401);
};

const sourceIpOf = async (marker: string): Promise<string> => {
  const events = await gw.admin('GET', '/events?limit=50');
  const event = (events.body.items as { payload: unknown; sourceIp: string }[]).find((item) =>
    JSON.stringify(item.payload).includes(marker),
  );
  if (!event) throw new Error(`no event with ${marker}`);
  return event.sourceIp;
};

describe('trusted proxies', () => {
  it('validates the setting: IP addresses and CIDRs only', async () => {
    const bad = await gw.admin('PUT', '/settings', { trustedProxies: ['10.0.0.0/8', 'proxy.example', '10.0.0.1/33'] });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['/trustedProxies/1']);
    const good = await gw.admin('PUT', '/settings', { trustedProxies: ['10.0.0.0/8', '::1', '127.0.0.1/32'] });
    expect(good.status).toBe(200);
    expect(good.body.trustedProxies).toEqual(['10.0.0.0/8', '::1', '127.0.0.1/32']);
    expect(good.body.restartRequired).toBeUndefined();
  });

  it('from a trusted proxy the forwarded client is stored and locked out, not the proxy', async () => {
    await gw.admin('PUT', '/settings', { trustedProxies: ['127.0.0.1', '10.0.0.0/8'] });
    // X-Forwarded-For: the right-most address that is not a trusted proxy (10.1.1.1 is one).
    const chain = { 'x-forwarded-for': '192.0.2.99, 203.0.113.7, 10.1.1.1' };
    expect((await post(basic('scanner', 'scanner-pass'), chain, '{"m":"xff"}')).status).toBe(200);
    expect(await sourceIpOf('xff')).toBe('203.0.113.7');
    // RFC 7239 Forwarded, quoted IPv6 with a port.
    const forwarded = { forwarded: 'for=192.0.2.1, for="[2001:db8:cafe::17]:4711";proto=https' };
    expect((await post(basic('scanner', 'scanner-pass'), forwarded, '{"m":"fwd"}')).status).toBe(200);
    expect(await sourceIpOf('fwd')).toBe('2001:db8:cafe::17');

    await lockOut({ 'x-forwarded-for': '203.0.113.50' }, 'intruder-1');
    expect((await post(basic('scanner', 'scanner-pass'), { 'x-forwarded-for': '203.0.113.50' })).status).toBe(429);
    // Another client behind the same proxy is not locked out with it.
    expect((await post(basic('scanner', 'scanner-pass'), { 'x-forwarded-for': '203.0.113.51' })).status).toBe(200);
  });

  it('adminAccess local: 403 admin_local_only for a non-loopback client, data routes stay open', async () => {
    const token = await gw.adminToken();
    const put = await gw.admin('PUT', '/settings', { adminAccess: 'local', trustedProxies: ['127.0.0.1'] });
    expect(put.status).toBe(200);
    const fromLan = await fetch(`${gw.base}/_admin/api/settings`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '192.0.2.44' },
    });
    expect(fromLan.status).toBe(403);
    expect((await json(fromLan)).code).toBe('admin_local_only');
    const webAdmin = await fetch(`${gw.base}/_admin/`, { headers: { 'x-forwarded-for': '192.0.2.44' } });
    expect(webAdmin.status).toBe(403);
    expect((await post(basic('scanner', 'scanner-pass'), { 'x-forwarded-for': '192.0.2.44' })).status).toBe(200);
    // From loopback it still answers.
    expect((await gw.admin('GET', '/settings')).status).toBe(200);
    const bad = await gw.admin('PUT', '/settings', { adminAccess: 'everyone' });
    expect(bad.body.code).toBe('validation_failed');
  });

  it('from an untrusted peer the headers are ignored: the peer itself is stored and locked out', async () => {
    // Last: it locks out 127.0.0.1, the peer every admin call of this file comes from.
    await gw.gateway.deps.settings.update({ trustedProxies: ['10.0.0.0/8'], adminAccess: 'lan' }, { actor: 'test' });
    expect(
      (await post(basic('scanner', 'scanner-pass'), { 'x-forwarded-for': '198.51.100.1' }, '{"m":"untrusted"}')).status,
    ).toBe(200);
    expect(await sourceIpOf('untrusted')).toMatch(/127\.0\.0\.1$/);
    await lockOut({ 'x-forwarded-for': '198.51.100.2' }, 'intruder-2');
    // Another forged address does not escape the lockout: it is the peer that was locked out.
    expect((await post(basic('scanner', 'scanner-pass'), { 'x-forwarded-for': '198.51.100.3' })).status).toBe(429);
  });
});

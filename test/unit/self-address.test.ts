import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { addressesGateway, reachesListener, type Lookup } from '../../server/self-address';

/** This machine's first non-loopback IPv4 address (every CI machine has one), else loopback. */
const lanAddress =
  Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address ?? '127.0.0.1';

const API = { apiRoot: '/GWENDPOINTAPI' };
const resolvesTo =
  (...addresses: string[]): Lookup =>
  () =>
    Promise.resolve(addresses);

describe('which addresses reach the gateway itself (delivery loops, issue 38)', () => {
  it('a wildcard listener answers on every local address: loopback, 127/8, the interfaces, 0.0.0.0', () => {
    const wildcard = [{ address: '0.0.0.0', port: 8080 }];
    for (const ip of ['127.0.0.1', '127.0.0.5', lanAddress, '0.0.0.0', '::ffff:127.0.0.1'])
      expect(reachesListener(ip, 8080, wildcard), ip).toBe(true);
    expect(reachesListener('127.0.0.1', 8081, wildcard)).toBe(false);
    expect(reachesListener('192.0.2.200', 8080, wildcard)).toBe(false);
    // IPv6 does not reach an IPv4 wildcard; the dual-stack one takes both.
    expect(reachesListener('::1', 8080, wildcard)).toBe(false);
    expect(reachesListener('::1', 8080, [{ address: '::', port: 8080 }])).toBe(true);
    expect(reachesListener('127.0.0.1', 8080, [{ address: '::', port: 8080 }])).toBe(true);
  });

  it('a listener bound to one address answers on that address only', () => {
    const loopback = [{ address: '127.0.0.1', port: 8080 }];
    expect(reachesListener('127.0.0.1', 8080, loopback)).toBe(true);
    expect(reachesListener('0.0.0.0', 8080, loopback)).toBe(true);
    expect(reachesListener('127.0.0.2', 8080, loopback)).toBe(false);
    expect(reachesListener(lanAddress === '127.0.0.1' ? '192.0.2.9' : lanAddress, 8080, loopback)).toBe(false);
  });

  it('resolves the host, takes the scheme default port, and looks only under the API path', async () => {
    const listeners = [
      { address: '0.0.0.0', port: 80 },
      { address: '0.0.0.0', port: 8443 },
    ];
    const local = resolvesTo(lanAddress);
    expect(
      await addressesGateway('http://gateway.lan/GWENDPOINTAPI/dock/reads', listeners, { ...API, lookup: local }),
    ).toBe(true);
    expect(await addressesGateway('https://gateway.lan:8443/GWENDPOINTAPI', listeners, { ...API, lookup: local })).toBe(
      true,
    );
    expect(await addressesGateway('https://gateway.lan/GWENDPOINTAPI/x', listeners, { ...API, lookup: local })).toBe(
      false,
    );
    expect(await addressesGateway('http://gateway.lan/other/GWENDPOINTAPI', listeners, { ...API, lookup: local })).toBe(
      false,
    );
    // Any one of the name's addresses is enough; one that does not resolve is not ours.
    const mixed = resolvesTo('192.0.2.200', '127.0.0.1');
    expect(await addressesGateway('http://wms.lan/GWENDPOINTAPI/a/b', listeners, { ...API, lookup: mixed })).toBe(true);
    const failing: Lookup = () => Promise.reject(new Error('ENOTFOUND'));
    expect(await addressesGateway('http://nowhere.lan/GWENDPOINTAPI/a/b', listeners, { ...API, lookup: failing })).toBe(
      false,
    );
    // IPv6 literals lose their brackets before they are compared.
    expect(await addressesGateway('http://[::1]:8443/GWENDPOINTAPI/a/b', [{ address: '::', port: 8443 }], API)).toBe(
      true,
    );
  });
});

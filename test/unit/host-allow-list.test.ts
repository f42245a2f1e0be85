import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { HostAllowList, namesOfUrls } from '../../server/http/middleware/host-allow-list';

describe('HostAllowList (DNS rebinding, issue 21.10)', () => {
  const list = new HostAllowList(
    () => namesOfUrls(['http://gw.lan:8080/GWENDPOINTAPI']),
    'gateway.example.com, Other.Name',
  );

  it('allows IP literals, localhost, this machine, listen names and configured names', () => {
    for (const host of [
      '127.0.0.1:8080',
      '192.168.1.20',
      '[::1]:8080',
      'localhost:8080',
      'app.localhost',
      hostname(),
      'gw.lan:8080',
      'GATEWAY.example.com',
      'other.name:443',
    ]) {
      expect(list.allows(host), host).toBe(true);
    }
  });

  it('refuses any other name and malformed values', () => {
    for (const host of ['attacker.example', 'gateway.example.com.attacker.example', 'a b', 'x:y:z', '[zz]']) {
      expect(list.allows(host), host).toBe(false);
    }
  });
});

import { ADMIN_PASSWORD, basic, type TestGateway } from './test-gateway';

/**
 * Creates one of everything that has a secret or names a person: a dashboard user (and its bearer
 * token), an external user on a basic route, an access token. Returns the strings that must never
 * appear in an unauthenticated answer.
 */
export async function createSecrets(gw: TestGateway): Promise<string[]> {
  const endpoint = await gw.admin('POST', '/endpoints', {
    name: 'Vault',
    baseRoutePath: 'vault',
    routes: [{ name: 'vaultDoor', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic' }],
  });
  if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status}`);
  const user = await gw.admin('POST', '/users', { username: 'leakyuser', password: 'user-secret-pw-1', roles: [] });
  if (user.status !== 201) throw new Error(`user: ${user.status}`);
  const external = await gw.admin('POST', '/external-users', {
    firstName: 'Ext',
    lastName: 'Ernal',
    username: 'leakyreader',
    password: 'reader-secret-pw-1',
    routes: ['vaultDoor'],
  });
  if (external.status !== 201) throw new Error(`external user: ${external.status}`);
  const accessToken = await gw.admin('POST', '/access-tokens', {
    name: 'leaky-token',
    role: 'admin',
    expiryDate: '2999-01-01',
  });
  if (accessToken.status !== 201) throw new Error(`access token: ${accessToken.status}`);
  const login = await fetch(`${gw.base}/token`, {
    method: 'POST',
    headers: { authorization: basic('leakyuser', 'user-secret-pw-1') },
  });
  const bearer = ((await login.json()) as { access_token: string }).access_token;
  // A credential refused on the data plane as well, so refusals have had their chance to be counted.
  await fetch(`${gw.base}/vault/vaultDoor`, {
    method: 'POST',
    headers: { authorization: basic('leakyreader', 'wrong-password'), 'content-type': 'application/json' },
    body: '{}',
  });
  return [
    'user-secret-pw-1',
    'reader-secret-pw-1',
    'wrong-password',
    String(accessToken.body.token),
    bearer,
    await gw.adminToken(),
    ADMIN_PASSWORD,
    'leakyuser',
    'leakyreader',
    'leaky-token',
  ];
}

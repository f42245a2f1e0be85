import type { Credential, CredentialVerifier, Principal } from '../auth/credentials';
import { assertNotLockedOut, authRefusal, failedAuthentication, lockedOut } from '../auth/guard';
import type { Attempt, Lockout } from '../auth/lockout';
import type { LiveRoute } from './route-table';

export interface AuthDeps {
  verifier: CredentialVerifier;
  lockout: Lockout;
}

/**
 * The authentication matrix of SPEC §4 for one submission, applied before any body byte is read:
 * - noauth: anyone; a credential is ignored.
 * - basic: only the username and password of an active external user assigned to the route.
 * - OAuth2: a `gwbt_` bearer token (after `Bearer`) of an active user holding a mapped role, or
 *   an access token (`gwat_…`, alone or after `Bearer`) that is Active and whose role is mapped.
 * Failures with a presented credential count towards the lockout (SPEC §10). Refusals are
 * AppErrors with their stable codes (401, 403, 429).
 */
export async function authorizeRoute(
  live: LiveRoute,
  credential: Credential,
  ip: string,
  deps: AuthDeps,
): Promise<Principal> {
  const { authType } = live.route;
  if (authType === 'noauth') return { kind: 'anonymous' };
  const realm = authType === 'basic' ? 'Basic' : 'Bearer';
  const username = credential.kind === 'basic' ? credential.username : undefined;
  // Usernames on data routes are external users' (their own lockout counters, SPEC §13).
  const attempt = deps.lockout.attempt({ ip, username, space: 'external' });
  assertNotLockedOut(attempt);
  if (credential.kind === 'none') throw authRefusal('credentials_missing', realm);
  try {
    const principal = await authenticate(credential, attempt, realm, deps.verifier, authType === 'basic');
    if (!permitted(live, principal)) throw authRefusal('forbidden', null);
    return principal;
  } finally {
    // A slot reserved for a password check and not failed (success, 403, error) is given back.
    attempt.done();
  }
}

/**
 * A client that authenticates once for what it will submit later (MQTT's CONNECT, SPEC §15):
 * no credential is the anonymous principal; a username and password are an external user's; a
 * password that is a token is that token (whatever the username). Refusals as `authorizeRoute`.
 */
export async function authenticateClient(credential: Credential, ip: string, deps: AuthDeps): Promise<Principal> {
  if (credential.kind === 'none') return { kind: 'anonymous' };
  const username = credential.kind === 'basic' ? credential.username : undefined;
  const attempt = deps.lockout.attempt({ ip, username, space: 'external' });
  assertNotLockedOut(attempt);
  try {
    return await authenticate(credential, attempt, null, deps.verifier, credential.kind === 'basic');
  } finally {
    attempt.done();
  }
}

/**
 * Whether `principal` may still submit to `live` right now: the route's auth type takes this
 * kind of principal, the user or token is still valid (SPEC §15: a credential that stops being
 * valid stops working), and it is assigned or mapped to the route.
 */
export async function mayStillSubmit(
  live: LiveRoute,
  client: { principal: Principal; credential: Credential },
  verifier: CredentialVerifier,
): Promise<boolean> {
  if (live.route.authType === 'noauth') return true;
  const current = await verifier.stillValid(client.principal, client.credential);
  return current !== null && permitted(live, current);
}

/** Whether a verified principal is assigned or mapped to the route (403 when not). */
function permitted(live: LiveRoute, principal: Principal): boolean {
  switch (live.route.authType) {
    case 'noauth':
      return true;
    case 'basic':
      return principal.kind === 'external' && principal.user.active && principal.user.routeIds.has(live.route.id);
    case 'OAuth2':
      if (principal.kind === 'token') return live.roleKeys.has(principal.role);
      if (principal.kind === 'user') return [...principal.user.roles].some((role) => live.roleKeys.has(role));
      return false;
  }
}

/**
 * Verifies a presented credential. `basic`: whether a Basic pair is what is expected (on a basic
 * route, or a username and password at CONNECT); a pair where a token is expected, or a token
 * where a pair is, is a failed attempt of the wrong kind.
 */
async function authenticate(
  credential: Exclude<Credential, { kind: 'none' }>,
  attempt: Attempt,
  realm: 'Basic' | 'Bearer' | null,
  verifier: CredentialVerifier,
  basic: boolean,
): Promise<Principal> {
  const refuse = (code: 'credentials_invalid' | 'token_expired'): never => {
    throw failedAuthentication(attempt, code, realm);
  };
  if (basic) {
    if (credential.kind !== 'basic') return refuse('credentials_invalid');
    const verified = await verifier.verifyExternal(credential, attempt);
    if (verified.ok) return { kind: 'external', user: verified.principal };
    if (verified.code === 'too_many_failures') throw lockedOut(verified.retryAfter);
    return refuse(verified.code);
  }
  // A token; its prefix tells which kind was presented.
  if (credential.kind !== 'token') return refuse('credentials_invalid');
  if (credential.value.startsWith('gwat_')) {
    const verified = await verifier.verifyAccessToken(credential.value);
    return verified.ok ? { kind: 'token', ...verified.principal } : refuse(verified.code);
  }
  // A bearer token is only taken after `Bearer` (HTTP), where the header says which it is.
  if (!credential.bearer) return refuse('credentials_invalid');
  const verified = await verifier.verifyBearer(credential.value);
  return verified.ok ? { kind: 'user', user: verified.principal } : refuse(verified.code);
}

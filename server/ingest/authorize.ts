import {
  parseAuthorization,
  type CredentialVerifier,
  type PresentedCredential,
  type Principal,
} from '../auth/credentials';
import { assertNotLockedOut, authRefusal, failedAuthentication, lockedOut } from '../auth/guard';
import type { Attempt, Lockout } from '../auth/lockout';
import type { LiveRoute } from './route-table';

/**
 * The authentication matrix of SPEC §4, applied before any body byte is read:
 * - noauth: anyone; an Authorization header is ignored.
 * - basic: only `Basic` of an active external user assigned to the route.
 * - OAuth2: `Bearer <gwbt_…>` of an active user holding a mapped role, or an access token
 *   (`<gwat_…>` alone or after `Bearer`) that is Active and whose role is mapped.
 * Failures with a presented credential count towards the lockout (SPEC §10).
 */
export async function authorizeRoute(
  live: LiveRoute,
  authorization: string | undefined,
  ip: string,
  deps: { verifier: CredentialVerifier; lockout: Lockout },
): Promise<Principal> {
  const { authType } = live.route;
  if (authType === 'noauth') return { kind: 'anonymous' };
  const realm = authType === 'basic' ? 'Basic' : 'Bearer';
  const credential = parseAuthorization(authorization);
  const username = credential?.scheme === 'basic' ? credential.username : undefined;
  // Usernames on data routes are external users' (their own lockout counters, SPEC §13).
  const attempt = deps.lockout.attempt({ ip, username, space: 'external' });
  assertNotLockedOut(attempt);
  if (!credential) throw authRefusal('credentials_missing', realm);
  try {
    return await authorizeCredential(live, credential, attempt, realm, deps.verifier);
  } finally {
    // A slot reserved for a password check and not failed (success, 403, error) is given back.
    attempt.done();
  }
}

async function authorizeCredential(
  live: LiveRoute,
  credential: PresentedCredential,
  attempt: Attempt,
  realm: 'Basic' | 'Bearer',
  verifier: CredentialVerifier,
): Promise<Principal> {
  const refuse = (code: 'credentials_invalid' | 'token_expired' | 'too_many_failures', retryAfter = 0): never => {
    if (code === 'too_many_failures') throw lockedOut(retryAfter);
    throw failedAuthentication(attempt, code, realm);
  };

  if (live.route.authType === 'basic') {
    if (credential.scheme !== 'basic') return refuse('credentials_invalid');
    const verified = await verifier.verifyExternal(credential, attempt);
    if (!verified.ok) return refuse(verified.code, 'retryAfter' in verified ? verified.retryAfter : 0);
    const user = verified.principal;
    // A valid credential that is not allowed here is a 403 and does not count as a failure.
    if (!user.active || !user.routeIds.has(live.route.id)) throw authRefusal('forbidden', null);
    return { kind: 'external', user };
  }

  // OAuth2: a bearer token or an access token; the prefix tells which one was presented.
  const token = credential.scheme === 'bearer' || credential.scheme === 'raw' ? credential.token : null;
  if (token === null) return refuse('credentials_invalid');
  if (token.startsWith('gwat_')) {
    const verified = await verifier.verifyAccessToken(token);
    if (!verified.ok) return refuse(verified.code);
    if (!live.roleKeys.has(verified.principal.role)) throw authRefusal('forbidden', null);
    return { kind: 'token', ...verified.principal };
  }
  if (credential.scheme !== 'bearer') return refuse('credentials_invalid');
  const verified = await verifier.verifyBearer(token);
  if (!verified.ok) return refuse(verified.code);
  const user = verified.principal;
  if (![...user.roles].some((role) => live.roleKeys.has(role))) throw authRefusal('forbidden', null);
  return { kind: 'user', user };
}

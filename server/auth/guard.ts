import { AppError } from '../errors';
import type { Attempt } from './lockout';

export type Realm = 'Basic' | 'Bearer';

/** The 429 of the lockout (SPEC §4), with `Retry-After` (at least a second). */
export function lockedOut(retryAfter: number): AppError {
  return new AppError('too_many_failures', 'Too many failed authentication attempts; try again later', {
    headers: { 'Retry-After': String(Math.max(1, retryAfter)) },
  });
}

/** 429 when the source IP or the presented username has failed too often (SPEC §4). */
export function assertNotLockedOut(attempt: Attempt): void {
  const retryAfter = attempt.retryAfter();
  if (retryAfter > 0) throw lockedOut(retryAfter);
}

/**
 * The refusal of a presented credential that failed: counted towards the lockout, and 401, or
 * 429 when the lockout was already in effect before this failure (a check that ran in parallel
 * with the failures that locked it, SPEC §13).
 */
export function failedAuthentication(
  attempt: Attempt,
  code: 'credentials_invalid' | 'token_expired',
  realm: Realm | null,
): AppError {
  const lockedFor = attempt.fail();
  return lockedFor > 0 ? lockedOut(lockedFor) : authRefusal(code, realm);
}

/** The 401s and 403 of the auth matrix, with the challenge header where SPEC asks for one. */
export function authRefusal(
  code: 'credentials_missing' | 'credentials_invalid' | 'token_expired' | 'forbidden',
  realm: Realm | null,
): AppError {
  const messages = {
    credentials_missing: 'Authentication is required for this route',
    credentials_invalid: 'The presented credentials are not valid here',
    token_expired: 'The presented token has expired',
    forbidden: 'These credentials are not allowed to use this route',
  } as const;
  const headers: Record<string, string> =
    code !== 'forbidden' && realm ? { 'WWW-Authenticate': `${realm} realm="GWENDPOINTAPI"` } : {};
  return new AppError(code, messages[code], { headers });
}

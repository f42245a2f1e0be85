import { AppError } from '../errors';
import type { Lockout } from './lockout';

export type Realm = 'Basic' | 'Bearer';

/** 429 when the source IP or the presented username has failed too often (SPEC §4). */
export function assertNotLockedOut(lockout: Lockout, ip: string, username?: string): void {
  const retryAfter = lockout.retryAfter(ip, username);
  if (retryAfter > 0) {
    throw new AppError('too_many_failures', 'Too many failed authentication attempts; try again later', {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
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

import type { Credential } from '../auth/credentials';

/**
 * An `Authorization` header as the transport-neutral credential (SPEC §4): `Basic` (strict
 * base64 of `user:password`), `Bearer <token>`, or an access token alone; anything else that was
 * presented is `malformed`, and no header (or an empty one) is `none`.
 */
export function credentialFromHeader(header: string | undefined): Credential {
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const value = header.trim();
  const space = value.indexOf(' ');
  const scheme = space === -1 ? '' : value.slice(0, space).toLowerCase();
  const rest = space === -1 ? '' : value.slice(space + 1).trim();
  if (scheme === 'basic') {
    // Strict base64 (RFC 7617 → RFC 4648 §4): Node's decoder skips anything it does not know, so
    // `a!b`, a missing pad or trailing junk would otherwise still name a user.
    if (!isCanonicalBase64(rest)) return { kind: 'malformed' };
    const decoded = Buffer.from(rest, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) return { kind: 'malformed' };
    return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  if (scheme === 'bearer') return rest ? { kind: 'token', value: rest, bearer: true } : { kind: 'malformed' };
  // `Authorization: <access token>`: the value alone, as the source describes access tokens.
  if (space === -1) return { kind: 'token', value, bearer: false };
  return { kind: 'malformed' };
}

/** Whether `text` is base64 exactly as an encoder writes it (alphabet, padding, no stray bits). */
function isCanonicalBase64(text: string): boolean {
  return (
    text.length % 4 === 0 &&
    /^[A-Za-z0-9+/]*={0,2}$/.test(text) &&
    Buffer.from(text, 'base64').toString('base64') === text
  );
}

import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { bcryptCompare, bcryptHash } from './bcrypt-pool';
import type { FieldError } from './contract/errors';

/** `gwat_` access tokens and `gwbt_` bearer tokens: prefix + 32 random bytes as 43 base64url chars. */
export function generateToken(prefix: 'gwat_' | 'gwbt_'): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * Token values are high-entropy, so a plain SHA-256 is the right hash (no salt or stretching
 * needed). One-shot `hash` (a third of `createHash`'s cost: it runs on every authenticated request).
 */
export function sha256Hex(value: string | Buffer): string {
  return hash('sha256', value, 'hex');
}

/** Constant-time string comparison (length leaks nothing useful for fixed-length hashes). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** bcrypt works on at most 72 bytes; longer passwords are refused rather than silently truncated. */
export function passwordProblem(password: string, path = '/password'): FieldError | null {
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes < 8) return { path, message: 'Password must be at least 8 bytes' };
  if (bytes > 72) return { path, message: 'Password must be at most 72 bytes (UTF-8)' };
  return null;
}

/** bcrypt in the worker pool: hashing a new password never blocks the event loop either. */
export function hashPassword(password: string, cost: number): Promise<string> {
  return bcryptHash(password, cost);
}

/**
 * Password checks made so far (bcrypt compares run) and the cost of the last hash checked against:
 * a seam for tests that must prove the lockout stops verifying, without timing anything.
 */
export const passwordChecks = { count: 0, lastCost: 0 };

/**
 * bcrypt compares only the first 72 bytes, so a longer presented password would match a stored one
 * that is its prefix. Stored passwords are at most 72 bytes (`passwordProblem`), so a longer one
 * never matches; it still costs a full compare, so its length tells nothing.
 */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  passwordChecks.count++;
  passwordChecks.lastCost = Number(hash.slice(4, 6));
  const matches = await bcryptCompare(password, hash);
  return matches && Buffer.byteLength(password, 'utf8') <= 72;
}

const dummyHashes = new Map<number, Promise<string>>();

/**
 * A bcrypt hash of a random string at `cost`, compared against when the username is unknown, so a
 * wrong username costs the same time as a wrong password at the current `bcryptCost` and does not
 * reveal which usernames exist. Made once per cost, in the pool.
 */
export function dummyPasswordHash(cost: number): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (!hash) {
    hash = hashPassword(randomBytes(16).toString('hex'), cost);
    hash.catch(() => dummyHashes.delete(cost));
    dummyHashes.set(cost, hash);
  }
  return hash;
}

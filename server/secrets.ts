import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
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

export function hashPassword(password: string, cost: number): Promise<string> {
  return bcrypt.hash(password, cost);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

/**
 * A bcrypt hash of a random string, compared against when the username is unknown, so a wrong
 * username costs the same time as a wrong password and does not reveal which usernames exist.
 */
export const DUMMY_PASSWORD_HASH = bcrypt.hashSync(randomBytes(16).toString('hex'), 10);

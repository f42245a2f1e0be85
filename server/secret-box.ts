import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A credential as the database holds it: sealed by a `SecretBox`, or still clear when it was
 * written before sealing existed (until the start that seals it). Only `SecretBox.seal` makes one,
 * so a clear secret cannot be written by mistake; `SecretBox.open` gives the value back.
 */
export type SealedSecret = string & { readonly __sealed: unique symbol };

/** Version 1: `gwsec1:<key id>:<base64url(IV 12 | tag 16 | AES-256-GCM ciphertext)>`. */
const PREFIX = 'gwsec1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** The key's file in the data folder, mode 0600: 64 hex characters, as GATEWAY_SECRET_KEY takes them. */
export const SECRET_KEY_FILE = 'secret.key';

/** A key's short public name (not secret: 32 bits of its SHA-256), stored with each sealed value. */
const keyIdOf = (key: Buffer): string => hash('sha256', key, 'hex').slice(0, 8);

/** Whether a stored value is sealed (else it is a clear one from before sealing). */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

/** A sealed value that this gateway's key does not open: named so an operator can tell which key it needs. */
export class SecretKeyMismatch extends Error {}

/**
 * Seals and opens the credentials the gateway must send again (destination passwords, bearer
 * tokens, HMAC secrets: they cannot be hashed). AES-256-GCM with a random IV per value; the
 * version and key id are the additional data, so a value cannot be moved to another format or key
 * unnoticed. The key is kept outside the database, so a copied database file alone does not give
 * them away.
 */
export interface SecretBox {
  /** This key's public name (8 hex characters). */
  readonly keyId: string;
  seal(plain: string): SealedSecret;
  /** The clear value; a clear stored value comes back as it is; another key's throws `SecretKeyMismatch`. */
  open(stored: SealedSecret): string;
  /** The key id a sealed value names, or null for a clear one. */
  keyIdOf(stored: string): string | null;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error(`the secret key must be ${KEY_BYTES} bytes`);
  const keyId = keyIdOf(key);
  const header = `${PREFIX}${keyId}:`;
  const storedKeyId = (stored: string): string | null =>
    isSealed(stored) ? stored.slice(PREFIX.length, stored.indexOf(':', PREFIX.length)) : null;
  return {
    keyId,
    keyIdOf: storedKeyId,
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(header));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `${header}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}` as SealedSecret;
    },
    open(stored) {
      const id = storedKeyId(stored);
      if (id === null) return stored;
      if (id !== keyId)
        throw new SecretKeyMismatch(
          `a destination secret is sealed with key ${id}, and this gateway's key is ${keyId}: give it the data folder's ${SECRET_KEY_FILE} (or GATEWAY_SECRET_KEY) the secret was saved with, or enter the secret again`,
        );
      const packed = Buffer.from(stored.slice(header.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, packed.subarray(0, IV_BYTES)).setAAD(Buffer.from(header));
      decipher.setAuthTag(packed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(packed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretKeyMismatch(`a destination secret sealed with key ${keyId} is damaged: enter the secret again`);
      }
    },
  };
}

/** 64 hex characters (as the key file holds them) or base64 of 32 bytes; null for anything else. */
function parseKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed, 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  return null;
}

/**
 * The key that seals stored credentials. `GATEWAY_SECRET_KEY` (given as `fromEnv`) wins: instances
 * on one PostgreSQL database in data folders of their own must share one key, and a container
 * takes it as a secret. Otherwise the data folder's `secret.key` (mode 0600), made at the first
 * start: a SQLite database and its key sit side by side, but a copy of the database alone (a file
 * mailed for support, a stray copy) carries no credential it could open.
 */
export function loadSecretKey(options: { dataDir: string; fromEnv?: string }): Buffer {
  if (options.fromEnv !== undefined) {
    const key = parseKey(options.fromEnv);
    if (!key) throw new Error('GATEWAY_SECRET_KEY must be 32 bytes as 64 hex characters (or base64)');
    return key;
  }
  const file = join(options.dataDir, SECRET_KEY_FILE);
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) {
    // Written whole under a name of its own, then linked into place: two instances sharing a data
    // folder that start at once keep the first one's key, and neither reads a half-written file.
    const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(draft, `${randomBytes(KEY_BYTES).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(draft, { force: true });
    }
  }
  if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  const key = parseKey(readFileSync(file, 'utf8'));
  if (!key) throw new Error(`${file} does not hold a key (64 hex characters)`);
  return key;
}

/** The box over `loadSecretKey`'s key. */
export const openSecretBox = (options: { dataDir: string; fromEnv?: string }): SecretBox =>
  createSecretBox(loadSecretKey(options));

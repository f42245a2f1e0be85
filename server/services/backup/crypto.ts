import { createCipheriv, createDecipheriv, randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { AppError } from '../../errors';

/**
 * The encrypted container. Layout (all lengths in bytes):
 *
 *   0   4   magic "GWBK" (ASCII)
 *   4   1   container version (2; 1 is still read)
 *   5  16   scrypt salt (random per file)
 *  21  12   AES-256-GCM IV (random per file)
 *  33  16   GCM authentication tag
 *  49   …   ciphertext of the UTF-8 JSON document
 *
 * The first 33 bytes (magic, version, salt, IV) are the GCM additional authenticated data, so
 * every byte of the file is covered by the tag. The KDF parameters are fixed by the container
 * version rather than written in the file: a file cannot then ask for a huge scrypt cost.
 * Version 2 differs from 1 only in its scrypt cost.
 */
const MAGIC = Buffer.from('GWBK', 'ascii');
export const CONTAINER_VERSION = 2;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const HEADER_BYTES = MAGIC.length + 1 + SALT_BYTES + IV_BYTES;
const MIN_FILE_BYTES = HEADER_BYTES + TAG_BYTES;

/**
 * scrypt parameters per container version. Version 2 (written now): N = 2^17, r = 8, the cost
 * OWASP recommends: 128 MiB and a noticeable time per derivation (figures: docs/performance.md,
 * P28; record docs/decisions/0171-backup-container-v2-scrypt.md), on libuv's thread pool, not the event
 * loop. Version 1 (N = 2^15) is still read. maxmem leaves room above 128·N·r.
 */
const SCRYPT_BY_VERSION: Readonly<Record<number, ScryptOptions>> = {
  1: { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 },
  2: { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 },
};
const KEY_BYTES = 32;

export const BACKUP_INVALID_MESSAGE = 'The backup could not be decrypted: wrong passphrase or damaged file';
const invalid = () => new AppError('backup_invalid', BACKUP_INVALID_MESSAGE);

function deriveKey(passphrase: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // NFC: the same passphrase typed on another OS or keyboard may arrive in another Unicode form.
    scrypt(passphrase.normalize('NFC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `version` is for tests that need a file as an older gateway wrote it. */
export async function encryptBackup(plain: Buffer, passphrase: string, version = CONTAINER_VERSION): Promise<Buffer> {
  const options = SCRYPT_BY_VERSION[version];
  if (!options) throw new Error(`unknown backup container version ${version}`);
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const header = Buffer.concat([MAGIC, Buffer.from([version]), salt, iv]);
  const key = await deriveKey(passphrase, salt, options);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(header);
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([header, cipher.getAuthTag(), ciphertext]);
}

/**
 * Every failure (too short, wrong magic, unknown container version, wrong passphrase, any changed
 * byte) is the same 400 `backup_invalid`: before the tag verifies nothing in the file can be
 * trusted, so an odd version byte is as likely damage as a newer writer.
 */
export async function decryptBackup(file: Buffer, passphrase: string): Promise<Buffer> {
  if (file.length < MIN_FILE_BYTES) throw invalid();
  const header = file.subarray(0, HEADER_BYTES);
  const options = SCRYPT_BY_VERSION[header[MAGIC.length] ?? 0];
  if (!header.subarray(0, MAGIC.length).equals(MAGIC) || !options) throw invalid();
  const salt = header.subarray(MAGIC.length + 1, MAGIC.length + 1 + SALT_BYTES);
  const iv = header.subarray(MAGIC.length + 1 + SALT_BYTES);
  const tag = file.subarray(HEADER_BYTES, MIN_FILE_BYTES);
  const key = await deriveKey(passphrase, salt, options);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(header);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(file.subarray(MIN_FILE_BYTES)), decipher.final()]);
  } catch {
    // final() throws when the tag does not verify; the reason is deliberately not told apart.
    throw invalid();
  }
}

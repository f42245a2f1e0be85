import { createDecipheriv, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CONTAINER_VERSION, HEADER_BYTES, decryptBackup, encryptBackup } from '../../server/services/backup/crypto';

const PASSPHRASE = 'correct horse battery';
const PLAIN = Buffer.from(JSON.stringify({ format: 'gateway-backup', secret: 'visible-only-inside' }), 'utf8');

describe('backup container', () => {
  it('round-trips and has the documented layout', async () => {
    const file = await encryptBackup(PLAIN, PASSPHRASE);
    expect(file.subarray(0, 4).toString('ascii')).toBe('GWBK');
    expect(file[4]).toBe(CONTAINER_VERSION);
    expect(HEADER_BYTES).toBe(33);
    // header 33 + tag 16 + ciphertext (GCM: same length as the plaintext)
    expect(file.length).toBe(33 + 16 + PLAIN.length);
    expect(file.includes(Buffer.from('visible-only-inside'))).toBe(false);
    expect(await decryptBackup(file, PASSPHRASE)).toEqual(PLAIN);
  });

  it('writes container version 2, keyed with scrypt N = 2^17, r = 8, p = 1', async () => {
    const file = await encryptBackup(PLAIN, PASSPHRASE);
    expect(file[4]).toBe(2);
    // Decrypted here by hand with exactly those parameters: the file really is keyed with them.
    const key = scryptSync(PASSPHRASE, file.subarray(5, 21), 32, { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 });
    const decipher = createDecipheriv('aes-256-gcm', key, file.subarray(21, 33), { authTagLength: 16 });
    decipher.setAAD(file.subarray(0, 33));
    decipher.setAuthTag(file.subarray(33, 49));
    expect(Buffer.concat([decipher.update(file.subarray(49)), decipher.final()])).toEqual(PLAIN);
  });

  it('still reads version 1 files (scrypt N = 2^15)', async () => {
    const old = await encryptBackup(PLAIN, PASSPHRASE, 1);
    expect(old[4]).toBe(1);
    expect(await decryptBackup(old, PASSPHRASE)).toEqual(PLAIN);
    await expect(decryptBackup(old, 'wrong passphrase')).rejects.toMatchObject({ code: 'backup_invalid' });
  });

  it('uses a fresh salt and IV for every file', async () => {
    const [a, b] = await Promise.all([encryptBackup(PLAIN, PASSPHRASE), encryptBackup(PLAIN, PASSPHRASE)]);
    expect(a.subarray(5, 21).equals(b.subarray(5, 21))).toBe(false);
    expect(a.subarray(21, 33).equals(b.subarray(21, 33))).toBe(false);
    expect(a.subarray(33).equals(b.subarray(33))).toBe(false);
  });

  it('treats the passphrase in any Unicode normal form alike', async () => {
    const composed = 'pass-phrase-\u00e9';
    const decomposed = 'pass-phrase-e\u0301';
    const file = await encryptBackup(PLAIN, composed);
    expect(await decryptBackup(file, decomposed)).toEqual(PLAIN);
  });

  it('refuses a wrong passphrase, any flipped byte and any truncation with backup_invalid', async () => {
    const file = await encryptBackup(PLAIN, PASSPHRASE);
    await expect(decryptBackup(file, 'wrong passphrase')).rejects.toMatchObject({
      code: 'backup_invalid',
      status: 400,
    });
    // First and last byte of every region: magic, version, salt, IV, tag, ciphertext. (Each try
    // costs one scrypt derivation, so not every byte.)
    const middle = 49 + Math.floor((file.length - 49) / 2);
    for (const offset of [0, 3, 4, 5, 20, 21, 32, 33, 48, 49, middle, file.length - 1]) {
      const damaged = Buffer.from(file);
      damaged[offset] = (damaged[offset] ?? 0) ^ 0x01;
      await expect(decryptBackup(damaged, PASSPHRASE), `byte ${offset}`).rejects.toMatchObject({
        code: 'backup_invalid',
      });
    }
    for (const length of [0, 4, 33, 48, 49, file.length - 1]) {
      await expect(decryptBackup(file.subarray(0, length), PASSPHRASE), `length ${length}`).rejects.toMatchObject({
        code: 'backup_invalid',
      });
    }
    await expect(decryptBackup(Buffer.concat([file, Buffer.from([0])]), PASSPHRASE)).rejects.toMatchObject({
      code: 'backup_invalid',
    });
  });
});

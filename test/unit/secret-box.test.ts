import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSecretBox,
  loadSecretKey,
  SECRET_KEY_FILE,
  SecretKeyMismatch,
  type SealedSecret,
} from '../../server/secret-box';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the secret box (destination credentials at rest, issue 38)', () => {
  it('seals with a fresh IV each time and opens what it sealed; a clear value opens as itself', () => {
    const box = createSecretBox(randomBytes(32));
    const [one, two] = [box.seal('p@ss wörd'), box.seal('p@ss wörd')];
    expect(one).not.toBe(two);
    expect(one.startsWith(`gwsec1:${box.keyId}:`)).toBe(true);
    expect([box.open(one), box.open(two)]).toEqual(['p@ss wörd', 'p@ss wörd']);
    expect(box.open('from-before' as SealedSecret)).toBe('from-before');
    expect(box.keyIdOf(one)).toBe(box.keyId);
    expect(box.keyIdOf('from-before')).toBeNull();
  });

  it("refuses another key's value, naming both keys, and a value altered in any byte", () => {
    const box = createSecretBox(randomBytes(32));
    const other = createSecretBox(randomBytes(32));
    const sealed = other.seal('secret');
    expect(() => box.open(sealed)).toThrow(SecretKeyMismatch);
    expect(() => box.open(sealed)).toThrow(new RegExp(`${other.keyId}.*${box.keyId}`));
    const own = box.seal('secret');
    const last = own.at(-2) === 'A' ? 'B' : 'A';
    expect(() => box.open(`${own.slice(0, -2)}${last}${own.slice(-1)}` as SealedSecret)).toThrow(SecretKeyMismatch);
  });

  it('keeps its key in the data folder, 0600, made once; GATEWAY_SECRET_KEY wins and writes nothing', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'gateway-key-')), 'data');
    dirs.push(dataDir);
    const key = loadSecretKey({ dataDir });
    expect(key).toHaveLength(32);
    const file = join(dataDir, SECRET_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(file, 'utf8').trim()).toBe(key.toString('hex'));
    expect(loadSecretKey({ dataDir })).toEqual(key);

    const given = randomBytes(32);
    const elsewhere = join(dataDir, 'elsewhere');
    expect(loadSecretKey({ dataDir: elsewhere, fromEnv: given.toString('hex') })).toEqual(given);
    expect(loadSecretKey({ dataDir: elsewhere, fromEnv: given.toString('base64') })).toEqual(given);
    expect(() => statSync(elsewhere)).toThrow();
    expect(() => loadSecretKey({ dataDir, fromEnv: 'too-short' })).toThrow(/GATEWAY_SECRET_KEY/);
  });
});

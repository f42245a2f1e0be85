import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RENEW_BEFORE_DAYS, VALIDITY_DAYS } from '../../server/tls/certificate';
import { createTlsStore } from '../../server/tls/tls-store';

const DAY = 86_400_000;
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-tls-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('TLS store', () => {
  it('keeps the certificate across starts and renews a generated one 30 days before it expires', async () => {
    const dir = freshDir();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const first = await createTlsStore(dir, () => clock).ensure();
    const again = await createTlsStore(dir, () => clock).ensure();
    expect(again.certificatePem).toBe(first.certificatePem);

    clock += (VALIDITY_DAYS - RENEW_BEFORE_DAYS - 1) * DAY; // 31 days left: kept
    expect((await createTlsStore(dir, () => clock).ensure()).certificatePem).toBe(first.certificatePem);

    clock += 2 * DAY; // 29 days left: renewed
    const store = createTlsStore(dir, () => clock);
    const seen: string[] = [];
    store.onChange((material) => seen.push(material.certificatePem));
    const renewed = await store.ensure();
    expect(renewed.certificatePem).not.toBe(first.certificatePem);
    expect(seen).toEqual([renewed.certificatePem]);
    expect(Date.parse(new X509Certificate(renewed.certificatePem).validTo)).toBeGreaterThan(clock + 800 * DAY);
  });

  it('does not replace an operator certificate when it nears expiry', async () => {
    const dir = freshDir();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const generated = await createTlsStore(dir, () => clock).ensure();
    const store = createTlsStore(dir, () => clock);
    await store.install({ certificatePem: generated.certificatePem, privateKeyPem: generated.privateKeyPem });
    clock += (VALIDITY_DAYS - 5) * DAY;
    const after = await createTlsStore(dir, () => clock).ensure();
    expect(after.source).toBe('installed');
    expect(after.certificatePem.trim()).toBe(generated.certificatePem.trim());
  });

  it('refuses an expired operator certificate', async () => {
    const dir = freshDir();
    let clock = Date.parse('2026-01-01T00:00:00Z');
    const generated = await createTlsStore(dir, () => clock).ensure();
    clock += (VALIDITY_DAYS + 1) * DAY;
    await expect(
      createTlsStore(freshDir(), () => clock).install({
        certificatePem: generated.certificatePem,
        privateKeyPem: generated.privateKeyPem,
      }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
  });
});

import { X509Certificate as NodeX509, createHash, createPrivateKey, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { validationFailed } from '../errors';
import type { TlsCertificateInfo } from '../contract/dto';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** SPEC §12: self-signed certificates live 825 days and are renewed 30 days before expiry. */
export const VALIDITY_DAYS = 825;
export const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 86_400_000;

/** What the admin API tells of the certificate: the contract's type. */
export type TlsInfo = TlsCertificateInfo;

export interface TlsMaterial {
  certificatePem: string;
  privateKeyPem: string;
  source: 'generated' | 'installed';
}

const files = (dataDir: string) => ({
  cert: join(dataDir, 'tls', 'certificate.pem'),
  key: join(dataDir, 'tls', 'private-key.pem'),
  source: join(dataDir, 'tls', 'source'),
});

/** The names and addresses a LAN client may type: host name, every interface, and loopback (SPEC §14). */
export function machineNames(): { dns: string[]; ips: string[] } {
  const dns = new Set(['localhost', hostname()]);
  const ips = new Set(['127.0.0.1', '::1']);
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) ips.add(entry.address.replace(/%.*$/, ''));
  }
  return { dns: [...dns].filter((name) => name !== ''), ips: [...ips] };
}

/** A fresh ECDSA P-256 key and a self-signed certificate for this machine. */
export async function generateSelfSigned(now = new Date()): Promise<TlsMaterial> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const { dns, ips } = machineNames();
  const serial = Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)));
  serial[0] &= 0x7f; // a positive serial number (RFC 5280 §4.1.2.2)
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial.toString('hex'),
    name: `CN=${dns[1] ?? 'localhost'}, O=Gateway`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + VALIDITY_DAYS * DAY_MS),
    signingAlgorithm: algorithm,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...dns.map((value) => ({ type: 'dns' as const, value })),
        ...ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const privateKeyPem = createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' })
    .export({ format: 'pem', type: 'pkcs8' })
    .toString();
  return { certificatePem: cert.toString('pem') + '\n', privateKeyPem, source: 'generated' };
}

/** Facts a screen or client needs: the SHA-256 fingerprint is what a phone pins. */
export function describe(material: TlsMaterial): TlsInfo {
  const cert = new NodeX509(material.certificatePem);
  return {
    source: material.source,
    subject: cert.subject.replace(/\n/g, ', '),
    altNames: (cert.subjectAltName ?? '').split(', ').filter((name) => name !== ''),
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
    fingerprintSha256: cert.fingerprint256,
  };
}

/** Base64 SHA-256 of the certificate's public key (what Chromium's SPKI pin list takes). */
export function spkiSha256Base64(certificatePem: string): string {
  const spki = new NodeX509(certificatePem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/**
 * An operator's certificate and key: both PEM, the key matching the certificate, not expired.
 * Every problem becomes 400 `validation_failed`, never a TLS error at the next handshake.
 */
export function checkInstallable(
  input: { certificatePem?: unknown; privateKeyPem?: unknown },
  now = new Date(),
): TlsMaterial {
  const errors: { path: string; message: string }[] = [];
  let cert: NodeX509 | null = null;
  if (typeof input.certificatePem !== 'string' || input.certificatePem.trim() === '') {
    errors.push({ path: '/certificatePem', message: 'certificatePem must be a PEM certificate' });
  } else {
    try {
      cert = new NodeX509(input.certificatePem);
      if (new Date(cert.validTo).getTime() <= now.getTime()) {
        errors.push({ path: '/certificatePem', message: 'The certificate has expired' });
      }
    } catch {
      errors.push({ path: '/certificatePem', message: 'certificatePem is not a readable PEM certificate' });
    }
  }
  let keyPem = '';
  if (typeof input.privateKeyPem !== 'string' || input.privateKeyPem.trim() === '') {
    errors.push({ path: '/privateKeyPem', message: 'privateKeyPem must be a PEM private key' });
  } else {
    try {
      const key = createPrivateKey(input.privateKeyPem);
      keyPem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
      if (cert && !cert.checkPrivateKey(key)) {
        errors.push({ path: '/privateKeyPem', message: 'The private key does not match the certificate' });
      }
    } catch {
      errors.push({ path: '/privateKeyPem', message: 'privateKeyPem is not a readable, unencrypted PEM private key' });
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
  return { certificatePem: (input.certificatePem as string).trim() + '\n', privateKeyPem: keyPem, source: 'installed' };
}

export function needsRenewal(material: TlsMaterial, now = new Date()): boolean {
  const notAfter = new Date(new NodeX509(material.certificatePem).validTo).getTime();
  return notAfter - now.getTime() <= RENEW_BEFORE_DAYS * DAY_MS;
}

/** The key file is written 0600 (and re-chmodded: a umask or an older file must not widen it). */
export function saveMaterial(dataDir: string, material: TlsMaterial): void {
  const paths = files(dataDir);
  mkdirSync(join(dataDir, 'tls'), { recursive: true, mode: 0o700 });
  writeFileSync(paths.key, material.privateKeyPem, { mode: 0o600 });
  chmodSync(paths.key, 0o600);
  writeFileSync(paths.cert, material.certificatePem, { mode: 0o644 });
  writeFileSync(paths.source, material.source + '\n');
}

export function loadMaterial(dataDir: string): TlsMaterial | null {
  const paths = files(dataDir);
  if (!existsSync(paths.cert) || !existsSync(paths.key)) return null;
  const source =
    existsSync(paths.source) && readFileSync(paths.source, 'utf8').trim() === 'installed' ? 'installed' : 'generated';
  return { certificatePem: readFileSync(paths.cert, 'utf8'), privateKeyPem: readFileSync(paths.key, 'utf8'), source };
}

export const keyFilePath = (dataDir: string): string => files(dataDir).key;

import type { SecureContextOptions, TlsOptions } from 'node:tls';
import type { TlsMaterial } from './certificate';

/**
 * The cipher suites every TLS listener offers: Mozilla's "intermediate" profile (server side
 * TLS 5.7) without its DHE suites. TLS 1.3's three suites are all AEAD; on TLS 1.2 only ECDHE
 * with AES-GCM or ChaCha20-Poly1305. Node's default adds `HIGH`, which brings CBC with SHA-1
 * (`ECDHE-ECDSA-AES128-SHA`, `AES256-SHA`), CCM8 and ARIA (issue 38). Both ECDSA (the generated
 * certificate) and RSA (an installed one) are covered.
 */
export const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/**
 * The protocol settings of every TLS listener (HTTPS today, MQTT over TLS next): TLS 1.2 and
 * 1.3, the suites above, Mozilla's curves, and the client's order among them (every suite offered
 * is strong, and a client without AES hardware prefers ChaCha20).
 */
export const TLS_SECURITY = {
  minVersion: 'TLSv1.2',
  ciphers: TLS_CIPHERS,
  ecdhCurve: 'X25519:prime256v1:secp384r1',
  honorCipherOrder: false,
} as const satisfies TlsOptions;

/**
 * What `tls.createServer`, `https.createServer` and `server.setSecureContext` take for a
 * certificate: the settings above with the key pair. A certificate swap goes through here too,
 * since `setSecureContext` builds a new context and would otherwise fall back to Node's defaults.
 */
export function secureContextOptions(
  material: Pick<TlsMaterial, 'certificatePem' | 'privateKeyPem'>,
): TlsOptions & SecureContextOptions {
  return { ...TLS_SECURITY, key: material.privateKeyPem, cert: material.certificatePem };
}

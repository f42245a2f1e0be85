import { named, s } from '../schema';

/** SPEC §12: the certificate the HTTPS listener presents. */
export const TLS_CERTIFICATE_INFO = named(
  'TlsCertificateInfo',
  s.object({
    source: s.enum(['generated', 'installed']),
    subject: s.string(),
    altNames: s.array(s.string()),
    notBefore: s.string({ format: 'date-time' }),
    notAfter: s.string({ format: 'date-time' }),
    fingerprintSha256: s.string(),
  }),
);

/** Read by the TLS store, which also checks that the key matches the certificate. */
export const TLS_CERTIFICATE_INPUT = named(
  'TlsCertificateInput',
  s.object({
    certificatePem: s.string({ description: 'PEM; the chain may follow the leaf.' }),
    privateKeyPem: s.string({ description: 'PEM, unencrypted.' }),
  }),
);

import type { TlsCertificateInfo } from '../../../server/contract/dto';
import { API_ROOT } from '../../../server/contract/paths';
import { api, transport } from './api';

let certificate: Promise<TlsCertificateInfo | null> | null = null;

/** The HTTPS certificate, read once per screen visit; null when the gateway has none. */
export function tlsCertificate(refresh = false): Promise<TlsCertificateInfo | null> {
  if (refresh || !certificate) certificate = api.getTls(undefined).catch(() => null);
  return certificate;
}

/**
 * What a pairing QR code carries: the URL, and for an HTTPS one the certificate's SHA-256
 * fingerprint in the fragment (never sent to the server), so a phone can pin it on first use.
 */
export async function pairingPayload(url: string): Promise<string> {
  if (!url.startsWith('https://')) return url;
  const info = await tlsCertificate();
  return info ? `${url}#sha256=${info.fingerprintSha256.replace(/:/g, '')}` : url;
}

/** Where the certificate downloads from: this origin in a browser, a listen URL in the desktop window. */
export function certificateUrl(listenUrls: string[]): string | null {
  if (transport === 'http') return `${API_ROOT}/_tls/certificate.pem`;
  const local = listenUrls.find((url) => url.startsWith('http://127.0.0.1') || url.startsWith('http://localhost'));
  const base = local ?? listenUrls.find((url) => url.startsWith('http://'));
  return base ? `${base}/_tls/certificate.pem` : null;
}

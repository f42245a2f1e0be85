import { networkInterfaces } from 'node:os';
import { API_ROOT } from './contract/paths';

/**
 * The URLs clients can use to reach a server bound to `host:port`. A wildcard bind answers on
 * every interface, so list each LAN address (what a reader or phone must be configured with).
 */
export function listenUrls(host: string, port: number, scheme: 'http' | 'https' = 'http'): string[] {
  const url = (address: string) => `${scheme}://${address.includes(':') ? `[${address}]` : address}:${port}${API_ROOT}`;
  if (host !== '0.0.0.0' && host !== '::') return [url(host)];
  const addresses: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family === 'IPv4' || host === '::') addresses.push(entry.address);
    }
  }
  // LAN addresses first, loopback last: the first URL is the one to show and encode as a QR code.
  addresses.sort((a, b) => Number(isLoopback(a)) - Number(isLoopback(b)));
  return [...new Set(addresses)].map(url);
}

const isLoopback = (address: string): boolean => address.startsWith('127.') || address === '::1';

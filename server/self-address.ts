import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isLoopbackAddress, plainAddress } from './address-ranges';

/** A socket the gateway listens on, as bound: `0.0.0.0` and `::` stand for every local address. */
export interface Listening {
  address: string;
  port: number;
}

/** A host name's addresses (the system resolver, as a delivery's connection would use it). */
export type Lookup = (hostname: string) => Promise<string[]>;

const systemLookup: Lookup = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** A host name that takes longer than this to resolve is not taken for the gateway's own. */
const LOOKUP_MS = 3_000;

/** One spelling per address: no IPv4-mapped form, no zone, lower case; the unspecified address is loopback. */
function canonical(address: string): string {
  const plain = plainAddress(address.replace(/%.*$/, '')).toLowerCase();
  // A connection to 0.0.0.0 (or ::) reaches this machine's loopback.
  if (plain === '0.0.0.0') return '127.0.0.1';
  if (plain === '::') return '::1';
  return plain;
}

/** Every address of this machine's interfaces, read now (an address may come and go). */
function localAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? []) addresses.add(canonical(entry.address));
  return addresses;
}

/**
 * Whether a connection to `ip:port` lands on one of `listeners`: one bound to that address, or
 * one bound to every address (`0.0.0.0`: every local IPv4 address, the whole of 127/8 included;
 * `::`: every local address, IPv4 too, as Node listens dual-stack).
 */
export function reachesListener(
  ip: string,
  port: number,
  listeners: readonly Listening[],
  local: ReadonlySet<string> = localAddresses(),
): boolean {
  const target = canonical(ip);
  const isLocal = isLoopbackAddress(target) || local.has(target);
  return listeners.some((listener) => {
    if (listener.port !== port) return false;
    const bound = plainAddress(listener.address).toLowerCase();
    if (bound === '0.0.0.0') return isLocal && isIPv4(target);
    if (bound === '::') return isLocal;
    return canonical(bound) === target;
  });
}

async function resolve(hostname: string, resolver: Lookup): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((settle) => (timer = setTimeout(() => settle([]), LOOKUP_MS)));
  try {
    return await Promise.race([resolver(hostname).catch(() => []), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a delivery to `url` would come back to this gateway: its host resolves to an address
 * that one of `listeners` answers on, at the URL's port, and its path is under `apiRoot` (any
 * other path of the gateway answers 404, which ends in a dead letter, not a loop). A host that
 * does not resolve (in time) is not the gateway's: the check at delivery time (`X-Gateway-Id`)
 * still stops a loop it missed.
 */
export async function addressesGateway(
  url: string,
  listeners: readonly Listening[],
  options: { apiRoot: string; lookup?: Lookup },
): Promise<boolean> {
  if (listeners.length === 0) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const { pathname } = parsed;
  if (pathname !== options.apiRoot && !pathname.startsWith(`${options.apiRoot}/`)) return false;
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = await resolve(hostname, options.lookup ?? systemLookup);
  const local = localAddresses();
  return addresses.some((address) => reachesListener(address, port, listeners, local));
}

import { BlockList, isIP } from 'node:net';

export interface AddressRange {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** `10.0.0.1`, `10.0.0.0/8`, `fd00::/8`; null for anything else. */
export function parseAddressRange(entry: unknown): AddressRange | null {
  if (typeof entry !== 'string') return null;
  const [address = '', prefixText, extra] = entry.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) is the IPv4 address it carries. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:([0-9.]+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/** A matcher over a list of addresses/CIDRs, built once per settings change. */
export function addressMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  let empty = true;
  for (const entry of entries) {
    const range = parseAddressRange(entry);
    if (!range) continue;
    list.addSubnet(range.address, range.prefix, range.family);
    empty = false;
  }
  return (address) => {
    if (empty) return false;
    const plain = plainAddress(address);
    const version = isIP(plain);
    return version !== 0 && list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
  };
}

export const isLoopbackAddress = (address: string): boolean => {
  const plain = plainAddress(address);
  return plain.startsWith('127.') || plain === '::1';
};

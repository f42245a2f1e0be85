import { isIP } from 'node:net';
import type { Middleware } from 'koa';
import { addressMatcher, plainAddress } from '../../address-ranges';

export interface ClientAddressState {
  /** The scheme the client used: `https` when this socket is TLS or a trusted proxy says so. */
  clientScheme: 'http' | 'https';
}

/** One address from a `Forwarded: for=` value: quotes, brackets and a port stripped. */
function forwardedAddress(raw: string): string {
  let value = raw.trim();
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') > 0 ? value.indexOf(']') : undefined);
  // `192.0.2.60:4711`: one colon is an IPv4 address with a port (an IPv6 one would be bracketed).
  if (value.split(':').length === 2) return value.slice(0, value.indexOf(':'));
  return value;
}

interface Hop {
  address: string;
  proto?: string;
}

/** RFC 7239 elements, left (client side) to right (nearest proxy). */
function forwardedHops(header: string): Hop[] {
  return header.split(',').map((element) => {
    const hop: Hop = { address: '' };
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const name = pair.slice(0, eq).trim().toLowerCase();
      const value = pair.slice(eq + 1).trim();
      if (name === 'for') hop.address = forwardedAddress(value);
      else if (name === 'proto') hop.proto = value.replace(/^"|"$/g, '').toLowerCase();
    }
    return hop;
  });
}

const splitList = (header: string): string[] =>
  header
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');

/**
 * SPEC §12: only a peer in `trustedProxies` may tell who the client is. Walking the chain from
 * the right, the first address that is not itself a trusted proxy is the client; everything left
 * of it was written by that client and is not believed. The result replaces `ctx.request.ip`, the
 * one address lockout, idempotency scope and `sourceIp` read.
 */
export function clientAddress(trustedProxies: () => readonly string[]): Middleware {
  let list: readonly string[] | null = null;
  let trusted: (address: string) => boolean = () => false;
  return (ctx, next) => {
    const current = trustedProxies();
    if (current !== list) {
      list = current;
      trusted = addressMatcher(current);
    }
    const peer = plainAddress(ctx.req.socket.remoteAddress ?? '');
    const encrypted = (ctx.req.socket as { encrypted?: boolean }).encrypted === true;
    let client = peer;
    let scheme: 'http' | 'https' = encrypted ? 'https' : 'http';
    if (trusted(peer)) {
      const forwarded = ctx.get('Forwarded');
      const hops: Hop[] = forwarded
        ? forwardedHops(forwarded)
        : splitList(ctx.get('X-Forwarded-For')).map((address) => ({ address: forwardedAddress(address) }));
      let schemeHop: Hop | undefined;
      for (let index = hops.length - 1; index >= 0; index -= 1) {
        const hop = hops[index];
        const address = plainAddress(hop.address);
        // `unknown`, an obfuscated name or garbage: the chain cannot be followed further.
        if (isIP(address) === 0) break;
        client = address;
        schemeHop = hop;
        if (!trusted(address)) break;
      }
      const proto = forwarded ? schemeHop?.proto : splitList(ctx.get('X-Forwarded-Proto')).at(-1)?.toLowerCase();
      if (proto === 'https' || proto === 'http') scheme = proto;
    }
    ctx.request.ip = client;
    (ctx.state as ClientAddressState).clientScheme = scheme;
    return next();
  };
}

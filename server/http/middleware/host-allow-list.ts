import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { Middleware } from 'koa';
import { AppError } from '../../errors';

/**
 * Host names the admin API and web admin answer to, against DNS rebinding: a page on an attacker's
 * name that re-resolves to this machine reaches it with that name in `Host`, which is refused
 * here. Allowed: any IP literal (a rebinding page's origin is always a name, so an address in
 * `Host` cannot be one), `localhost` and `*.localhost`, this machine's names (`os.hostname()`,
 * its first label, `<name>.local`), the listen addresses' names, the stored `host` setting, and
 * the names in `GATEWAY_ALLOWED_HOSTS` (comma-separated; see docs/decisions/0072-host-allow-list.md).
 */
export class HostAllowList {
  private readonly fixed: Set<string>;

  constructor(
    private readonly dynamic: () => string[],
    extra: string | undefined = process.env.GATEWAY_ALLOWED_HOSTS,
  ) {
    const machine = hostname().toLowerCase();
    const names = ['localhost', machine, machine.split('.')[0] ?? machine, `${machine.split('.')[0]}.local`];
    for (const entry of (extra ?? '').split(',')) if (entry.trim()) names.push(entry.trim());
    // Interface addresses are IP literals (always allowed); kept for listings such as /status.
    for (const list of Object.values(networkInterfaces())) for (const item of list ?? []) names.push(item.address);
    this.fixed = new Set(names.map((name) => name.toLowerCase()));
  }

  allows(hostHeader: string | undefined): boolean {
    // HTTP/1.0 clients may send no Host; no browser does, so no rebinding page can.
    if (hostHeader === undefined || hostHeader === '') return true;
    const name = hostOf(hostHeader);
    if (name === null) return false;
    if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return true;
    if (this.fixed.has(name)) return true;
    return this.dynamic().some((entry) => entry.toLowerCase() === name);
  }
}

/** The name in a Host header, lower-cased, without port or IPv6 brackets; null when malformed. */
export function hostOf(header: string): string | null {
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d{1,5})?$/.exec(value);
  if (bracketed) return bracketed[1] ?? null;
  const plain = /^([a-z0-9_.-]+)(?::\d{1,5})?$/.exec(value);
  return plain ? (plain[1] ?? '').replace(/\.$/, '') : null;
}

/**
 * RFC 9112 §3.2: a request with more than one Host header is refused with 400. Node keeps the
 * first and drops the rest, so a proxy that reads the last one and the gateway would disagree on
 * which site the request is for.
 */
export function singleHost(): Middleware {
  return (ctx, next) => {
    const raw = ctx.req.rawHeaders;
    let hosts = 0;
    // Only a four-letter name is lower-cased (no new string for every other header).
    for (let i = 0; i < raw.length; i += 2) if (raw[i]?.length === 4 && raw[i]?.toLowerCase() === 'host') hosts++;
    if (hosts > 1) throw new AppError('invalid_host', 'The request carries more than one Host header');
    return next();
  };
}

/** The host names in listen URLs (`http://name:port/…`). */
export function namesOfUrls(urls: string[]): string[] {
  return urls.flatMap((url) => {
    try {
      return [new URL(url).hostname.replace(/^\[|\]$/g, '')];
    } catch {
      return [];
    }
  });
}

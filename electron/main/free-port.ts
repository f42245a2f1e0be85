import { createServer } from 'node:net';
import type { AppError } from '../../server/errors';

/** True when `port` can be bound on `host` right now (the answer may be stale a moment later). */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * The first free port from `from` upwards, so a technician gets a port next to the usual one
 * (8081 after 8080) rather than a random one to type into every reader. Falls back to a port the
 * system picks when the range is full.
 */
export async function findFreePort(host: string, from: number, attempts = 100): Promise<number> {
  for (let port = Math.max(1, from); port < Math.min(from + attempts, 65536); port++) {
    if (await portIsFree(host, port)) return port;
  }
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Port and host of a `port_in_use` error. startServer states them only in the message
 * ("Port 8080 on 0.0.0.0 is already in use; …"), so they are read back from it; `extra` is
 * checked first in case the server starts carrying them as data (see the desktop-shell report).
 */
export function portInUseDetails(error: AppError): { port: number | null; host: string | null } {
  const extra = error.extra ?? {};
  if (typeof extra.port === 'number' && typeof extra.host === 'string') return { port: extra.port, host: extra.host };
  const match = /^Port (\d+) on (\S+) is already in use/.exec(error.message);
  return match ? { port: Number(match[1]), host: match[2] ?? null } : { port: null, host: null };
}

import type { Server as TlsServer } from 'node:tls';
import type Koa from 'koa';
import type { TlsMode } from '../contract/dto';
import type { TlsStore } from '../tls/tls-store';
import { secureContextOptions } from '../tls/secure-options';
import { startServer, type RunningServer } from './start-server';

export interface Listeners {
  /** Plain HTTP on `port` (tlsMode `off`/`both`, and `on` where it only redirects), or null. */
  http: RunningServer;
  /** HTTPS on `httpsPort` (tlsMode `on`/`both`), or null. */
  https: RunningServer | null;
  /**
   * Every URL a client can use, HTTP ones first then HTTPS (SPEC §12: `/status` lists both). With
   * tlsMode `on` the HTTP port is no service (it only redirects), so only the HTTPS ones: the same
   * story as the listening lines, which announce HTTP only "when HTTP is on".
   */
  urls: string[];
  stop(graceMs?: number): Promise<void>;
}

export interface ListenerOptions {
  host: string;
  port: number;
  httpsPort: number;
  tlsMode: TlsMode;
  tls: TlsStore;
  /** Told the HTTPS port once it listens, so tlsMode `on` can redirect to it. */
  onHttpsPort?(port: number | null): void;
}

/**
 * The listeners tlsMode asks for, over one app: HTTP first, then HTTPS. If the second cannot
 * listen, the first is closed again, so a failed start leaves no port taken.
 */
export async function startListeners(app: Koa, options: ListenerOptions): Promise<Listeners> {
  const http = await startServer(app, { port: options.port, host: options.host });
  let https: RunningServer | null = null;
  if (options.tlsMode !== 'off') {
    try {
      const material = await options.tls.ensure();
      https = await startServer(app, {
        port: options.httpsPort,
        host: options.host,
        tls: secureContextOptions(material),
      });
    } catch (error) {
      await http.stop(0);
      throw error;
    }
    const server = https.server as unknown as TlsServer;
    // A renewed, regenerated or installed certificate is presented from the next handshake on.
    // The whole set of options: setSecureContext builds a new context, Node's defaults for anything missing.
    options.tls.onChange((next) => server.setSecureContext(secureContextOptions(next)));
    options.tls.startRenewal();
  }
  options.onHttpsPort?.(options.tlsMode === 'on' && https ? https.port : null);
  return {
    http,
    https,
    urls: [...(options.tlsMode === 'on' && https ? [] : http.urls), ...(https?.urls ?? [])],
    stop: async (graceMs) => {
      options.tls.close();
      await Promise.all([http.stop(graceMs), https?.stop(graceMs)]);
    },
  };
}

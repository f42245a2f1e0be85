import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { AppError } from '../errors';
import { listenUrls } from '../net';
import { deferContinue } from './expect-continue';

export interface RunningServer {
  server: Server;
  host: string;
  port: number;
  /** Every URL a client on the LAN can use. */
  urls: string[];
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes what is left. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Listens with the app; `port: 0` picks a free port. EADDRINUSE becomes `port_in_use`. With
 * `tls` it is an HTTPS server (SPEC §12); `server.setSecureContext` swaps its certificate live.
 */
export async function startServer(
  app: Koa,
  options: { port: number; host: string; tls?: SecureContextOptions },
): Promise<RunningServer> {
  const handle = app.callback();
  // An https.Server has every http.Server method the rest of this file uses (listen, close, timeouts).
  const server = options.tls
    ? (createHttpsServer(options.tls, (request, response) => void handle(request, response)) as unknown as Server)
    : createServer((request, response) => void handle(request, response));
  deferContinue(server, (request, response) => void handle(request, response));
  // Slow-loris guard; keep-alive stays short so a stop does not wait on idle sockets.
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(
        error.code === 'EADDRINUSE'
          ? new AppError(
              'port_in_use',
              `Port ${options.port} on ${options.host} is already in use; choose another port`,
            )
          : error,
      );
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(options.port, options.host);
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    host: options.host,
    port: address.port,
    urls: listenUrls(options.host, address.port, options.tls ? 'https' : 'http'),
    stop: (graceMs = 8_000) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

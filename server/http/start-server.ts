import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TlsOptions } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { AppError } from '../errors';
import { listenUrls } from '../net';
import { DrainingResponse } from './drain-unread-body';
import { deferContinue } from './data-plane/expect-continue';
import { GracefulStop } from './graceful-stop';

export interface RunningServer {
  server: Server;
  host: string;
  /** The address bound (`host` resolved; `0.0.0.0` or `::` for every interface). */
  address: string;
  port: number;
  /** Every URL a client on the LAN can use. */
  urls: string[];
  /**
   * Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes what is left;
   * see GracefulStop for what each open connection meets.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Listens with the app; `port: 0` picks a free port. EADDRINUSE becomes `port_in_use`. With
 * `tls` it is an HTTPS server (SPEC §12); `server.setSecureContext` swaps its certificate live.
 */
export async function startServer(
  app: Koa,
  options: { port: number; host: string; tls?: TlsOptions },
): Promise<RunningServer> {
  const handle = app.callback();
  const graceful = new GracefulStop();
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    // False when the request came on a connection the stop had already ended.
    if (graceful.track(request, response)) void handle(request, response);
  };
  // An https.Server has every http.Server method the rest of this file uses (listen, close, timeouts).
  // Every response lets a client read an answer given before its body was read (DrainingResponse).
  const server = options.tls
    ? (createHttpsServer({ ...options.tls, ServerResponse: DrainingResponse }, serve) as unknown as Server)
    : createServer({ ServerResponse: DrainingResponse }, serve);
  graceful.watch(server, options.tls !== undefined);
  deferContinue(server, serve);
  // Slow-loris guard; idle keep-alive connections close after 5 s (a stop ends them sooner).
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
    address: address.address,
    port: address.port,
    urls: listenUrls(options.host, address.port, options.tls ? 'https' : 'http'),
    stop: (graceMs = 8_000) => graceful.stop(graceMs),
  };
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { SecureContextOptions } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { AppError } from '../errors';
import { listenUrls } from '../net';
import { answerBeforeUnreadBody } from './drain-unread-body';
import { deferContinue } from '../ingest/expect-continue';

export interface RunningServer {
  server: Server;
  host: string;
  /** The address bound (`host` resolved; `0.0.0.0` or `::` for every interface). */
  address: string;
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
  // Stopping (SPEC §13): every answer says `Connection: close`, and each connection closes once
  // its in-flight answer is out, so keep-alive clients are not reset mid-request at the deadline.
  let stopping = false;
  const inFlight = new Set<ServerResponse>();
  const closeAfter = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
    // Headers already out as keep-alive: the socket goes idle after this answer; close it then.
    response.once('finish', () => server.closeIdleConnections());
  };
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    answerBeforeUnreadBody(request, response);
    if (stopping) closeAfter(response);
    else {
      inFlight.add(response);
      response.once('close', () => inFlight.delete(response));
    }
    void handle(request, response);
  };
  // An https.Server has every http.Server method the rest of this file uses (listen, close, timeouts).
  const server = options.tls ? (createHttpsServer(options.tls, serve) as unknown as Server) : createServer(serve);
  deferContinue(server, serve);
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
    address: address.address,
    port: address.port,
    urls: listenUrls(options.host, address.port, options.tls ? 'https' : 'http'),
    stop: (graceMs = 8_000) =>
      new Promise<void>((resolve) => {
        stopping = true;
        for (const response of inFlight) closeAfter(response);
        inFlight.clear();
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

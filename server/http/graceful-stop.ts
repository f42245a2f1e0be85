import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Middleware } from 'koa';
import { AppError } from '../errors';

/**
 * How long a keep-alive connection that is idle during a stop stays open for its client's next
 * request (answered 503 with `Connection: close`) before the gateway closes it. A client posting
 * back to back sends within milliseconds; closing sooner is what reset such clients (issue 38).
 */
export const STOP_IDLE_MS = 1_000;

/** Requests whose headers arrived after the stop began: the app answers them 503 `shutting_down`. */
const arrivedWhileStopping = new WeakSet<IncomingMessage>();

/** Answers a request that arrived during a stop with 503 `shutting_down`, before anything else runs. */
export function refuseWhileStopping(): Middleware {
  return (ctx, next) => {
    if (arrivedWhileStopping.has(ctx.req)) {
      throw new AppError('shutting_down', 'The gateway is stopping; retry shortly', {
        headers: { 'Retry-After': '5' },
      });
    }
    return next();
  };
}

interface Connection {
  /** Responses begun and not yet closed (more than one only with pipelining). */
  active: number;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * The graceful stop of one HTTP(S) server (SPEC §13) without resetting anyone. Node's own
 * `server.close()` and `closeIdleConnections()` destroy every connection that is between two
 * requests at that instant, and a keep-alive client whose next request is already on the wire
 * meets a reset for a request that was never stored. Here instead:
 * - the listener stops accepting, so new connections are refused;
 * - an answer in flight says `Connection: close` (when its headers are not out yet), and Node ends
 *   the connection after it, FIN after the last answer;
 * - a request that arrives on an open connection during the stop is answered 503
 *   `shutting_down` with `Connection: close` (never served: the stop is on its way);
 * - a connection idle during the stop is ended (FIN) after `STOP_IDLE_MS` without a request;
 * - past `graceMs` whatever is left is destroyed.
 */
export class GracefulStop {
  private stopping = false;
  /** Every accepted TCP socket, TLS handshakes included, for the forced end. */
  private readonly sockets = new Set<Socket>();
  /** The sockets HTTP runs on (the TLS socket on HTTPS), with their requests in progress. */
  private readonly connections = new Map<Socket, Connection>();
  /** Answers begun before the stop and not yet sent. */
  private readonly inFlight = new Set<ServerResponse>();

  private server: Server | null = null;

  constructor(private readonly idleMs = STOP_IDLE_MS) {}

  /** Follows `server`'s connections from now on (before it listens). */
  watch(server: Server, secure: boolean): void {
    this.server = server;
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on(secure ? 'secureConnection' : 'connection', (socket: Socket) => {
      this.connections.set(socket, { active: 0, idleTimer: null });
      socket.once('close', () => {
        this.clearIdle(socket);
        this.connections.delete(socket);
      });
      if (this.stopping) this.endWhenIdle(socket);
    });
  }

  /** Called for every request before the app sees it; false when it must not be handled. */
  track(request: IncomingMessage, response: ServerResponse): boolean {
    const socket = request.socket;
    if (this.stopping) {
      // The connection was ended as idle a moment ago: nothing can be answered on it any more.
      if (socket.writableEnded) {
        socket.destroy();
        return false;
      }
      arrivedWhileStopping.add(request);
      response.setHeader('Connection', 'close');
    } else {
      this.inFlight.add(response);
    }
    const connection = this.connections.get(socket);
    if (connection) {
      connection.active++;
      this.clearIdle(socket);
    }
    response.once('close', () => {
      this.inFlight.delete(response);
      if (!connection) return;
      connection.active--;
      if (this.stopping && connection.active === 0) this.endWhenIdle(socket);
    });
    return true;
  }

  /**
   * Stops accepting and lets the open connections finish as the class comment says; resolves
   * once every connection is closed, or `graceMs` from now when the rest is destroyed.
   */
  stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const response of this.inFlight) {
      if (!response.headersSent) response.setHeader('Connection', 'close');
    }
    this.inFlight.clear();
    for (const [socket, connection] of this.connections) if (connection.active === 0) this.endWhenIdle(socket);
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        for (const socket of this.sockets) socket.destroy();
      }, graceMs);
      force.unref();
      // http.Server's close also destroys every connection idle at this instant
      // (closeIdleConnections): the reset described above. With that kept off for this one call,
      // close stops the listener and the server's timers, and calls back once every connection
      // is gone.
      const own = server as unknown as { closeIdleConnections?: () => void };
      own.closeIdleConnections = () => undefined;
      try {
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
      } finally {
        delete own.closeIdleConnections;
      }
    });
  }

  /** Ends `socket` (FIN) unless a request arrives on it within `idleMs` from now. */
  private endWhenIdle(socket: Socket): void {
    const connection = this.connections.get(socket);
    if (!connection || connection.idleTimer || socket.destroyed) return;
    connection.idleTimer = setTimeout(() => {
      connection.idleTimer = null;
      if (connection.active > 0) return;
      socket.end();
      // A client that never closes its side does not hold the stop up.
      setTimeout(() => socket.destroy(), this.idleMs).unref();
    }, this.idleMs);
    connection.idleTimer.unref();
  }

  private clearIdle(socket: Socket): void {
    const connection = this.connections.get(socket);
    if (!connection?.idleTimer) return;
    clearTimeout(connection.idleTimer);
    connection.idleTimer = null;
  }
}

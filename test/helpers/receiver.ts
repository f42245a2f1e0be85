import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** One delivery as a receiver saw it. */
export interface Received {
  at: number;
  headers: IncomingMessage['headers'];
  raw: string;
  body: { batchId: string; events: { id: string; eventId: string; data: any; [key: string]: unknown }[] };
}

/** What the receiver answers a request with: a status (and headers), after an optional delay. */
export interface Reply {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  /** The answer's body; `{}` when absent. */
  body?: string;
}

/**
 * A real downstream system for delivery tests: an HTTP (or HTTPS) server on 127.0.0.1 port 0
 * that records every request and answers as `reply` says. `down()` closes the port (connections
 * are refused) and `up()` opens the same port again.
 */
export class Receiver {
  readonly requests: Received[] = [];
  reply: (request: Received, index: number) => Reply = () => ({ status: 200 });
  private server: Server;
  private port = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly tls?: { key: string; cert: string }) {
    this.server = this.makeServer();
  }

  static async start(tls?: { key: string; cert: string }): Promise<Receiver> {
    const receiver = new Receiver(tls);
    await receiver.up();
    return receiver;
  }

  get url(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}/ingest`;
  }

  /** Every item received, in arrival order (duplicates included). */
  get items(): Received['body']['events'] {
    return this.requests.flatMap((request) => request.body.events);
  }

  private makeServer(): Server {
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const received: Received = {
          at: Date.now(),
          headers: req.headers,
          raw,
          body: JSON.parse(raw) as Received['body'],
        };
        const index = this.requests.length;
        this.requests.push(received);
        const reply = this.reply(received, index);
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
          res.end(reply.body ?? '{}');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    };
    const server = this.tls ? createHttpsServer(this.tls, handler) : createHttpServer(handler);
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  async up(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops answering: the port is closed and open connections are cut. */
  async down(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    this.server = this.makeServer();
  }

  async waitFor(predicate: (receiver: Receiver) => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    await this.down();
  }
}

/** An endpoint `Dock` (base path `dock`) with one UHFTagRead route `reads` delivering to `destinations`. */
export const dockDeliveringTo = (destinations: number[], route: { async?: boolean } = {}) => ({
  name: 'Dock',
  baseRoutePath: 'dock',
  routes: [
    { name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', destinations, ...route },
  ],
});

import { ServerResponse, type IncomingMessage } from 'node:http';
import { isAwaitingContinue } from './data-plane/expect-continue';

/** After an early refusal, the rest of the body is read and discarded for at most this long… */
export const DRAIN_MAX_MS = 5_000;
/** …or this many bytes (SPEC §13), then the connection is cut. */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

const hasBody = (request: IncomingMessage): boolean => {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
};

/**
 * Lets a client read an answer given before its body was read (401, 404, 413, …; SPEC §13). Node's
 * server destroys the socket when a response ends while the request is still arriving, and the
 * client, still uploading, meets a reset before it reads the answer. So the answer is written at
 * once (with its Content-Length, so it is complete on the wire), and the response is only ended
 * once the body has been read and discarded, within `DRAIN_MAX_MS` / `DRAIN_MAX_BYTES`; past
 * either bound the socket is cut. The connection always closes after such an answer.
 *
 * The servers' response class (`createServer({ ServerResponse })`): a method of the class rather
 * than an `end` put on, and deleted from, every response (a per-request closure, and an object
 * that no longer shares its shape; issue 37).
 */
export class DrainingResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  static limits = { maxMs: DRAIN_MAX_MS, maxBytes: DRAIN_MAX_BYTES };

  /** Set by the first `end`: only that one may be deferred (Koa, or a piped stream, calls it). */
  private endCalled = false;

  override end(chunk?: unknown, encoding?: unknown, callback?: unknown): this {
    const request = this.req;
    // Read in full, gone, or never invited (`Expect: 100-continue`): nothing is on its way.
    if (this.endCalled || !hasBody(request) || request.complete || request.destroyed || isAwaitingContinue(request)) {
      this.endCalled = true;
      // Node's own `end` sorts out which of its arguments were given.
      return super.end(chunk, encoding as BufferEncoding, callback as (() => void) | undefined);
    }
    this.endCalled = true;
    const args = [chunk, encoding, callback].filter((arg) => arg !== undefined);
    const done = typeof args[args.length - 1] === 'function' ? (args.pop() as () => void) : undefined;
    const [data, dataEncoding] = args as [string | Buffer | undefined, BufferEncoding | undefined];
    if (!this.headersSent) this.setHeader('Connection', 'close');
    if (data !== undefined && data !== null) this.write(data, dataEncoding ?? 'utf8');
    else this.flushHeaders();
    discardBody(request, DrainingResponse.limits, (whole) => {
      if (!whole) this.once('finish', () => request.socket.destroy());
      super.end(done);
    });
    return this;
  }
}

/** Reads and drops the rest of `request`; `done(true)` at its end, `done(false)` past a bound. */
function discardBody(
  request: IncomingMessage,
  limits: { maxMs: number; maxBytes: number },
  done: (whole: boolean) => void,
): void {
  let bytes = 0;
  let settled = false;
  const settle = (whole: boolean) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('error', onGone);
    request.off('close', onGone);
    done(whole);
  };
  const onData = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limits.maxBytes) settle(false);
  };
  const onEnd = () => settle(true);
  const onGone = () => settle(false);
  const timer = setTimeout(() => settle(false), limits.maxMs);
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onGone);
  request.on('close', onGone);
  request.resume();
}

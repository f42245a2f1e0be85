import type { Context } from 'koa';
import { AppError } from '../../errors';
import { continueIfAwaited } from './expect-continue';

/** JSON media types the data routes take: application/json, application/ld+json, application/*+json. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type);
}

/** A body over `limit`, refused unread (or cut off): the connection closes rather than drains. */
export function payloadTooLarge(ctx: Context, limit: number): AppError {
  ctx.set('Connection', 'close');
  return new AppError('payload_too_large', `The request body exceeds ${limit} bytes`);
}

/**
 * Reads the raw body up to `limit` bytes. A declared Content-Length over the limit is refused
 * before reading a byte; a chunked body is cut off the moment it crosses the limit. Either way
 * the connection is closed after the answer rather than drained.
 *
 * Plain 'data'/'end' listeners rather than `for await`: the stream's async iterator costs
 * measurably more main-thread time per request than plain listeners (figures:
 * docs/performance.md, P06).
 */
export function readBody(ctx: Context, limit: number): Promise<Buffer> {
  const declared = ctx.request.length;
  const tooLarge = () => payloadTooLarge(ctx, limit);
  if (declared !== undefined && declared > limit) return Promise.reject(tooLarge());
  const req = ctx.req;
  // Events that already happened will not fire again for the listeners below.
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(incomplete());
  continueIfAwaited(req, ctx.res);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // A declared length is read into one buffer as it arrives: no chunks held beside their copy
    // (issue 38.3). The HTTP parser delivers exactly that many bytes.
    const whole = declared !== undefined && declared > 0 ? Buffer.allocUnsafe(declared) : null;
    const done = (error: Error | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve(whole ? whole.subarray(0, size) : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        done(tooLarge());
      } else if (whole) {
        if (size > whole.length) done(incomplete());
        else chunk.copy(whole, size - chunk.length);
      } else chunks.push(chunk);
    };
    const onEnd = () => done(null);
    // A reset or a close before 'end': the client went away mid-body. Its own doing, not the
    // gateway's (a reset's ECONNRESET would otherwise read as storage trouble).
    const onError = () => done(incomplete());
    const onClose = () => done(incomplete());
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const incomplete = () =>
  new AppError('request_incomplete', 'The connection closed before the request body was complete');

/** A request that has (or may have) a body we will not read: close the socket after answering. */
export function closeIfBodyPending(ctx: Context): void {
  if ((ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding')) ctx.set('Connection', 'close');
}

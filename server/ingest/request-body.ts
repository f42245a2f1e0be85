import type { Context } from 'koa';
import { AppError } from '../errors';

/** JSON media types the data routes take: application/json, application/ld+json, application/*+json. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(type);
}

/**
 * Reads the raw body up to `limit` bytes. A declared Content-Length over the limit is refused
 * before reading a byte; a chunked body is cut off the moment it crosses the limit. Either way
 * the connection is closed after the answer rather than drained.
 */
export async function readBody(ctx: Context, limit: number): Promise<Buffer> {
  const declared = ctx.request.length;
  const tooLarge = () => {
    ctx.set('Connection', 'close');
    return new AppError('payload_too_large', `The request body exceeds ${limit} bytes`);
  };
  if (declared !== undefined && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.pause();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** A request that has (or may have) a body we will not read: close the socket after answering. */
export function closeIfBodyPending(ctx: Context): void {
  if ((ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding')) ctx.set('Connection', 'close');
}

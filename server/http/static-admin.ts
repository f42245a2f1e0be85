import { createReadStream, existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context, Middleware } from 'koa';
import { ADMIN_ROOT } from '../contract/paths';
import { PACKAGE_ROOT } from '../package-root';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * The web admin's policy: everything from this origin only, no inline script, no framing. The
 * QR code is drawn as a data: image; Svelte's scoped styles ship as a file.
 */
export const ADMIN_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Text assets worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json']);

type Encoding = 'br' | 'gzip';
const ENCODERS: Record<Encoding, (data: Buffer) => Promise<Buffer>> = {
  br: (data) =>
    promisify(brotliCompress)(data, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }),
  gzip: (data) => promisify(gzip)(data, { level: 9 }),
};

/**
 * Each built file is compressed once per encoding (on zlib's thread pool) and kept, keyed by its
 * modification time and size: a rebuild is noticed, and no request compresses from scratch.
 */
const compressed = new Map<string, { stamp: string; body: Promise<Buffer> }>();

function compressedBody(file: string, encoding: Encoding, stamp: string): Promise<Buffer> {
  const key = `${encoding} ${file}`;
  const cached = compressed.get(key);
  if (cached?.stamp === stamp) return cached.body;
  const body = readFile(file).then(ENCODERS[encoding]);
  // A failed compression is not kept: the next request tries again (and this one is sent plain).
  body.catch(() => compressed.delete(key));
  compressed.set(key, { stamp, body });
  return body;
}

/** Brotli (smaller) when the client takes it, else gzip; none without an Accept-Encoding header. */
function pickEncoding(ctx: Context): Encoding | null {
  if (!ctx.get('Accept-Encoding')) return null;
  if (ctx.acceptsEncodings('br') === 'br') return 'br';
  return ctx.acceptsEncodings('gzip') === 'gzip' ? 'gzip' : null;
}

export const DEFAULT_RENDERER_DIR = join(PACKAGE_ROOT, 'out', 'renderer');

/**
 * Serves the built renderer under `/GWENDPOINTAPI/_admin/` (single-page app: unknown paths get
 * index.html). Paths are confined to the build folder.
 */
export function staticAdmin(root = DEFAULT_RENDERER_DIR): Middleware {
  const base = normalize(root.endsWith(sep) ? root : root + sep);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return void (await next());
    if (ctx.path === ADMIN_ROOT) return ctx.redirect(`${ADMIN_ROOT}/`);
    const relative = decodeURIComponent(ctx.path.slice(`${ADMIN_ROOT}/`.length));
    let file = normalize(join(base, relative));
    if (!file.startsWith(base)) return void (await next());
    if (!existsSync(file) || !statSync(file).isFile()) file = join(base, 'index.html');
    ctx.set('Content-Security-Policy', ADMIN_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (!existsSync(file)) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'The web admin has not been built yet. Run "npm run build" and reload.\n';
      return;
    }
    ctx.type = TYPES[extname(file)] ?? 'application/octet-stream';
    // Hashed asset names may be cached for good; index.html must always be fresh.
    ctx.set('Cache-Control', file.endsWith('index.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
    ctx.vary('Accept-Encoding');
    const stat = statSync(file);
    const encoding = COMPRESSIBLE.has(extname(file)) ? pickEncoding(ctx) : null;
    if (encoding) {
      const body = await compressedBody(file, encoding, `${stat.mtimeMs}:${stat.size}`).catch(() => null);
      if (body) {
        ctx.set('Content-Encoding', encoding);
        ctx.body = body;
        return;
      }
    }
    ctx.body = createReadStream(file);
  };
}

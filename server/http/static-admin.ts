import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import type { Middleware } from 'koa';
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

export const DEFAULT_RENDERER_DIR = join(PACKAGE_ROOT, 'out', 'renderer');

/**
 * Serves the built renderer under `/GWENDPOINTAPI/_admin/` (single-page app: unknown paths get
 * index.html). Paths are confined to the build folder.
 */
export function staticAdmin(root = DEFAULT_RENDERER_DIR): Middleware {
  const base = normalize(root.endsWith(sep) ? root : root + sep);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return void (await next());
    if (ctx.path === '/GWENDPOINTAPI/_admin') return ctx.redirect('/GWENDPOINTAPI/_admin/');
    const relative = decodeURIComponent(ctx.path.slice('/GWENDPOINTAPI/_admin/'.length));
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
    ctx.body = createReadStream(file);
  };
}

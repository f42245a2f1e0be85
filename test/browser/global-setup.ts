import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type InlineConfig } from 'vite';
import config from '../../electron.vite.config';

const root = resolve(import.meta.dirname, '../..');

/** Newest modification time of a file or of anything below a folder (0 when missing). */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

/**
 * The browser tests drive the built web admin (out/renderer, what `gateway serve` serves). Build
 * it first when it is missing or older than its sources: only the renderer, with the renderer
 * section of electron.vite.config.ts, so these tests do not depend on the desktop shell building.
 */
export default async function setup(): Promise<void> {
  const index = join(root, 'out/renderer/index.html');
  const builtAt = existsSync(index) ? statSync(index).mtimeMs : 0;
  const sourcesAt = Math.max(
    newest(join(root, 'renderer')),
    newest(join(root, 'electron.vite.config.ts')),
    newest(join(root, 'svelte.config.js')),
    newest(join(root, 'server/contract')),
  );
  if (builtAt >= sourcesAt) return;
  await build({ ...(config.renderer as InlineConfig), configFile: false, logLevel: 'warn' });
}

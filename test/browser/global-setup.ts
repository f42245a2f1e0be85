import { join, resolve } from 'node:path';
import { build, type InlineConfig } from 'vite';
import config from '../../electron.vite.config';
import { isBuildCurrent } from '../../scripts/build-freshness.js';

const root = resolve(import.meta.dirname, '../..');

/**
 * The browser tests drive the built web admin (out/renderer, what `gateway serve` serves). Build
 * it first when it is missing or older than its sources: only the renderer, with the renderer
 * section of electron.vite.config.ts, so these tests do not depend on the desktop shell building.
 */
export default async function setup(): Promise<void> {
  const sources = ['renderer', 'electron.vite.config.ts', 'svelte.config.js', 'server/contract'];
  if (isBuildCurrent(root, [join(root, 'out/renderer/index.html')], sources)) return;
  // Vitest sets NODE_ENV=test, which makes Vite and Svelte build their development variant (extra
  // runtime checks, twice the size); the tests drive what `electron-vite build` ships.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ ...(config.renderer as InlineConfig), configFile: false, logLevel: 'warn' });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}

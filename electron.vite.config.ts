import { resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';

/**
 * One build for the three parts of the desktop app. The renderer build is also what
 * `gateway serve` serves as the web admin, so its asset paths are relative (`base: './'`): they
 * resolve under file:// in Electron and under /GWENDPOINTAPI/_admin/ on the web alike.
 */
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        // `cli` is `gateway serve` and the other commands, run by bin/gateway.js when it is current.
        input: {
          index: resolve(import.meta.dirname, 'electron/main/index.ts'),
          cli: resolve(import.meta.dirname, 'server/cli.ts'),
        },
        // Native and dialect modules stay in node_modules (unpacked from asar by electron-builder).
        external: [
          'electron',
          'sqlite3',
          'pg',
          'pg-native',
          'knex',
          'bcryptjs',
          'koa',
          '@koa/router',
          'koa-bodyparser',
          'epc-tds',
          'undici',
          'tsx',
        ],
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'electron/preload/index.ts') },
        // A sandboxed preload cannot load modules: one self-contained CommonJS file.
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false },
      },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'renderer'),
    base: './',
    // The root moved to renderer/, so point the plugin at the project's svelte.config.js.
    plugins: [svelte({ configFile: resolve(import.meta.dirname, 'svelte.config.js') })],
    build: {
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      emptyOutDir: true,
      // electron-vite leaves every part unminified; the renderer is also served over the network
      // as the web admin, so it is minified (JS and CSS). Sizes in docs/performance.md (P27).
      minify: true,
      rollupOptions: { input: { index: resolve(import.meta.dirname, 'renderer/index.html') } },
    },
  },
});

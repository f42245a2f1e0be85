// The `prepare` script: after `npm install`, build the desktop app and the web admin (out/) with
// `electron-vite build` when one of its outputs is missing or older than any file under
// renderer/, electron/, server/ or migrations/, so `npx gateway serve` works right away (SPEC §9). It never fails the
// install: on any problem it prints one line and exits 0, and the web admin then answers with
// its "not built yet" page until `npm run build` succeeds.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isBuildCurrent } from './build-freshness.js';

const root = process.cwd();
// What the build writes; the browser tests' setup may have rebuilt the renderer alone.
const targets = ['out/main/index.js', 'out/main/cli.js', 'out/renderer/index.html'].map((path) => join(root, path));

/** The electron-vite command-line entry, or null when dev dependencies were not installed. */
function electronViteBin() {
  try {
    const require = createRequire(join(root, 'package.json'));
    const manifestPath = require.resolve('electron-vite/package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.['electron-vite'];
    return bin ? join(dirname(manifestPath), bin) : null;
  } catch {
    return null;
  }
}

function main() {
  // Installed as a dependency of something else, or a trimmed checkout: nothing to build.
  if (!existsSync(join(root, 'renderer', 'index.html'))) return;
  if (isBuildCurrent(root, targets)) return;

  const bin = electronViteBin();
  if (!bin) {
    console.log('gateway: electron-vite is not installed (production install?); skipped building the web admin');
    return;
  }
  // The same Node that runs npm, so no shell and no PATH lookups (works on Windows too).
  const result = spawnSync(process.execPath, [bin, 'build'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status === 0) {
    console.log('gateway: built the desktop app and the web admin into out/');
    return;
  }
  const reason =
    result.error?.message ??
    result.stderr
      ?.trim()
      .split('\n')
      .find((line) => line.trim()) ??
    `exit code ${result.status}`;
  console.log(
    `gateway: build failed (${reason.slice(0, 200)}); run "npm run build" to see why — the web admin stays unavailable until then`,
  );
}

try {
  main();
} catch (error) {
  console.log(`gateway: skipped building the web admin (${error instanceof Error ? error.message : String(error)})`);
}
process.exitCode = 0;

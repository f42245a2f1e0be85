// Electron is a dev dependency: its installer downloads the Electron binary, which fails on
// machines without access to that download (CI, air-gapped sites; set
// ELECTRON_SKIP_BINARY_DOWNLOAD=1 there). Should the package still be missing from a checkout,
// restore its files (types + index.js, no binary) from the npm registry so `tsc` and
// `electron-vite build` still work; `npm start` notices the missing binary and runs headless.
// An installed tarball (`npm install --omit=dev gateway-x.tgz`) has no electron/ sources and
// needs no Electron: nothing to do there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = process.cwd();
const target = join(root, 'node_modules', 'electron');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = manifest.devDependencies?.electron;
const checkout = existsSync(join(root, 'electron', 'main'));

if (checkout && version && !existsSync(join(target, 'package.json'))) {
  const scratch = mkdtempSync(join(tmpdir(), 'gateway-electron-'));
  try {
    execFileSync('npm', ['pack', `electron@${version}`, '--pack-destination', scratch, '--silent'], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack produced no tarball');
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', join(scratch, tarball), '-C', target, '--strip-components=1']);
    console.log(
      `gateway: Electron ${version} binary unavailable; installed its package files only (desktop shell builds, npm start runs headless)`,
    );
  } catch (error) {
    console.warn(`gateway: could not restore the electron package files: ${error.message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

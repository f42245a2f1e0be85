// Electron is an optional dependency: its installer downloads the Electron binary, which fails on
// machines without access to that download (CI, air-gapped sites). npm then drops the package
// entirely, and with it the type declarations the desktop shell is checked against. Restore the
// package files (types + index.js, no binary) from the npm registry so `tsc` and `electron-vite
// build` still work; `npm start` notices the missing binary and runs the gateway headless.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = process.cwd();
const target = join(root, 'node_modules', 'electron');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = manifest.optionalDependencies?.electron;

if (version && !existsSync(join(target, 'package.json'))) {
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

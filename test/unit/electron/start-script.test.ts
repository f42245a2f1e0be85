import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chooseLauncher, electronBinary, fallbackLine } from '../../../scripts/start-decision.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ELECTRON_DIR = join(ROOT, 'node_modules', 'electron');
const FILES = { exists: existsSync, read: (path: string) => readFileSync(path, 'utf8') };
const FALLBACK =
  /^Electron is not available here \((.+)\); starting the headless gateway with the web admin instead\.$/m;

describe('chooseLauncher', () => {
  const electronPath = '/app/node_modules/electron/dist/electron';

  it('falls back without an Electron binary, on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(chooseLauncher({ platform, env: { DISPLAY: ':0' }, electronPath: null })).toEqual({
        launcher: 'headless',
        reason: 'no Electron binary; npx install-electron downloads it',
      });
    }
  });

  it('falls back on Linux without X11 or Wayland', () => {
    expect(chooseLauncher({ platform: 'linux', env: {}, electronPath })).toEqual({
      launcher: 'headless',
      reason: 'no display',
    });
    expect(chooseLauncher({ platform: 'linux', env: { DISPLAY: '' }, electronPath })).toMatchObject({
      launcher: 'headless',
    });
  });

  it('launches Electron where it can start', () => {
    expect(chooseLauncher({ platform: 'linux', env: { DISPLAY: ':0' }, electronPath })).toEqual({
      launcher: 'electron',
      electronPath,
    });
    expect(chooseLauncher({ platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0' }, electronPath })).toMatchObject({
      launcher: 'electron',
    });
    // macOS and Windows always have a display; DISPLAY is an X11 variable.
    expect(chooseLauncher({ platform: 'darwin', env: {}, electronPath })).toMatchObject({ launcher: 'electron' });
    expect(chooseLauncher({ platform: 'win32', env: {}, electronPath })).toMatchObject({ launcher: 'electron' });
  });

  it('finds the binary by its path.txt, without running the package (which would try a download)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-electron-pkg-'));
    const files = { exists: existsSync, read: (path: string) => readFileSync(path, 'utf8') };
    try {
      // Not installed at all, or installed without its binary (no path.txt: the download failed).
      expect(electronBinary(null, {}, files)).toBeNull();
      expect(electronBinary(dir, {}, files)).toBeNull();
      // path.txt written, but the binary it names is missing.
      writeFileSync(join(dir, 'path.txt'), 'electron');
      expect(electronBinary(dir, {}, files)).toBeNull();
      mkdirSync(join(dir, 'dist'));
      writeFileSync(join(dir, 'dist', 'electron'), '');
      expect(electronBinary(dir, {}, files)).toBe(join(dir, 'dist', 'electron'));
      // ELECTRON_OVERRIDE_DIST_PATH names another dist folder, as the package's index.js reads it.
      expect(electronBinary(dir, { ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'elsewhere') }, files)).toBeNull();
      expect(electronBinary(dir, { ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'dist') }, files)).toBe(
        join(dir, 'dist', 'electron'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says so in one line', () => {
    expect(fallbackLine('no display')).toMatch(FALLBACK);
    expect(fallbackLine('no display')).not.toContain('\n');
  });
});

describe('npm start without a display', () => {
  // SIGTERM forwarding is a POSIX matter; Electron may really start elsewhere than Linux.
  it.runIf(process.platform === 'linux')(
    'prints the fallback line once, serves headless, and stops on SIGTERM',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'gateway-start-'));
      const env = { ...process.env };
      delete env.DISPLAY;
      delete env.WAYLAND_DISPLAY;
      const child = spawn(
        process.execPath,
        ['scripts/start.js', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
        {
          cwd: ROOT,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
            const match = /Gateway listening on (http:\/\/\S+)/.exec(stdout);
            if (match?.[1]) resolve(match[1]);
          });
          void exited.then((code) => reject(new Error(`start.js exited with ${code}\n${stdout}\n${stderr}`)));
        });
        const lines = stdout.split('\n');
        expect(lines.filter((line) => FALLBACK.test(line))).toHaveLength(1);
        // Where the Electron binary was never downloaded (this machine), npm start looks before it
        // tries: no download attempt, no "Downloading Electron binary..." and no "fetch failed" stack.
        if (!electronBinary(ELECTRON_DIR, process.env, FILES)) {
          expect(stdout + stderr).not.toContain('Downloading Electron binary');
          expect(stdout + stderr).not.toContain('fetch failed');
        }
        // Where to open the web admin, once listening (issue 40.8).
        await expect.poll(() => stdout).toContain(`Web admin: ${url}/_admin/`);
        expect(lines.findIndex((line) => FALLBACK.test(line))).toBeLessThan(
          lines.findIndex((line) => line.startsWith('Gateway listening')),
        );
        expect((await fetch(`${url}/_health`)).status).toBe(200);

        child.kill('SIGTERM');
        // The signal reached `gateway serve`, which stopped gracefully; its code is ours.
        expect(await exited).toBe(0);
      } finally {
        child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

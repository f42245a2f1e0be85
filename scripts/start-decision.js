// The decision behind `npm start`, kept apart from the process plumbing so a test can run it.
import { join } from 'node:path';

/**
 * Which program `npm start` runs. Electron needs its binary (Electron 45's package fetches it on
 * first use, or with `npx install-electron`, not at install) and, on Linux, a display server;
 * where either is missing the same gateway runs headless with the web admin.
 * @param {{ platform: NodeJS.Platform, env: Record<string, string | undefined>, electronPath: string | null }} facts
 * @returns {{ launcher: 'electron', electronPath: string } | { launcher: 'headless', reason: string }}
 */
export function chooseLauncher({ platform, env, electronPath }) {
  if (!electronPath) return { launcher: 'headless', reason: 'no Electron binary; npx install-electron downloads it' };
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY)
    return { launcher: 'headless', reason: 'no display' };
  return { launcher: 'electron', electronPath };
}

/**
 * The Electron executable, or null, found by looking rather than by `require('electron')`: the
 * package's index.js downloads a missing binary on the spot, which where the download is blocked
 * prints "Downloading Electron binary..." and a "fetch failed" stack before failing. The package's
 * install script writes the binary's path within `dist/` to `path.txt` once the binary is there
 * (`ELECTRON_OVERRIDE_DIST_PATH` names another dist folder, as index.js reads it).
 * @param {string | null} packageDir the electron package's folder, or null when it is not installed
 * @param {Record<string, string | undefined>} env
 * @param {{ exists: (path: string) => boolean, read: (path: string) => string }} files
 * @returns {string | null}
 */
export function electronBinary(packageDir, env, files) {
  if (!packageDir) return null;
  let relative = '';
  try {
    relative = files.read(join(packageDir, 'path.txt')).trim();
  } catch {
    // No path.txt: the install script never finished its download.
  }
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (!relative && !override) return null;
  const path = join(override || join(packageDir, 'dist'), relative || 'electron');
  return files.exists(path) ? path : null;
}

/**
 * The one line `npm start` prints when it falls back.
 * @param {string} reason
 */
export const fallbackLine = (reason) =>
  `Electron is not available here (${reason}); starting the headless gateway with the web admin instead.`;

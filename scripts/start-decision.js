// The decision behind `npm start`, kept apart from the process plumbing so a test can run it.

/**
 * Which program `npm start` runs. Electron needs its binary (downloaded by the electron
 * package's install script, which offline installs skip) and, on Linux, a display server; where
 * either is missing the same gateway runs headless with the web admin.
 * @param {{ platform: NodeJS.Platform, env: Record<string, string | undefined>, electronPath: string | null }} facts
 * @returns {{ launcher: 'electron', electronPath: string } | { launcher: 'headless', reason: string }}
 */
export function chooseLauncher({ platform, env, electronPath }) {
  if (!electronPath) return { launcher: 'headless', reason: 'no Electron binary' };
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY)
    return { launcher: 'headless', reason: 'no display' };
  return { launcher: 'electron', electronPath };
}

/**
 * The Electron executable, or null. In plain Node, `require('electron')` returns the binary's
 * path, and throws when the binary was never downloaded.
 * @param {(id: string) => unknown} require
 * @param {(path: string) => boolean} exists
 * @returns {string | null}
 */
export function electronBinary(require, exists) {
  try {
    const path = require('electron');
    return typeof path === 'string' && exists(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * The one line `npm start` prints when it falls back.
 * @param {string} reason
 */
export const fallbackLine = (reason) =>
  `Electron is not available here (${reason}); starting the headless gateway with the web admin instead.`;

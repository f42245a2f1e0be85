// Whether a file that `electron-vite build` wrote is at least as new as everything it is built
// from. Used before a build (`build-if-needed.js`) and before running the built CLI (`bin/gateway.js`).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the build reads: the renderer, the Electron shell, and the server and migrations it bundles. */
const SOURCES = ['renderer', 'electron', 'server', 'migrations'];

/** Newest modification time of a file or of anything below a folder (0 when missing). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

/**
 * True when every one of `targets` (paths under out/) exists and nothing in `sources` (paths
 * relative to `root`, by default everything the full build reads) changed after the oldest of
 * them was built. The sources are walked once, however many targets there are.
 */
export function isBuildCurrent(root, targets, sources = SOURCES) {
  if (!targets.every((target) => existsSync(target))) return false;
  const builtAt = Math.min(...targets.map((target) => statSync(target).mtimeMs));
  return sources.every((source) => newest(join(root, source)) <= builtAt);
}

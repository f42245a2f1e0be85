import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  name?: string;
  version?: string;
}

/**
 * The gateway's package folder and manifest, found by walking up from this module: it runs from
 * source (server/) under tsx and from the build (out/main/chunks/) under Node or Electron, and
 * files such as out/renderer/ are found relative to the package, not to this file.
 */
function findPackage(): { root: string; manifest: Manifest } | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 5; level++) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
      if (manifest.name === 'gateway') return { root: dir, manifest };
    } catch {
      // no (readable) manifest here: look one folder up
    }
    dir = dirname(dir);
  }
  return null;
}

const found = findPackage();

/** The package folder; the working directory when it cannot be found (a trimmed install). */
export const PACKAGE_ROOT = found?.root ?? process.cwd();

export const PACKAGE_VERSION = found?.manifest.version ?? '0.0.0';

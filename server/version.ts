import { readFileSync } from 'node:fs';

/** The gateway's version, from package.json (read once; works from source and from the bundle root). */
function readVersion(): string {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'gateway' && manifest.version) return manifest.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();

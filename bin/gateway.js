#!/usr/bin/env node
// Runs the gateway CLI. The build (out/main/cli.js, which `npm install` and `npm run build` make,
// and which shares its code with the desktop app) runs when no source changed after it was
// built; otherwise the TypeScript runs directly through tsx's loader, so `npx gateway serve`
// always runs the current code, with or without a build. The build is preferred because tsx
// keeps function names by wrapping every function it creates: ~4% of the main thread under
// load (`BENCH_PROFILE=1 npm run bench`). GATEWAY_FROM_SOURCE=1 forces the TypeScript.
import { fileURLToPath } from 'node:url';
import { isBuildCurrent } from '../scripts/build-freshness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = new URL('../out/main/cli.js', import.meta.url);

if (process.env.GATEWAY_FROM_SOURCE !== '1' && isBuildCurrent(root, [fileURLToPath(built)])) {
  await import(built.href);
} else {
  // tsx is a dev dependency: a production install runs the build, and has no sources to be newer.
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write(
      'gateway: the build (out/main/cli.js) is missing or stale and tsx is not installed; run "npm run build"\n',
    );
    process.exit(1);
  }
  tsx.register();
  await import('../server/cli.ts');
}

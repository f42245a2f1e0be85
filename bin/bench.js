#!/usr/bin/env node
// `npm run bench`: brings the build up to date first (the gateway under test runs its build, as
// `gateway serve` does, see bin/gateway.js), then runs the TypeScript benchmark through tsx's
// loader. The benchmark's own code is the load generator, not what is measured.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/build-if-needed.js', import.meta.url))], {
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  stdio: 'inherit',
});
register();
await import('../bench/run.ts');

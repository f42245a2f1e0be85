#!/usr/bin/env node
// `npm start`: builds what is missing, then runs the desktop app, or, where Electron cannot
// start (no binary, no display), `gateway serve` with the web admin, saying so in one line.
// Arguments are forwarded (`npm start -- --port 0`); signals are passed on to the child and its
// exit code becomes ours.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GATEWAY_NODE_FLAGS } from './node-flags.js';
import { chooseLauncher, electronBinary, fallbackLine } from './start-decision.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);

const build = spawnSync(process.execPath, [fileURLToPath(new URL('build-if-needed.js', import.meta.url))], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) {
  process.stderr.write('npm start: the build failed (see above)\n');
  process.exit(build.status ?? 1);
}

const decision = chooseLauncher({
  platform: process.platform,
  env: process.env,
  electronPath: electronBinary(electronPackageDir(), process.env, {
    exists: existsSync,
    read: (path) => readFileSync(path, 'utf8'),
  }),
});
if (decision.launcher === 'electron') {
  // The desktop app reads its port and host from Settings; the flags are `gateway serve`'s.
  if (args.length > 0)
    process.stdout.write(
      `npm start: the desktop app takes its port and host from Settings and ignores ${args.join(' ')}; for the headless gateway run npm run serve -- ${args.join(' ')}\n`,
    );
  // ELECTRON_RUN_AS_NODE left over in a shell would turn the app into a plain Node process.
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  run(decision.electronPath, ['.', ...args], env, () => headless('the Electron binary could not be started'));
} else {
  headless(decision.reason);
}

/** node_modules/electron, or null when the package is not installed at all. */
function electronPackageDir() {
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

function headless(reason) {
  process.stdout.write(`${fallbackLine(reason)}\n`);
  run(
    process.execPath,
    [...GATEWAY_NODE_FLAGS, fileURLToPath(new URL('../bin/gateway.js', import.meta.url)), 'serve', ...args],
    process.env,
  );
}

/** Runs a child with our stdio, forwards signals to it and exits with its code. */
function run(command, argv, env, onMissing) {
  const child = spawn(command, argv, { cwd: root, env, stdio: 'inherit' });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  const release = () => {
    for (const signal of signals) process.off(signal, forward);
  };
  child.once('error', (error) => {
    release();
    if (onMissing && (error.code === 'ENOENT' || error.code === 'EACCES')) return onMissing();
    process.stderr.write(`npm start: could not run ${command}: ${error.message}\n`);
    process.exitCode = 1;
  });
  child.once('exit', (code, signal) => {
    release();
    process.exitCode = code ?? 128 + (constants.signals[signal] ?? 0);
  });
}

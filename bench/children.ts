import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { GATEWAY_NODE_FLAGS } from '../scripts/node-flags.js';
import { pinned } from './wrk';

export const ROOT = join(import.meta.dirname, '..');
export const ADMIN_PASSWORD = 'bench-admin-password';

export interface Child {
  name: string;
  process: ChildProcess;
  /** Up to and including `/GWENDPOINTAPI`. */
  base: string;
  /** Every listener it printed, by scheme (`https` once the gateway has an HTTPS listener). */
  bases: Partial<Record<'http' | 'https', string>>;
  /** The last lines it wrote to stderr, for a failure message. */
  stderrTail(): string;
  stop(): Promise<void>;
}

/**
 * Starts a server as a child process and resolves once it prints its "listening on …" line. The
 * servers run in their own processes, pinned to the server's core where taskset exists, so that
 * the load generator gets the other core.
 */
async function startChild(name: string, args: string[], env: Record<string, string> = {}): Promise<Child> {
  // On the server's core (taskset execs node, so the pid is node's).
  const [command, commandArgs] = pinned('server', process.execPath, args);
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  // Always drain both pipes: a full pipe would block the child mid-benchmark.
  child.stdout.on('data', (chunk: Buffer) => (out = (out + chunk.toString()).slice(-16_384)));
  child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-16_384)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out}\n${err}`)), 60_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+\/GWENDPOINTAPI)/.exec(out);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      resolve(match[1]);
    };
    child.stdout.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before listening:\n${out}\n${err}`));
    });
  });
  return {
    name,
    process: child,
    base,
    bases: Object.fromEntries(
      [...out.matchAll(/listening on ((https?):\/\/\S+\/GWENDPOINTAPI)/g)].map((m) => [m[2], m[1]]),
    ),
    stderrTail: () => err.split('\n').slice(-20).join('\n'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGTERM lets the gateway finish in-flight work and, with --cpu-prof, write its profile.
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** The bare Koa server. Its TypeScript runs through tsx; its per-request code is all in node_modules, which tsx leaves as it is. */
export function startBaseline(): Promise<Child> {
  // Under the gateway's node flags too: they make bare Koa ~15 % cheaper per request (P61), and a
  // yardstick without them would flatter every ratio.
  return startChild('baseline', [...GATEWAY_NODE_FLAGS, '--import', 'tsx', join(ROOT, 'bench/baseline-server.ts')]);
}

export const PROFILE_DIR = join(ROOT, 'bench/results/profiles');

/**
 * `gateway serve` on a fresh data dir (on PostgreSQL with `databaseUrl`); with `profile`, under
 * `--cpu-prof` (written at exit). `root`: the checkout whose `bin/gateway.js` runs (this one unless
 * given) and `extraNodeFlags` what node runs it with: bench/cpu-ab.ts starts other builds beside it.
 */
export function startGateway(
  dataDir: string,
  profile: boolean,
  databaseUrl?: string,
  root = ROOT,
  extraNodeFlags: string[] = [],
): Promise<Child> {
  // As the service unit and the image run it (scripts/node-flags.js).
  const nodeFlags: string[] = [...GATEWAY_NODE_FLAGS, ...extraNodeFlags];
  const env: Record<string, string> = { GATEWAY_ADMIN_PASSWORD: ADMIN_PASSWORD };
  if (profile) {
    mkdirSync(PROFILE_DIR, { recursive: true });
    nodeFlags.push('--cpu-prof', '--cpu-prof-dir', PROFILE_DIR);
    // The SQLite side (server/db/sql-profile.ts): time per kind of statement, written at exit.
    env.GATEWAY_SQL_PROFILE = sqlProfileFile(dataDir);
  }
  const args = [
    ...nodeFlags,
    join(root, 'bin/gateway.js'),
    'serve',
    '--port',
    '0',
    '--https-port',
    '0',
    // The broker listens only once a case turns mqttMode on (then on a free port; see AdminClient.mqttUrl).
    '--mqtt-port',
    '0',
    '--host',
    '127.0.0.1',
  ];
  if (databaseUrl) args.push('--database-url', databaseUrl);
  return startChild('gateway', [...args, '--data-dir', dataDir], env);
}

/** Where a profiled gateway on `dataDir` writes its SQL profile (beside the CPU profiles, kept). */
export const sqlProfileFile = (dataDir: string): string => join(PROFILE_DIR, `sql.${basename(dataDir)}.json`);

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ADMIN_PASSWORD } from './test-gateway';

const BIN = join(import.meta.dirname, '../../bin/gateway.js');

export interface ChildGateway {
  process: ChildProcess;
  base: string;
  port: number;
  stdout: () => string;
  /** Resolves with the exit code/signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `gateway serve` as a real child process and waits for its "listening" line. `umask` (octal
 * text, e.g. '022') runs it under that umask, through the shell, as a service manager would.
 * `nodeArgs` go to node before the script (`--cpu-prof`, which NODE_OPTIONS does not take).
 */
export async function startChildGateway(
  args: string[],
  env: Record<string, string> = {},
  options: { umask?: string; nodeArgs?: string[] } = {},
): Promise<ChildGateway> {
  const command = [
    process.execPath,
    ...(options.nodeArgs ?? []),
    BIN,
    'serve',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    ...args,
  ];
  const [file, argv] = options.umask
    ? ['/bin/sh', ['-c', `umask ${options.umask} && exec "$@"`, 'sh', ...command]]
    : [process.execPath, command.slice(1)];
  const child = spawn(file, argv, {
    env: { ...process.env, GATEWAY_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}\n${err}`)), 30_000);
    const check = () => {
      const match = /Gateway listening on http:\/\/[^:]+:(\d+)\/GWENDPOINTAPI/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`gateway exited before listening:\n${out}\n${err}`));
    });
  });
  return { process: child, port, base: `http://127.0.0.1:${port}/GWENDPOINTAPI`, stdout: () => out, exited };
}

/** A bearer token of the first-start admin on a child gateway. */
export async function childAdminToken(base: string): Promise<string> {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port';

/** The newest PostgreSQL server binaries Debian installed (`/usr/lib/postgresql/<version>/bin`). */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

export interface PostgresCluster {
  /** Connection URL of the `postgres` superuser database. */
  url: string;
  port: number;
  /** The postmaster's process id while it runs (its backends are its children). */
  readonly pid: number | undefined;
  /** Stops the server but keeps its data (a database "lost while running"). */
  pause(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A throwaway cluster: `initdb` in a temporary folder, run as the `postgres` system user (the
 * server refuses to run as root), listening on a free loopback port and a socket in that folder.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin)
    throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  // The server refuses to run as root: as root, run initdb and postgres as the `postgres` user
  // directly (spawn's uid/gid), so signals reach the server itself.
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
      }
    : {};
  if (owner.uid !== undefined && owner.gid !== undefined) chownSync(dir, owner.uid, owner.gid);
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const env = { ...process.env, HOME: dir, LC_ALL: 'C' };
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    stdio: 'ignore',
    env,
    cwd: dir,
    ...owner,
  });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let server: ChildProcess | null = null;
  const launch = async () => {
    server = spawn(
      join(bin, 'postgres'),
      ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
      {
        stdio: 'ignore',
        env,
        cwd: dir,
        ...owner,
      },
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const halt = async () => {
    const running = server;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGINT'); // fast shutdown: disconnect clients, stop at once
    await exited;
  };
  await launch();
  return {
    url,
    port,
    get pid() {
      return server?.pid;
    },
    pause: halt,
    resume: launch,
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Creates a fresh database in the cluster and returns its URL. */
export async function createDatabase(clusterUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return clusterUrl.replace(/\/postgres$/, `/${name}`);
}

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../server/version';

// The command line as a service manager drives it: --version, usage errors, environment
// variables (flag > environment > stored setting), *_FILE secrets, log level, and the first
// admin password kept out of a service's log.
const BIN = join(import.meta.dirname, '../../bin/gateway.js');
const dir = mkdtempSync(join(tmpdir(), 'gateway-cli-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A clean environment: none of the GATEWAY_* variables of the shell that runs the tests. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GATEWAY_')));
  delete base.JOURNAL_STREAM;
  return { ...base, ...extra };
}

const run = (args: string[], extra: Record<string, string> = {}) =>
  spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: env(extra), timeout: 60_000 });

interface Served {
  stdout: string;
  stderr: string;
  base: string;
}

/** Runs `serve` with `args`/`extra` until it listens (then SIGTERM), or until it exits. */
async function serveOnce(args: string[], extra: Record<string, string>, whileUp?: (base: string) => Promise<void>) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<string | null>((resolve) => {
    child.stdout.on('data', () => {
      const match = /Gateway listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(() => resolve(null));
  });
  const base = await listening;
  if (base) {
    // Lines printed right after the listening line.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await whileUp?.(base);
    child.kill('SIGTERM');
  }
  const code = await exited;
  return { code, listened: base !== null, stdout, stderr, base: base ?? '' } as Served & {
    code: number | null;
    listened: boolean;
  };
}

const login = async (base: string, password: string) =>
  (
    await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'admin', password }),
    })
  ).status;

describe('gateway command line as a service', { timeout: 120_000 }, () => {
  it('--version prints the package version', () => {
    const result = run(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`gateway ${VERSION}\n`);
  });

  it('an unknown flag prints usage on stderr and exits 2', () => {
    const result = run(['serve', '--bogus']);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--bogus/);
    expect(result.stderr).toMatch(/Usage:/);
    expect(result.stdout).toBe('');
  });

  it('backup with no action says the action is missing before anything else', () => {
    const result = run(['backup']);
    expect(result.status).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('gateway: backup needs an action: "export" or "import"');
  });

  it('reads port, host, data folder and log level from the environment; a flag wins', async () => {
    const data = join(dir, 'env-data');
    const served = await serveOnce([], {
      GATEWAY_PORT: '0',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_DATA_DIR: data,
      GATEWAY_LOG_LEVEL: 'debug',
      GATEWAY_ADMIN_PASSWORD: 'env-admin-pass-1',
    });
    expect(served.listened).toBe(true);
    expect(served.base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(statSync(join(data, 'gateway.db')).isFile()).toBe(true);
    expect(served.stderr).toMatch(/"level":"debug","message":"configuration"/);

    // The flag wins over a variable that would be refused.
    const flagged = await serveOnce(['--port', '0', '--data-dir', data, '--log-level', 'warn'], {
      GATEWAY_PORT: '99999',
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_LOG_LEVEL: 'nonsense',
    });
    expect(flagged.listened).toBe(true);
    expect(flagged.stderr).not.toMatch(/"level":"info"/);
  });

  it('a bad environment value is a usage error naming the variable', () => {
    const result = run(['serve'], { GATEWAY_PORT: '99999', GATEWAY_DATA_DIR: join(dir, 'bad-port') });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^gateway: GATEWAY_PORT must be 0–65535/);
    const level = run(['serve'], { GATEWAY_LOG_LEVEL: 'loud', GATEWAY_DATA_DIR: join(dir, 'bad-level') });
    expect(level.status).toBe(2);
    expect(level.stderr).toMatch(/debug, info, warn, error/);
  });

  it('reads secrets from *_FILE variables; both forms at once is refused', async () => {
    const secret = join(dir, 'admin-secret');
    writeFileSync(secret, 'file-admin-pass-1\n');
    const data = join(dir, 'secret-file');
    const served = await serveOnce(
      ['--port', '0', '--host', '127.0.0.1', '--data-dir', data],
      { GATEWAY_ADMIN_PASSWORD_FILE: secret },
      async (base) => expect(await login(base, 'file-admin-pass-1')).toBe(200),
    );
    expect(served.listened).toBe(true);
    expect(served.stdout).not.toMatch(/password/);

    const both = run(['serve', '--data-dir', join(dir, 'both')], {
      GATEWAY_ADMIN_PASSWORD: 'x',
      GATEWAY_ADMIN_PASSWORD_FILE: secret,
    });
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/GATEWAY_ADMIN_PASSWORD or GATEWAY_ADMIN_PASSWORD_FILE, not both/);

    const missing = run(['serve', '--data-dir', join(dir, 'missing')], {
      GATEWAY_DATABASE_URL_FILE: join(dir, 'no-such-file'),
    });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/GATEWAY_DATABASE_URL_FILE: cannot read .*ENOENT/);
  });

  it('as a service, the generated password goes to a 0600 file, never to stdout or the log', async () => {
    const data = join(dir, 'service');
    const served = await serveOnce(['--port', '0', '--host', '127.0.0.1', '--data-dir', data], {
      GATEWAY_SERVICE: '1',
    });
    const file = join(data, 'first-admin-password.txt');
    expect(served.stdout).toContain(`its password is in ${file}`);
    const password = readFileSync(file, 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(12);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(served.stdout).not.toContain(password);
    expect(served.stderr).not.toContain(password);
    expect(readFileSync(join(data, 'logs', 'gateway.log'), 'utf8')).not.toContain(password);
    // The file's password opens the account.
    await serveOnce(
      ['--port', '0', '--host', '127.0.0.1', '--data-dir', data],
      { GATEWAY_SERVICE: '1' },
      async (base) => expect(await login(base, password)).toBe(200),
    );
  });
});

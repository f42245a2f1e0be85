import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildGateway, type ChildGateway } from '../helpers/child-gateway';
import { ADMIN_PASSWORD } from '../helpers/test-gateway';

const BIN = join(import.meta.dirname, '../../bin/gateway.js');
const dir = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GATEWAY_ADMIN_PASSWORD: '', ...env },
    timeout: 60_000,
  });

/** Waits until `check` holds (a line printed after the listening line, a log line on disk). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/** The password `serve` prints on the start that creates the first admin. */
async function printedAdminPassword(child: ChildGateway): Promise<string> {
  await until(() => child.stdout().includes('First start'), 'the first-start line');
  const match = /First start: created user "admin" with password (\S+)/.exec(child.stdout());
  if (!match?.[1]) throw new Error(`no password line in:\n${child.stdout()}`);
  return match[1];
}

const login = async (child: ChildGateway, userName: string, password: string): Promise<number> =>
  (
    await fetch(`${child.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName, password }),
    })
  ).status;

/** Every file under `folder`, as text, so a test can say what no file holds. */
const filesUnder = (folder: string): string =>
  readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)).toString('latin1'))
    .join('\n');

async function stop(child: ChildGateway): Promise<void> {
  child.process.kill('SIGTERM');
  expect((await child.exited).code).toBe(0);
}

// Each test starts several gateway processes (tsx start-up included): give slow machines room.
describe('gateway command line', { timeout: 120_000 }, () => {
  it('serve on a taken port fails with one line and keeps the first-start password for the next start', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const data = join(dir, 'taken');
    const taken = run(['serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', data]);
    blocker.close();
    expect(taken.status).toBe(1);
    expect(taken.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^gateway: Port \d+ on 127\.0\.0\.1 is already in use.*\(port_in_use\)$/),
    ]);
    const next = await startChildGateway(['--data-dir', data], { GATEWAY_ADMIN_PASSWORD: '' });
    try {
      // The password line follows the listening line.
      for (let i = 0; i < 50 && !next.stdout().includes('First start'); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(next.stdout()).toMatch(/First start: created user "admin" with password \S+/);
    } finally {
      next.process.kill('SIGTERM');
      expect((await next.exited).code).toBe(0);
    }
  });

  it('adds users, migrates, and refuses bad usage with a usage text', () => {
    const data = join(dir, 'users');
    const passwordFile = join(dir, 'pw.txt');
    writeFileSync(passwordFile, 'operator-pass-1\n');
    const added = run([
      'user',
      'add',
      '--username',
      'operator',
      '--password-file',
      passwordFile,
      '--role',
      'admin',
      '--data-dir',
      data,
    ]);
    expect(added.stdout).toContain('Created user operator (roles: admin)');
    const duplicate = run([
      'user',
      'add',
      '--username',
      'OPERATOR',
      '--password-file',
      passwordFile,
      '--data-dir',
      data,
    ]);
    expect(duplicate.status).toBe(1);
    expect(duplicate.stderr).toContain('(username_taken)');
    expect(run(['migrate', '--data-dir', data]).stdout).toContain('Database is up to date');
    const wrong = run(['frobnicate']);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('Usage:');
    for (const asked of [['--help'], ['-h'], ['help'], ['serve', '--help']]) {
      const help = run(asked);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('Usage:');
      expect(help.stderr).toBe('');
    }
  });

  it('leaves the first admin to serve when a command runs first on a fresh data folder', async () => {
    const passwordFile = join(dir, 'first-pw.txt');
    writeFileSync(passwordFile, 'bob-pass-12\n');
    const passphraseFile = join(dir, 'first-passphrase.txt');
    writeFileSync(passphraseFile, 'a long passphrase\n');

    // An ordinary user added before the first start: serve still creates "admin" and prints it.
    const afterUser = join(dir, 'first-user');
    const added = run(['user', 'add', '--username', 'bob', '--password-file', passwordFile, '--data-dir', afterUser]);
    expect(added.status).toBe(0);
    expect(added.stdout).toBe('Created user bob (roles: none)\n');
    const first = await startChildGateway(['--data-dir', afterUser], { GATEWAY_ADMIN_PASSWORD: '' });
    try {
      expect(await login(first, 'admin', await printedAdminPassword(first))).toBe(200);
      expect(await login(first, 'bob', 'bob-pass-12')).toBe(200);
    } finally {
      await stop(first);
    }

    // A backup exported before the first start: GATEWAY_ADMIN_PASSWORD given to serve applies.
    const afterExport = join(dir, 'first-export');
    const out = join(dir, 'first.gwbackup');
    const exported = run([
      'backup',
      'export',
      '--out',
      out,
      '--passphrase-file',
      passphraseFile,
      '--data-dir',
      afterExport,
    ]);
    expect(exported.stdout).toBe(`Wrote ${out}\n`);
    const withEnv = await startChildGateway(['--data-dir', afterExport]);
    try {
      expect(await login(withEnv, 'admin', ADMIN_PASSWORD)).toBe(200);
      expect(withEnv.stdout()).not.toContain('First start');
    } finally {
      await stop(withEnv);
    }

    // An admin added by the operator is the first admin: serve creates none.
    const ownAdmin = join(dir, 'first-own-admin');
    run([
      'user',
      'add',
      '--username',
      'boss',
      '--password-file',
      passwordFile,
      '--role',
      'admin',
      '--data-dir',
      ownAdmin,
    ]);
    const own = await startChildGateway(['--data-dir', ownAdmin], { GATEWAY_ADMIN_PASSWORD: '' });
    try {
      expect(await login(own, 'boss', 'bob-pass-12')).toBe(200);
      // The listening line comes first; give a password line the time it would need.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(own.stdout()).not.toContain('First start');
      expect(await login(own, 'admin', ADMIN_PASSWORD)).toBe(401);
    } finally {
      await stop(own);
    }
  });

  it('appends its log lines to <data-dir>/logs/gateway.log, never the generated admin password', async () => {
    const data = join(dir, 'logged');
    const logFile = join(data, 'logs', 'gateway.log');
    const child = await startChildGateway(['--data-dir', data], { GATEWAY_ADMIN_PASSWORD: '' });
    let password: string;
    try {
      password = await printedAdminPassword(child);
      await until(() => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('gateway started'), 'the log');
      const started = readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry.message === 'gateway started');
      expect(started).toMatchObject({ level: 'info', database: 'sqlite', port: child.port, firstStart: true });
      expect(await login(child, 'admin', password)).toBe(200);
    } finally {
      await stop(child);
    }
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('"message":"gateway stopped"');
    // Printed once on stdout; no file in the data folder holds it (the database keeps a hash).
    expect(log).not.toContain(password);
    expect(filesUnder(data)).not.toContain(password);
  });

  it('exports and imports a backup through files', () => {
    const data = join(dir, 'backup');
    const passphraseFile = join(dir, 'passphrase.txt');
    writeFileSync(passphraseFile, 'a long passphrase\n');
    const out = join(dir, 'config.gwbackup');
    expect(run(['migrate', '--data-dir', data]).status).toBe(0);
    // A backup must hold an active admin to be restorable (SPEC §14).
    const passwordFile = join(dir, 'backup-admin-pw.txt');
    writeFileSync(passwordFile, 'admin-pass-12\n');
    const admin = ['--username', 'root', '--password-file', passwordFile, '--role', 'admin', '--data-dir', data];
    expect(run(['user', 'add', ...admin]).status).toBe(0);
    expect(
      run(['backup', 'export', '--out', out, '--passphrase-file', passphraseFile, '--data-dir', data]).stdout,
    ).toContain(`Wrote ${out}`);
    const dry = run([
      'backup',
      'import',
      out,
      '--passphrase-file',
      passphraseFile,
      '--dry-run',
      '--data-dir',
      join(dir, 'restored'),
    ]);
    expect(dry.status).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, changes: { roles: expect.any(Object) } });
    writeFileSync(passphraseFile, 'the wrong passphrase\n');
    const wrong = run([
      'backup',
      'import',
      out,
      '--passphrase-file',
      passphraseFile,
      '--data-dir',
      join(dir, 'restored'),
    ]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('(backup_invalid)');
  });
});

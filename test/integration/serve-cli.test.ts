import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildGateway } from '../helpers/child-gateway';

const BIN = join(import.meta.dirname, '../../bin/gateway.js');
const dir = mkdtempSync(join(tmpdir(), 'gateway-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GATEWAY_ADMIN_PASSWORD: '', ...env },
    timeout: 60_000,
  });

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

  it('exports and imports a backup through files', () => {
    const data = join(dir, 'backup');
    const passphraseFile = join(dir, 'passphrase.txt');
    writeFileSync(passphraseFile, 'a long passphrase\n');
    const out = join(dir, 'config.gwbackup');
    expect(run(['migrate', '--data-dir', data]).status).toBe(0);
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

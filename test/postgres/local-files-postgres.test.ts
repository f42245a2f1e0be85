import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startChildGateway } from '../helpers/child-gateway';
import { createDatabase } from '../helpers/postgres-cluster';

const dir = mkdtempSync(join(tmpdir(), 'gateway-pg-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gateway serve on PostgreSQL', { timeout: 90_000 }, () => {
  it('still keeps its local files, the log, in --data-dir (SPEC §10), and no SQLite database there', async () => {
    const url = await createDatabase(inject('postgresUrl'), `gw_files_${process.pid}_${Date.now().toString(36)}`);
    // A folder that does not exist yet: with PostgreSQL only the log and the secret key create it.
    const data = join(dir, 'data');
    const logFile = join(data, 'logs', 'gateway.log');
    const child = await startChildGateway(['--data-dir', data, '--database-url', url], { GATEWAY_ADMIN_PASSWORD: '' });
    let stderr = '';
    child.process.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const ready = () =>
        child.stdout().includes('First start') &&
        existsSync(logFile) &&
        readFileSync(logFile, 'utf8').includes('gateway started');
      for (let i = 0; i < 200 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      const password = /First start: created user "admin" with password (\S+)/.exec(child.stdout())?.[1] ?? '';
      expect(password, child.stdout() + stderr).not.toBe('');
      const log = readFileSync(logFile, 'utf8');
      expect(log).toContain('"database":"postgres"');
      expect(log).not.toContain(password);
      expect(existsSync(join(data, 'gateway.db'))).toBe(false);
    } finally {
      child.process.kill('SIGTERM');
      expect(await child.exited, child.stdout() + stderr).toEqual({ code: 0, signal: null });
    }
  });
});

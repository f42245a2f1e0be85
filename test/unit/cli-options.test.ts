import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  parsePort,
  resolveSettings,
  SERVE_SETTINGS,
  secretFromEnv,
  serveUsage,
  UsageError,
} from '../../server/cli-options';

const dir = mkdtempSync(join(tmpdir(), 'gateway-cli-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve settings from flags and environment', () => {
  it('a flag wins over its variable; an empty variable is unset; nothing set leaves the stored setting', () => {
    const env = { GATEWAY_PORT: '9000', GATEWAY_HOST: '', GATEWAY_LOG_LEVEL: 'debug' };
    expect(resolveSettings({ port: '8081' }, env)).toEqual({ port: '8081', 'log-level': 'debug' });
    expect(resolveSettings({}, env)).toEqual({ port: '9000', 'log-level': 'debug' });
    expect(resolveSettings({}, {})).toEqual({});
  });

  it('every row has a flag in the usage line and a GATEWAY_ variable', () => {
    for (const row of SERVE_SETTINGS) {
      expect(serveUsage()).toContain(`--${row.flag}`);
      expect(row.env).toMatch(/^GATEWAY_[A-Z_]+$/);
    }
  });

  it('a secret comes from NAME or NAME_FILE (newline dropped), never both', () => {
    const file = join(dir, 'url');
    writeFileSync(file, 'postgres://u:p@db/gw\n');
    expect(resolveSettings({}, { GATEWAY_DATABASE_URL_FILE: file })['database-url']).toBe('postgres://u:p@db/gw');
    expect(secretFromEnv('GATEWAY_ADMIN_PASSWORD', { GATEWAY_ADMIN_PASSWORD: 'x' })).toBe('x');
    expect(() =>
      secretFromEnv('GATEWAY_ADMIN_PASSWORD', { GATEWAY_ADMIN_PASSWORD: 'x', GATEWAY_ADMIN_PASSWORD_FILE: file }),
    ).toThrow(UsageError);
    // A non-secret row has no _FILE form.
    expect(resolveSettings({}, { GATEWAY_PORT_FILE: file })).toEqual({});
  });

  it('ports are whole numbers 0–65535, named by their source', () => {
    expect(parsePort('0', '--port')).toBe(0);
    expect(parsePort(undefined, '--port')).toBeUndefined();
    for (const bad of ['', ' ', '65536', '-1', '80.5', '0x50', 'http'])
      expect(() => parsePort(bad, 'GATEWAY_PORT'), bad).toThrow('GATEWAY_PORT must be 0–65535');
  });
});

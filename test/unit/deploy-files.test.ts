import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GATEWAY_NODE_FLAGS } from '../../scripts/node-flags.js';

// The service files under deploy/ and the Dockerfile. No container engine runs here: the
// Dockerfile's install stage runs deploy/install-artifact.sh, which the packed-install test runs
// for real; this file checks what a reader of the Dockerfile relies on.
const ROOT = join(import.meta.dirname, '../..');
const UNIT = join(ROOT, 'deploy/gateway.service');
const scratch = mkdtempSync(join(tmpdir(), 'gateway-deploy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const canVerify = analyze.status === 0;
if (!canVerify)
  console.warn('skipped: systemd-analyze is not installed (Debian package "systemd"; .ci/run installs it)');

/**
 * `systemd-analyze verify` of a unit text, as a file named gateway.service. verify checks that
 * ExecStart's program exists: where Node is not /usr/bin/node (Debian's and NodeSource's path,
 * which the unit names), this machine's Node stands in.
 */
function verify(text: string) {
  const dir = mkdtempSync(join(scratch, 'unit-'));
  const file = join(dir, 'gateway.service');
  writeFileSync(file, existsSync('/usr/bin/node') ? text : text.replace('/usr/bin/node ', `${process.execPath} `));
  return spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
}

/** The unit's `Key=value` lines (the last one of a key wins, as in systemd). */
function directives(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match) out.set(match[1], match[2]);
  }
  return out;
}

describe('systemd unit', () => {
  const text = readFileSync(UNIT, 'utf8');

  it.skipIf(!canVerify)('passes systemd-analyze verify', () => {
    const result = verify(text);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it.skipIf(!canVerify)('verify catches a broken unit (the check can fail)', () => {
    const result = verify(text.replace('Restart=on-failure', 'Restart=sometimes'));
    expect(result.stderr).toMatch(/restart specifier/);
    const missing = verify(text.replace('/usr/bin/node ', '/usr/bin/no-such-node '));
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/not executable/);
  });

  it('runs as its own user in its state folder, hardened, restarting on failure', () => {
    const unit = directives(text);
    expect(unit.get('User')).toBe('gateway');
    expect(unit.get('StateDirectory')).toBe('gateway');
    expect(unit.get('Environment')).toBe('GATEWAY_SERVICE=1');
    expect(text).toContain('Environment=GATEWAY_DATA_DIR=/var/lib/gateway');
    expect(unit.get('ReadWritePaths')).toBe('/var/lib/gateway');
    expect(unit.get('Restart')).toBe('on-failure');
    expect(unit.get('NoNewPrivileges')).toBe('yes');
    expect(unit.get('ProtectSystem')).toBe('strict');
    expect(unit.get('MemoryDenyWriteExecute')).toBeUndefined(); // V8's JIT needs W+X pages
    // No reload: the server has no SIGHUP handler, so a reload would stop it.
    expect(unit.get('ExecReload')).toBeUndefined();
    expect(unit.get('ExecStart')).toBe(
      `/usr/bin/node ${GATEWAY_NODE_FLAGS.join(' ')} /opt/gateway/node_modules/gateway/bin/gateway.js serve`,
    );
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const stages = text.split('\n').filter((line) => line.startsWith('FROM '));

  it('builds in a toolchain stage and runs slim, as a non-root user with a /data volume and a health check', () => {
    expect(stages).toEqual([
      'FROM node:22-bookworm AS build',
      'FROM node:22-bookworm AS install',
      'FROM node:22-bookworm-slim',
    ]);
    const runStage = text.slice(text.lastIndexOf('FROM '));
    expect(runStage).toMatch(/^USER node$/m);
    expect(runStage).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(runStage).toMatch(/GATEWAY_DATA_DIR=\/data/);
    expect(runStage).toMatch(/^HEALTHCHECK [^\n]*\\\n\s+CMD \[.*\/GWENDPOINTAPI\/_health/m);
    expect(runStage).not.toMatch(/^RUN npm/m); // nothing is installed in the run stage
  });

  it('installs the artifact with the script the packed-install test runs', () => {
    expect(text).toContain('RUN sh /tmp/install-artifact.sh /opt/gateway /tmp/artifact/gateway-*.tgz');
    expect(text).toContain(
      `ENTRYPOINT ["${['node', ...GATEWAY_NODE_FLAGS, '/opt/gateway/node_modules/gateway/bin/gateway.js'].join('", "')}"]`,
    );
    // The build stage's commands exist as written.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(text).toContain('RUN npm run build && ');
    expect(manifest.scripts.build).toBe('electron-vite build');
  });

  it('every JSON-form instruction is valid JSON (a typo there silently becomes a shell command)', () => {
    for (const line of text.split('\n')) {
      const json = /^(?:ENTRYPOINT|CMD|VOLUME|\s+CMD) (\[.*\])$/.exec(line)?.[1];
      if (json) expect(() => JSON.parse(json) as unknown, line).not.toThrow();
    }
  });
});

describe('node flags of the server (scripts/node-flags.js, decision 0421)', () => {
  it('are given by every launcher: the serve script, npm start and the bench use the one list', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.serve).toBe(`node ${GATEWAY_NODE_FLAGS.join(' ')} bin/gateway.js serve`);
    for (const file of ['scripts/start.js', 'bench/children.ts'])
      expect(readFileSync(join(ROOT, file), 'utf8'), file).toMatch(/\.\.\.GATEWAY_NODE_FLAGS/);
  });

  const canPin = existsSync('/proc/self/task') && spawnSync('taskset', ['-V']).status === 0;
  it.skipIf(!canPin)("fit V8's helper threads to the cores: one helper on a process confined to one core", () => {
    const threads = (flags: readonly string[]) => {
      const args = [...flags, '-p', "require('fs').readdirSync('/proc/self/task').length"];
      const taskset = spawnSync('taskset', ['-c', '0', process.execPath, ...args], { encoding: 'utf8' });
      return Number(taskset.stdout.trim());
    };
    // Node's default is four helpers whatever the cores; the flags leave one on one core.
    expect(threads(GATEWAY_NODE_FLAGS) - threads([])).toBe(-3);
  });
});

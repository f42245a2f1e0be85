import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isBuildCurrent } from '../../scripts/build-freshness.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes a file with a given modification time (seconds since the epoch). */
function file(path: string, at: number): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, 'x');
  utimesSync(path, at, at);
}

describe('isBuildCurrent (bin/gateway.js runs the build only then)', () => {
  it('is false without a build, true when every source is older, false once any source changes', () => {
    root = mkdtempSync(join(tmpdir(), 'gateway-fresh-'));
    const target = join(root, 'out/main/cli.js');
    file(join(root, 'server/db/deep/a.ts'), 1_000);
    file(join(root, 'migrations/m.ts'), 1_000);
    expect(isBuildCurrent(root, [target])).toBe(false);
    file(target, 2_000);
    // Folders' own times count too (a deleted file leaves only that trace).
    for (const dir of ['server/db/deep', 'server/db', 'server', 'migrations'])
      utimesSync(join(root, dir), 1_000, 1_000);
    expect(isBuildCurrent(root, [target])).toBe(true);
    file(join(root, 'server/db/deep/a.ts'), 3_000);
    expect(isBuildCurrent(root, [target])).toBe(false);
    file(target, 4_000);
    file(join(root, 'migrations/new.ts'), 5_000);
    expect(isBuildCurrent(root, [target])).toBe(false);
    // Several outputs: all must exist, and the oldest of them decides.
    const second = join(root, 'out/renderer/index.html');
    utimesSync(join(root, 'migrations'), 5_000, 5_000);
    file(target, 6_000);
    expect(isBuildCurrent(root, [target, second])).toBe(false);
    file(second, 4_500);
    expect(isBuildCurrent(root, [target, second])).toBe(false);
    file(second, 6_000);
    expect(isBuildCurrent(root, [target, second])).toBe(true);
  });
});

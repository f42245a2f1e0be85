import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { directoryBytes, growthText, type GrowthReport } from '../../bench/growth';
import type { RunFigures } from '../../bench/load';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const figures = (over: Partial<RunFigures> = {}): RunFigures => ({
  generator: 'wrk',
  generatorCpu: 40,
  rps: 21000,
  p50: 2,
  p99: 6.04,
  ok2xx: 1,
  non2xx: 0,
  errors: 0,
  cutOff: 0,
  statusCodes: {},
  ...over,
});

describe('growth mode', () => {
  it('counts every file under the data folder, nested ones included', () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-growth-'));
    writeFileSync(join(dir, 'gateway.db'), Buffer.alloc(4096));
    writeFileSync(join(dir, 'gateway.db-wal'), Buffer.alloc(1000));
    mkdirSync(join(dir, 'logs'));
    writeFileSync(join(dir, 'logs', 'gateway.log'), 'x'.repeat(24));
    expect(directoryBytes(dir)).toBe(4096 + 1000 + 24);
  });

  it('prints one row per phase, marks instrument-bound phases and the GET latencies', () => {
    const report: GrowthReport = {
      settings: { phases: 2, phaseSeconds: 30, getSeconds: 10, connections: 50 },
      phases: [
        {
          phase: 1,
          load: figures(),
          instrumentBound: false,
          stored: 600_000,
          queued: 590_000,
          inventory: 9000,
          databaseBytes: 400 * 1024 * 1024,
          rssBytes: 150 * 1024 * 1024,
        },
        {
          phase: 2,
          load: figures({ generatorCpu: 95 }),
          instrumentBound: true,
          stored: 1_200_000,
          queued: 1_180_000,
          inventory: 18_000,
          databaseBytes: 800 * 1024 * 1024,
          rssBytes: 160 * 1024 * 1024,
        },
      ],
      gets: [{ label: 'GET inventory ?epc=X', load: figures({ rps: 300, p50: 2.8, p99: 1366 }) }],
    };
    const text = growthText(report);
    expect(text).toMatch(/^\s+1\s+21000\s+6\.0\s+40\s+600000\s+590000\s+9000\s+400\s+150$/m);
    expect(text).toMatch(/^\s+2\s+21000\s+6\.0\s+95 BOUND\s+1200000\s+1180000\s+18000\s+800\s+160$/m);
    expect(text).toContain('GET inventory ?epc=X: 300 req/s, p50 2.8 ms, p99 1366.0 ms');
  });
});

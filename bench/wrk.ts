import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESULT_MARKER, wrkScript, type WrkRequestSpec } from './wrk-script';

/** What the Lua `done()` prints (see wrk-script.ts). */
export interface WrkResult {
  requests: number;
  durationUs: number;
  sent: number;
  statuses: Record<string, number>;
  errors: { connect: number; read: number; write: number; timeout: number };
  latencyUs: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** wrk's own CPU time (all threads) over its life; -1 when /proc was not readable. */
  cpuMs: number;
}

const isCount = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** The result line of a wrk run's stdout; throws with the output when it is missing or malformed. */
export function parseWrkOutput(stdout: string): WrkResult {
  const line = stdout.split('\n').find((l) => l.startsWith(RESULT_MARKER));
  if (!line) throw new Error(`wrk printed no result line:\n${stdout}`);
  let parsed: WrkResult;
  try {
    parsed = JSON.parse(line.slice(RESULT_MARKER.length)) as WrkResult;
  } catch {
    throw new Error(`wrk result line is not JSON: ${line}`);
  }
  const numbers = [
    parsed.requests,
    parsed.durationUs,
    parsed.sent,
    ...Object.values(parsed.statuses ?? {}),
    ...Object.values(parsed.errors ?? {}),
    ...Object.values(parsed.latencyUs ?? {}),
  ];
  if (!parsed.statuses || !parsed.errors || !parsed.latencyUs || !numbers.every(isCount) || parsed.durationUs <= 0)
    throw new Error(`wrk result line is incomplete: ${line}`);
  return parsed;
}

/** Where the tools are; null when absent. Looked up once. */
function which(tool: string): string | null {
  const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}
export const WRK = process.env.BENCH_NO_WRK === '1' ? null : which('wrk');
const TASKSET = which('taskset');

/**
 * Core pinning: the server (and its database) on core 0, the load generator on core 1, so neither
 * steals the other's time. Only with taskset and at least two cores; otherwise nothing is pinned.
 */
export const PINNING = TASKSET !== null && cpus().length >= 2 ? { server: '0', generator: '1' } : null;

/** The command line with `taskset -c <cpus>` in front when pinning is possible. */
export function pinned(role: 'server' | 'generator', command: string, args: string[]): [string, string[]] {
  if (!PINNING || !TASKSET) return [command, args];
  return [TASKSET, ['-c', PINNING[role], command, ...args]];
}

/**
 * Pins a running process (all its threads) and its current children to a role's core: a database
 * server started elsewhere (PostgreSQL's postmaster and its auxiliary processes; backends it
 * forks later inherit the postmaster's affinity), or this process.
 */
export function pinRunning(role: 'server' | 'generator', pid: number): void {
  if (!PINNING || !TASKSET) return;
  const children = readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
    } catch {
      return false;
    }
  });
  for (const target of [String(pid), ...children])
    spawnSync(TASKSET, ['-a', '-p', '-c', PINNING[role], target], { stdio: 'ignore' });
}

export interface WrkRun {
  result: WrkResult;
  wallMs: number;
}

/**
 * One wrk run of `seconds` against `origin` (scheme://host:port), with a script written into a
 * fresh temp folder and removed afterwards. One thread: pinned to one core, more threads would
 * only take turns on it.
 */
/** Per pool size, where the next run starts in it (see `WrkRequestSpec.firstSerial`). */
const nextSerial = new Map<number, number>();

export async function runWrk(
  origin: string,
  spec: Omit<WrkRequestSpec, 'threads'>,
  seconds: number,
  connections: number,
): Promise<WrkRun> {
  if (!WRK) throw new Error('wrk is not installed');
  const threads = 1;
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-wrk-'));
  const script = join(dir, 'load.lua');
  const pool = Math.max(1, Math.floor(spec.tagPool ?? 1));
  const firstSerial = nextSerial.get(pool) ?? 0;
  writeFileSync(script, wrkScript({ ...spec, threads, firstSerial }));
  const args = [
    `-t${threads}`,
    `-c${Math.max(threads, connections)}`,
    `-d${Math.max(1, Math.round(seconds))}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    `${origin}${spec.path}`,
  ];
  const [command, commandArgs] = pinned('generator', WRK, args);
  const started = performance.now();
  try {
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.once('error', reject);
        child.once('close', (exitCode) => resolve({ code: exitCode, stdout: out, stderr: err }));
      },
    );
    if (code !== 0) throw new Error(`wrk exited with ${code}:\n${stdout}\n${stderr}`);
    const result = parseWrkOutput(stdout);
    // `readsPerBody` reads per body, `threads` serials apart: past every serial this run can have sent.
    const readsPerBody = Math.max(1, Math.floor(spec.readsPerBody ?? 2));
    nextSerial.set(pool, (firstSerial + readsPerBody * threads * result.sent) % pool);
    return { result, wallMs: performance.now() - started };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

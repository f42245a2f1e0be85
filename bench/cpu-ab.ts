/**
 * CPU per request of two or more builds of the gateway, alternated on the server's core:
 * `node --import tsx bench/cpu-ab.ts <checkout> <checkout> …` (each a built checkout, `npm run
 * build`; `.` is this one; `checkout::--a-node-flag,--another` runs that build under node flags).
 * Throughput on a shared two-core machine moves with whatever else runs; the CPU time the gateway
 * spends per request moves much less, so this is the figure to compare builds by. Two identical
 * builds still differ by several per cent on a busy machine: compare medians of many rounds.
 *
 * Each build runs as its own gateway (a fresh data dir, configured as `npm run bench` configures
 * it), all pinned to the server's core; wrk loads one of them at a time from the other core. A
 * round runs every case on every build, in ABBA order across rounds so that neither build always
 * goes first. A measurement is the gateway's CPU (utime + stime from /proc: the whole process, and
 * its main thread alone) from the start of the load until an async route's queue has drained, so
 * the worker's share of each request is counted, divided by the requests answered.
 *
 * AB_CASES (asyncOpen,syncTags; any POST case of cases.ts on the shared gateway, or a batched one),
 * AB_ROUNDS (8),
 * AB_SECONDS (3 per run), AB_CONNECTIONS (50).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { caseTarget, CASES, needsOwnGateway, type CaseDef } from './cases';
import { startGateway, type Child } from './children';
import { AdminClient, configureGateway, type GatewaySetup } from './gateway-setup';
import { load } from './load';
import { processMs } from './machine';

interface Build {
  label: string;
  gateway: Child;
  admin: AdminClient;
  setup: GatewaySetup;
  dataDir: string;
}

interface Sample {
  mainUs: number;
  totalUs: number;
  rps: number;
  /** wrk's p99 latency, ms. */
  p99: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

async function measure(build: Build, def: CaseDef, seconds: number, connections: number): Promise<Sample> {
  const pid = build.gateway.process.pid;
  if (pid === undefined) throw new Error('gateway has no pid');
  // A process's main thread is the task whose id is the process id.
  const main = `${pid}/task/${pid}`;
  const total0 = processMs(pid);
  const main0 = processMs(main);
  const figures = await load(caseTarget(def, { http: build.gateway.base }, build.setup), seconds, connections);
  if (def.async) await build.admin.waitForDrain();
  const answered = figures.ok2xx;
  if (answered === 0 || figures.non2xx > 0)
    throw new Error(`${build.label} ${def.key}: ${JSON.stringify(figures.statusCodes)}`);
  return {
    mainUs: (1000 * (processMs(main) - main0)) / answered,
    totalUs: (1000 * (processMs(pid) - total0)) / answered,
    rps: figures.rps,
    p99: figures.p99,
  };
}

async function main(): Promise<void> {
  const arms = process.argv.slice(2).map((arg) => {
    const [path = '.', flags = ''] = arg.split('::');
    return { arg, root: resolve(path), flags: flags.split(',').filter(Boolean) };
  });
  if (arms.length < 2) throw new Error('usage: bench/cpu-ab.ts <checkout> <checkout> [...]');
  const keys = (process.env.AB_CASES ?? 'asyncOpen,syncTags').split(',');
  const defs = keys.map((key) => {
    const def = CASES.find((c) => c.key === key);
    // A batched case (`readsPerBody`) has a gateway of its own in the bench only for its bytes per
    // read at rest; here every build is a gateway of its own anyway.
    const ownSettings = def && needsOwnGateway({ ...def, readsPerBody: undefined });
    if (!def || def.method !== 'POST' || def.transport === 'mqtt' || ownSettings)
      throw new Error(`AB_CASES: ${key} is not a POST case on the shared gateway`);
    return def;
  });
  const rounds = Number(process.env.AB_ROUNDS ?? 8);
  const seconds = Number(process.env.AB_SECONDS ?? 3);
  const connections = Number(process.env.AB_CONNECTIONS ?? 50);

  const builds: Build[] = [];
  try {
    for (const [i, { arg, root, flags }] of arms.entries()) {
      const dataDir = mkdtempSync(join(tmpdir(), 'gateway-cpu-ab-'));
      const gateway = await startGateway(dataDir, false, undefined, root, flags);
      const admin = new AdminClient(gateway.base);
      await admin.login();
      const setup = await configureGateway(admin);
      builds.push({ label: `${String.fromCharCode(65 + i)} ${arg}`, gateway, admin, setup, dataDir });
    }
    // Warm-up: every EPC of the repeated pool known, the JIT settled.
    for (const build of builds) for (const def of defs) await measure(build, def, 2, connections);

    const samples = new Map<string, Sample[]>();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const def of defs)
        for (const build of order) {
          const sample = await measure(build, def, seconds, connections);
          const key = `${def.key}\t${build.label}`;
          samples.set(key, [...(samples.get(key) ?? []), sample]);
          process.stdout.write(
            `round ${round + 1} ${def.key} ${build.label}: main ${sample.mainUs.toFixed(1)} µs, ` +
              `process ${sample.totalUs.toFixed(1)} µs, ${Math.round(sample.rps)} req/s, p99 ${sample.p99.toFixed(1)} ms\n`,
          );
        }
    }
    process.stdout.write(
      '\nmedians (µs of gateway CPU per request; req/s and p99 ms during the load)\ncase\tbuild\tmain\tprocess\treq/s\tp99\n',
    );
    for (const [key, list] of samples)
      process.stdout.write(
        `${key}\t${median(list.map((s) => s.mainUs)).toFixed(1)}\t${median(list.map((s) => s.totalUs)).toFixed(1)}\t` +
          `${Math.round(median(list.map((s) => s.rps)))}\t${median(list.map((s) => s.p99)).toFixed(1)}\n`,
      );
  } finally {
    for (const build of builds) {
      await build.gateway.stop();
      rmSync(build.dataDir, { recursive: true, force: true });
    }
  }
}

await main();

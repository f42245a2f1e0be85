/**
 * `npm run bench`: the bare Koa baseline, then the gateway, each in a child process pinned to
 * core 0, loaded by wrk on core 1 (autocannon in this process when wrk is missing: instrument-bound)
 * at the same settings; the MQTT case by MQTT publishers on core 1 (mqtt-load.ts), judged against
 * the HTTP async case; then the sustained case on a gateway with the default queue cap.
 * `BENCH_GROWTH=1` runs the growth curve instead (see growth.ts), `BENCH_LARGE=1` the large
 * bodies (large-run.ts). Prints a table of medians, checks that every
 * 2xx became a stored event, judges the targets and writes bench/results/<timestamp>.json
 * and latest.json. A script, not a test: a missed target fails nothing.
 *
 * The baseline is measured `repeats` times first, then once more just before each gateway case
 * and once after the last: each case is compared with the baseline around it (see `Reference`).
 * The baseline server idles while the gateway is loaded, so keeping it up costs nothing.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBuildCurrent } from '../scripts/build-freshness.js';
import { createDatabase, postgresBinDir, startPostgresCluster } from '../test/helpers/postgres-cluster';
import { baselineRun, CASES, gatewayCase, needsOwnGateway, type CaseDef } from './cases';
import { PROFILE_DIR, ROOT, sqlProfileFile, startBaseline, startGateway, type Child } from './children';
import type { SqlProfileTotals } from '../server/db/sql-profile';
import { AdminClient, configureGateway, type GatewaySetup } from './gateway-setup';
import { growthRun, growthText, type GrowthSettings } from './growth';
import { largeBodiesMain } from './large-run';
import { medianRun } from './load';
import { sqlProfileText, summarize, type Profile } from './profile-summary';
import { sustainedRun, sustainedText, type SustainedReport } from './sustained';
import { deliveryRun, deliveryText, type DeliveryReport } from './delivery';
import { epcisHeader, epcisRun, epcisText, type EpcisDatabase, type EpcisReport, type EpcisSettings } from './epcis';
import { diskUse } from './disk-use';
import { pinRunning } from './wrk';
import {
  durabilityText,
  header,
  readsText,
  instrumentBound,
  judge,
  noiseNote,
  runsDetail,
  table,
  targetsText,
  writeResults,
  type BenchSettings,
  type CaseReport,
  type Reference,
  type RunRecord,
} from './report';

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};

const connections = Math.max(1, positive('BENCH_CONNECTIONS', 50));
const settings: BenchSettings = {
  seconds: positive('BENCH_DURATION', 10),
  warmupSeconds: positive('BENCH_WARMUP', 3),
  connections,
  repeats: Math.max(1, positive('BENCH_REPEATS', 3)),
  profile: process.env.BENCH_PROFILE === '1',
  // The MQTT case (mqttOpen): as many publishers as HTTP connections, each with a window of
  // messages in flight (MQTT acknowledges by packet id, so a connection need not wait per message).
  mqttPublishers: Math.max(1, positive('BENCH_MQTT_PUBLISHERS', connections)),
  mqttWindow: Math.max(1, positive('BENCH_MQTT_WINDOW', 64)),
};

// BENCH_CASES=asyncOpen,mqttOpen runs a subset (handy with BENCH_PROFILE=1); the baseline always runs.
const selected = process.env.BENCH_CASES?.split(',')
  .map((key) => key.trim())
  .filter(Boolean);
const cases = selected ? CASES.filter((c) => selected.includes(c.key)) : CASES;
// The async noauth case once more with the gateway on PostgreSQL (a throwaway cluster, as the
// tests start one), when the server binaries are installed: key `asyncOpenPostgres`.
const POSTGRES_KEY = 'asyncOpenPostgres';
const postgresCase = (!selected || selected.includes(POSTGRES_KEY)) && postgresBinDir() !== null;

// 0 skips the sustained case; 600 for a long run.
const sustainedSeconds = positive('BENCH_SUSTAINED_SECONDS', 60);
const runSustained = sustainedSeconds > 0 && (!selected || selected.includes('sustained'));

// The delivery case (sync UHFTagRead to one local receiver); 0 skips it.
const deliverySeconds = positive('BENCH_DELIVERY_SECONDS', 20);
const runDelivery = deliverySeconds > 0 && (!selected || selected.includes('delivery'));

// The EPCIS repository case (issue 36), opt-in (it stores a million events): `BENCH_CASES=epcisQuery`
// on SQLite, `epcisQueryPostgres` on a throwaway PostgreSQL cluster; selected alone, without the baseline.
const EPCIS_KEYS: Record<string, EpcisDatabase> = { epcisQuery: 'sqlite', epcisQueryPostgres: 'postgres' };
const epcisDatabases = Object.entries(EPCIS_KEYS)
  .filter(([key]) => selected?.includes(key))
  .map(([, database]) => database);
const epcisSettings: EpcisSettings = {
  events: Math.max(1, positive('BENCH_EPCIS_EVENTS', 1_000_000)),
  connections: 20,
  seconds: settings.seconds,
  warmupSeconds: settings.warmupSeconds,
  repeats: settings.repeats,
};
const epcisOnly = selected !== undefined && selected.every((key) => key in EPCIS_KEYS);

const growth = process.env.BENCH_GROWTH === '1';
const growthSettings: GrowthSettings = {
  phases: Math.max(1, positive('BENCH_GROWTH_PHASES', 10)),
  phaseSeconds: Math.max(1, positive('BENCH_GROWTH_SECONDS', 30)),
  getSeconds: Math.max(1, positive('BENCH_GROWTH_GET_SECONDS', 10)),
  connections: settings.connections,
};

const children = new Set<Child>();
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** The profiled gateways' pids and what each ran, to find their profiles once they have exited. */
const profiled: { pid: number; what: string; dataDir: string }[] = [];
const noteProfiled = (gateway: Child, what: string, dataDir: string) => {
  if (settings.profile && gateway.process.pid !== undefined) profiled.push({ pid: gateway.process.pid, what, dataDir });
};

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

/** Cases on the gateway, each bracketed by baseline runs; returns baseline + gateway reports. */
async function measure(baseline: Child): Promise<CaseReport[]> {
  const baseRuns: RunRecord[] = [];
  for (let i = 1; i <= settings.repeats; i++) {
    log(`baseline run ${i}/${settings.repeats}`);
    baseRuns.push(await baselineRun(baseline.base, baseline.process.pid, settings));
  }
  const median = medianRun(baseRuns);
  const base: CaseReport = {
    key: 'baseline',
    label: 'baseline Koa',
    async: false,
    runs: baseRuns,
    median,
    reference: {
      instrumentBound: instrumentBound(median),
      rps: median.rps,
      p99: median.p99,
      around: baseRuns.map((r) => r.rps),
    },
    ratio: 1,
  };

  const reports: CaseReport[] = [];
  const brackets: RunRecord[] = [];
  const bracket = async () => {
    log('baseline (bracketing run)');
    brackets.push(await baselineRun(baseline.base, baseline.process.pid, settings));
  };
  const shared = cases.filter((def) => !needsOwnGateway(def));
  if (shared.length > 0)
    await withGateway({ profile: settings.profile }, async ({ gateway, admin, setup, dataDir }) => {
      noteProfiled(gateway, shared.map((def) => def.key).join(', '), dataDir);
      for (const def of shared) {
        await bracket();
        reports.push(
          await gatewayCase(def, admin, { bases: gateway.bases, setup, settings, serverPid: gateway.process.pid }),
        );
      }
    });
  // Cases with a scheme or settings of their own (see CaseDef), each on its own gateway.
  for (const def of cases.filter(needsOwnGateway)) {
    await bracket();
    reports.push(await onOwnGateway(def));
  }
  if (postgresCase) {
    await bracket();
    reports.push(await onPostgres());
  }
  await bracket();
  reports.forEach((report, i) => {
    const around = brackets.slice(i, i + 2);
    const reference: Reference = {
      instrumentBound: around.some(instrumentBound),
      rps: mean(around.map((r) => r.rps)),
      p99: mean(around.map((r) => r.p99)),
      around: around.map((r) => r.rps),
    };
    report.reference = reference;
    report.ratio = report.median.rps / reference.rps;
  });
  return [base, ...reports];
}

async function onOwnGateway(def: CaseDef): Promise<CaseReport> {
  // Profiled too (BENCH_PROFILE=1), e.g. BENCH_CASES=mqttOpen to see where the broker path spends its time.
  return withGateway(
    { profile: settings.profile, settings: def.gatewaySettings },
    async ({ gateway, admin, setup, dataDir }) => {
      noteProfiled(gateway, def.key, dataDir);
      const report = await gatewayCase(def, admin, {
        bases: gateway.bases,
        setup,
        settings,
        serverPid: gateway.process.pid,
      });
      // The case's reads were all this gateway stored: its database's bytes are theirs.
      if (report.reads) report.reads.disk = await diskUse(join(dataDir, 'gateway.db'));
      return report;
    },
  );
}

/**
 * A `gateway serve` child on a fresh data folder (on PostgreSQL with `databaseUrl`), logged in and
 * configured with the bench routes, for `use`; stopped and its folder removed afterwards.
 */
async function withGateway<T>(
  options: { profile: boolean; databaseUrl?: string; defaultQueueCap?: boolean; settings?: Record<string, unknown> },
  use: (running: { gateway: Child; admin: AdminClient; setup: GatewaySetup; dataDir: string }) => Promise<T>,
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const gateway = await startGateway(dataDir, options.profile, options.databaseUrl);
  children.add(gateway);
  try {
    const admin = new AdminClient(gateway.base);
    await admin.login();
    const setup = await configureGateway(admin, {
      raiseQueueCap: !options.defaultQueueCap,
      settings: options.settings,
    });
    return await use({ gateway, admin, setup, dataDir });
  } catch (error) {
    log(`gateway stderr (last lines):\n${gateway.stderrTail()}`);
    throw error;
  } finally {
    await gateway.stop();
    children.delete(gateway);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The async noauth case against a gateway on a fresh PostgreSQL cluster. */
async function onPostgres(): Promise<CaseReport> {
  const def = CASES.find((c) => c.key === 'asyncOpen');
  if (!def) throw new Error('the async noauth case is missing');
  log('starting a throwaway PostgreSQL cluster');
  const cluster = await startPostgresCluster();
  // The database is part of the server under test: on the server's core (its later backends inherit it).
  if (cluster.pid) pinRunning('server', cluster.pid);
  try {
    const databaseUrl = await createDatabase(cluster.url, 'gateway_bench');
    const report = await withGateway({ profile: false, databaseUrl }, ({ gateway, admin, setup }) =>
      gatewayCase(def, admin, {
        bases: gateway.bases,
        setup,
        settings,
        serverPid: gateway.process.pid,
        databasePid: cluster.pid,
      }),
    );
    return { ...report, key: POSTGRES_KEY, label: `${def.label} (PostgreSQL)` };
  } finally {
    await cluster.stop();
  }
}

/** The sustained case on a fresh gateway with the default maxQueueDepth. */
function sustained(): Promise<SustainedReport> {
  log(`sustained case: ${sustainedSeconds} s`);
  return withGateway({ profile: false, defaultQueueCap: true }, ({ gateway, admin, setup }) =>
    sustainedRun(
      admin,
      {
        bases: gateway.bases,
        setup,
        serverPid: gateway.process.pid,
        seconds: sustainedSeconds,
        connections: settings.connections,
      },
      log,
    ),
  );
}

/** The delivery case on a fresh gateway. */
function delivery(): Promise<DeliveryReport> {
  return withGateway({ profile: false }, ({ gateway, admin }) =>
    deliveryRun(
      admin,
      {
        bases: gateway.bases,
        serverPid: gateway.process.pid,
        seconds: deliverySeconds,
        connections: settings.connections,
      },
      log,
    ),
  );
}

/** The EPCIS case on a fresh gateway, on SQLite or on a fresh PostgreSQL cluster. */
async function epcis(database: EpcisDatabase): Promise<EpcisReport> {
  const run = (databaseUrl?: string, databasePid?: number) =>
    withGateway({ profile: settings.profile, databaseUrl }, ({ gateway, admin, dataDir }) => {
      noteProfiled(gateway, `EPCIS case (${database})`, dataDir);
      return epcisRun(
        admin,
        {
          ...epcisSettings,
          base: gateway.bases.http ?? gateway.base,
          dataDir,
          database,
          databaseUrl,
          serverPid: gateway.process.pid,
          databasePid,
        },
        log,
      );
    });
  if (database === 'sqlite') return run();
  log('starting a throwaway PostgreSQL cluster');
  const cluster = await startPostgresCluster();
  // The database is part of the server under test: on the server's core (its later backends inherit it).
  if (cluster.pid) pinRunning('server', cluster.pid);
  try {
    return await run(await createDatabase(cluster.url, 'gateway_epcis_bench'), cluster.pid);
  } finally {
    await cluster.stop();
  }
}

async function growthMain(): Promise<void> {
  process.stdout.write(`${header(settings, isBuildCurrent(ROOT, [join(ROOT, 'out/main/cli.js')]), 'growth')}\n\n`);
  const report = await withGateway({ profile: false }, ({ gateway, admin, setup, dataDir }) =>
    growthRun(
      admin,
      { bases: gateway.bases, setup, serverPid: gateway.process.pid, dataDir, settings: growthSettings },
      log,
    ),
  );
  process.stdout.write(`${growthText(report)}\n\n`);
  const file = writeResults(join(ROOT, 'bench/results'), { mode: 'growth', settings, growth: report });
  process.stdout.write(`Results: ${file}\n`);
}

async function main(): Promise<void> {
  // This process (the autocannon fallback, and the admin calls) keeps off the server's core.
  pinRunning('generator', process.pid);
  if (growth) return growthMain();
  if (process.env.BENCH_LARGE === '1') return largeBodiesMain();
  if (epcisOnly) {
    const fromBuild = isBuildCurrent(ROOT, [join(ROOT, 'out/main/cli.js')]);
    process.stdout.write(`${epcisHeader(epcisSettings, fromBuild, settings.profile)}\n\n`);
    const reports: EpcisReport[] = [];
    for (const database of epcisDatabases) {
      const report = await epcis(database);
      process.stdout.write(`${epcisText(report)}\n\n`);
      reports.push(report);
    }
    const file = writeResults(join(ROOT, 'bench/results'), { mode: 'epcis', settings: epcisSettings, epcis: reports });
    process.stdout.write(`Results: ${file}\n`);
    printProfiles();
    return;
  }
  process.stdout.write(`${header(settings, isBuildCurrent(ROOT, [join(ROOT, 'out/main/cli.js')]))}\n\n`);
  const baseline = await startBaseline();
  children.add(baseline);
  let reports: CaseReport[];
  try {
    reports = await measure(baseline);
  } finally {
    await baseline.stop();
    children.delete(baseline);
  }
  const sustainedReport = runSustained ? await sustained() : null;
  const deliveryReport = runDelivery ? await delivery() : null;
  const epcisReports: EpcisReport[] = [];
  for (const database of epcisDatabases) epcisReports.push(await epcis(database));
  const targets = judge(reports);
  process.stdout.write(`${table(reports)}\n\nAll runs:\n${runsDetail(reports)}\n\n`);
  const reads = readsText(reports);
  if (reads) process.stdout.write(`${reads}\n\n`);
  process.stdout.write(
    `Stored events = 2xx answers (queue drained, counted via the admin events API):\n${durabilityText(reports)}\n\n`,
  );
  if (sustainedReport) process.stdout.write(`${sustainedText(sustainedReport)}\n\n`);
  if (deliveryReport) process.stdout.write(`${deliveryText(deliveryReport)}\n\n`);
  for (const report of epcisReports) process.stdout.write(`${epcisText(report)}\n\n`);
  process.stdout.write(`Targets:\n${targetsText(targets)}\n\n${noiseNote(reports)}\n`);
  const file = writeResults(join(ROOT, 'bench/results'), {
    mode: 'cases',
    settings,
    cases: reports,
    targets,
    sustained: sustainedReport,
    delivery: deliveryReport,
    epcis: epcisReports,
  });
  process.stdout.write(`Results: ${file}\n`);
  printProfiles();
}

/**
 * The summary of each profiled gateway's main-thread CPU profile, and its SQLite side
 * (BENCH_PROFILE=1).
 */
function printProfiles(): void {
  for (const { pid, what, dataDir } of profiled) {
    // V8 names the file CPU.<date>.<time>.<pid>.<thread>.<seq>; thread 0 is the main thread.
    const main = readdirSync(PROFILE_DIR).find((name) => name.includes(`.${pid}.0.`));
    if (main) {
      const file = join(PROFILE_DIR, main);
      const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
      process.stdout.write(`\nCPU profile of the gateway's main thread (${what}): ${file}\n${summarize(profile, 20)}`);
    }
    const sql = sqlProfileFile(dataDir);
    if (existsSync(sql)) {
      const totals = JSON.parse(readFileSync(sql, 'utf8')) as SqlProfileTotals;
      process.stdout.write(
        `\nSQLite side (${what}), each write timed as a trip of its own: ${sql}\n${sqlProfileText(totals)}\n`,
      );
    }
  }
}

const stopAll = () => Promise.all([...children].map((child) => child.stop()));
process.on('SIGINT', () => void stopAll().then(() => process.exit(130)));

try {
  await main();
} catch (error) {
  await stopAll();
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}

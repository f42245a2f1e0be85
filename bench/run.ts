/**
 * `npm run bench`: the bare Koa baseline, then the gateway, each in
 * a child process, loaded by autocannon from this process at the same settings. Prints a table of
 * medians, checks that every 2xx became a stored event, judges the targets and writes
 * bench/results/<timestamp>.json and latest.json. A script, not a test: no target fails a build.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROFILE_DIR, ROOT, startBaseline, startGateway, type Child } from './children';
import { AdminClient, configureGateway, ROUTES, type CommitStats, type GatewaySetup } from './gateway-setup';
import { load, medianRun, type LoadTarget } from './load';
import {
  durabilityText,
  header,
  judge,
  runsDetail,
  table,
  targetsText,
  writeResults,
  type BenchSettings,
  type CaseReport,
  type RunRecord,
} from './report';

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number`);
  return value;
};

const settings: BenchSettings = {
  seconds: positive('BENCH_DURATION', 10),
  warmupSeconds: positive('BENCH_WARMUP', 3),
  connections: Math.max(1, positive('BENCH_CONNECTIONS', 50)),
  repeats: Math.max(1, positive('BENCH_REPEATS', 3)),
  profile: process.env.BENCH_PROFILE === '1',
};

interface CaseDef {
  key: keyof typeof ROUTES;
  label: string;
  async: boolean;
  target(base: string, setup: GatewaySetup): LoadTarget;
}

const post = (route: string, authorization?: string) => (base: string) => ({
  url: `${base}/bench/${route}`,
  method: 'POST' as const,
  headers: authorization ? { authorization } : undefined,
});

const CASES: CaseDef[] = [
  { key: 'asyncOpen', label: 'async noauth', async: true, target: (base) => post(ROUTES.asyncOpen)(base) },
  {
    key: 'asyncToken',
    label: 'async access token',
    async: true,
    target: (base, s) => post(ROUTES.asyncToken, s.accessToken)(base),
  },
  { key: 'asyncBasic', label: 'async Basic', async: true, target: (base, s) => post(ROUTES.asyncBasic, s.basic)(base) },
  { key: 'syncTags', label: 'sync UHFTagRead', async: false, target: (base) => post(ROUTES.syncTags)(base) },
  { key: 'syncAll', label: 'sync AllData', async: false, target: (base) => post(ROUTES.syncAll)(base) },
  {
    key: 'inventory',
    label: 'GET inventory',
    async: false,
    target: (base) => ({ url: `${base}/bench/${ROUTES.inventory}?limit=100`, method: 'GET' }),
  },
];

// BENCH_CASES=asyncOpen,syncTags runs a subset (handy with BENCH_PROFILE=1); the baseline always runs.
const selected = process.env.BENCH_CASES?.split(',')
  .map((key) => key.trim())
  .filter(Boolean);
const cases = selected ? CASES.filter((c) => selected.includes(c.key)) : CASES;

const children = new Set<Child>();
const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function baselineCase(): Promise<CaseReport> {
  const child = await startBaseline();
  children.add(child);
  const target = post(ROUTES.asyncOpen)(child.base);
  const runs: RunRecord[] = [];
  try {
    for (let i = 1; i <= settings.repeats; i++) {
      log(`baseline run ${i}/${settings.repeats}`);
      const warmup =
        settings.warmupSeconds > 0 ? await load(target, settings.warmupSeconds, settings.connections) : null;
      const run = await load(target, settings.seconds, settings.connections);
      runs.push({ ...run, warmup2xx: warmup?.ok2xx ?? 0, warmupCutOff: warmup?.cutOff ?? 0 });
    }
  } finally {
    await child.stop();
    children.delete(child);
  }
  return { key: 'baseline', label: 'baseline Koa', async: false, runs, median: medianRun(runs), ratio: 1 };
}

const delta = (before: CommitStats, after: CommitStats): CommitStats => ({
  flushes: after.flushes - before.flushes,
  events: after.events - before.events,
  jobs: after.jobs - before.jobs,
});

async function gatewayCase(
  def: CaseDef,
  admin: AdminClient,
  setup: GatewaySetup,
  baselineRps: number,
): Promise<CaseReport> {
  const target = def.target(admin.base, setup);
  const runs: RunRecord[] = [];
  for (let i = 1; i <= settings.repeats; i++) {
    log(`${def.label} run ${i}/${settings.repeats}`);
    // Every run starts from an empty queue, so a backlog from the previous run is not measured twice.
    await admin.waitForDrain();
    const warmup = settings.warmupSeconds > 0 ? await load(target, settings.warmupSeconds, settings.connections) : null;
    const before = await admin.commitStats();
    const run = await load(target, settings.seconds, settings.connections);
    const commit = delta(before, await admin.commitStats());
    const drainMs = def.async ? await admin.waitForDrain() : undefined;
    runs.push({ ...run, warmup2xx: warmup?.ok2xx ?? 0, warmupCutOff: warmup?.cutOff ?? 0, commit, drainMs });
  }
  const median = medianRun(runs);
  const report: CaseReport = {
    key: def.key,
    label: def.label,
    async: def.async,
    runs,
    median,
    ratio: median.rps / baselineRps,
  };
  if (target.method === 'POST') {
    // Every 2xx (warm-ups included) promised a stored event, so none may be missing; requests cut
    // off at the end of a load (answer never read) may or may not have been stored; refusals none.
    await admin.waitForDrain();
    const expected = runs.reduce((sum, r) => sum + r.warmup2xx + r.ok2xx, 0);
    const cutOff = runs.reduce((sum, r) => sum + r.warmupCutOff + r.cutOff, 0);
    const byStatus = await admin.countEvents(ROUTES[def.key]);
    const stored = Object.values(byStatus).reduce((sum, n) => sum + n, 0);
    report.durability = { expected, cutOff, stored, byStatus, pass: stored >= expected && stored <= expected + cutOff };
  }
  return report;
}

async function gatewayCases(baselineRps: number): Promise<CaseReport[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const child = await startGateway(dataDir, settings.profile);
  children.add(child);
  const reports: CaseReport[] = [];
  try {
    const admin = new AdminClient(child.base);
    await admin.login();
    const setup = await configureGateway(admin);
    for (const def of cases) reports.push(await gatewayCase(def, admin, setup, baselineRps));
  } catch (error) {
    log(`gateway stderr (last lines):\n${child.stderrTail()}`);
    throw error;
  } finally {
    await child.stop();
    children.delete(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return reports;
}

async function main(): Promise<void> {
  const top = header(settings);
  process.stdout.write(`${top}\n\n`);
  const baseline = await baselineCase();
  const reports = [baseline, ...(await gatewayCases(baseline.median.rps))];
  const targets = judge(reports);
  process.stdout.write(`${table(reports)}\n\nAll runs:\n${runsDetail(reports)}\n\n`);
  process.stdout.write(
    `Stored events = 2xx answers (queue drained, counted via the admin events API):\n${durabilityText(reports)}\n\n`,
  );
  process.stdout.write(`Targets:\n${targetsText(targets)}\n\n`);
  const file = writeResults(join(ROOT, 'bench/results'), { settings, cases: reports, targets });
  process.stdout.write(`Results: ${file}\n`);
  if (settings.profile) process.stdout.write(`CPU profile of the gateway: ${PROFILE_DIR}\n`);
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

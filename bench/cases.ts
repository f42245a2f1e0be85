import { ROUTES, type AdminClient, type CommitStats, type GatewaySetup } from './gateway-setup';
import { load, medianRun, type LoadTarget } from './load';
import { meterCpu } from './machine';
import type { BenchSettings, CaseReport, RunRecord } from './report';

export interface CaseDef {
  key: keyof typeof ROUTES;
  label: string;
  async: boolean;
  target(base: string, setup: GatewaySetup): LoadTarget;
}

const post = (base: string, route: string, authorization?: string): LoadTarget => ({
  url: `${base}/bench/${route}`,
  method: 'POST',
  headers: authorization ? { authorization } : undefined,
});

export const CASES: CaseDef[] = [
  { key: 'asyncOpen', label: 'async noauth', async: true, target: (base) => post(base, ROUTES.asyncOpen) },
  {
    key: 'asyncToken',
    label: 'async access token',
    async: true,
    target: (base, s) => post(base, ROUTES.asyncToken, s.accessToken),
  },
  { key: 'asyncBasic', label: 'async Basic', async: true, target: (base, s) => post(base, ROUTES.asyncBasic, s.basic) },
  { key: 'syncTags', label: 'sync UHFTagRead', async: false, target: (base) => post(base, ROUTES.syncTags) },
  { key: 'syncAll', label: 'sync AllData', async: false, target: (base) => post(base, ROUTES.syncAll) },
  {
    key: 'inventory',
    label: 'GET inventory',
    async: false,
    target: (base) => ({ url: `${base}/bench/${ROUTES.inventory}?limit=100`, method: 'GET' }),
  },
];

/** The same POST the gateway's async noauth case gets, against the bare Koa server. */
export const baselineTarget = (base: string): LoadTarget => post(base, ROUTES.asyncOpen);

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** One warm-up + measured run of the baseline, with CPU shares. */
export async function baselineRun(base: string, pid: number | undefined, settings: BenchSettings): Promise<RunRecord> {
  const target = baselineTarget(base);
  const warmup = settings.warmupSeconds > 0 ? await load(target, settings.warmupSeconds, settings.connections) : null;
  const meter = meterCpu(pid);
  const run = await load(target, settings.seconds, settings.connections);
  return { ...run, cpu: meter(), warmup2xx: warmup?.ok2xx ?? 0, warmupCutOff: warmup?.cutOff ?? 0 };
}

const delta = (before: CommitStats, after: CommitStats): CommitStats => ({
  flushes: after.flushes - before.flushes,
  events: after.events - before.events,
  jobs: after.jobs - before.jobs,
});

/**
 * Runs one case `settings.repeats` times against the gateway and, for POST cases, checks that
 * the stored events match the answers.
 */
export async function gatewayCase(
  def: CaseDef,
  admin: AdminClient,
  context: { setup: GatewaySetup; settings: BenchSettings; serverPid: number | undefined; databasePid?: number },
): Promise<CaseReport> {
  const { settings } = context;
  const target = def.target(admin.base, context.setup);
  const runs: RunRecord[] = [];
  for (let i = 1; i <= settings.repeats; i++) {
    log(`${def.label} run ${i}/${settings.repeats}`);
    // Every run starts from an empty queue, so a backlog from the previous run is not measured twice.
    await admin.waitForDrain();
    const warmup = settings.warmupSeconds > 0 ? await load(target, settings.warmupSeconds, settings.connections) : null;
    const before = await admin.commitStats();
    const meter = meterCpu(context.serverPid, context.databasePid);
    const run = await load(target, settings.seconds, settings.connections);
    const cpu = meter();
    const commit = delta(before, await admin.commitStats());
    const drainMs = def.async ? await admin.waitForDrain() : undefined;
    runs.push({ ...run, cpu, warmup2xx: warmup?.ok2xx ?? 0, warmupCutOff: warmup?.cutOff ?? 0, commit, drainMs });
  }
  const report: CaseReport = {
    key: def.key,
    label: def.label,
    async: def.async,
    runs,
    median: medianRun(runs),
    // Filled in by the caller once the baseline run after this case has been measured.
    reference: null,
    ratio: null,
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

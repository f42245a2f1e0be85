import { DISTINCT_TAG_POOL, REPEATED_TAG_POOL } from './epc-pool';
import { ROUTES, type AdminClient, type CommitStats, type GatewaySetup } from './gateway-setup';
import { load, medianRun, type LoadTarget, type RunFigures } from './load';
import { meterCpu, type CpuShare } from './machine';
import type { BenchSettings, CaseReport, RunRecord } from './report';

/**
 * One benchmark case: a single entry in `CASES`. A case that names `scheme: 'https'` or
 * `gatewaySettings` runs on a gateway of its own started with those settings (PUT /settings
 * before the load), so it cannot change what the other cases measure.
 */
export interface CaseDef {
  key: string;
  /** The bench endpoint's route it loads (see `ROUTES`); its stored events are counted by route. */
  route: (typeof ROUTES)[keyof typeof ROUTES];
  label: string;
  async: boolean;
  method: 'POST' | 'GET';
  /** GET: the query string, without `?`. */
  query?: string;
  /** POST: serials cycled for the EPCs (see epc-pool.ts); 1 would be the same EPC every time. */
  tagPool?: number;
  /** The `Authorization` header, from the credentials the bench set up. */
  authorization?: (setup: GatewaySetup) => string;
  /** Which listener of the gateway to load; `http` unless given. */
  scheme?: 'http' | 'https';
  /** Gateway settings for this case's own gateway (e.g. `{ tlsMode, httpsPort }`). */
  gatewaySettings?: Record<string, unknown>;
}

/** The gateway's base URL per scheme (up to and including `/GWENDPOINTAPI`). */
export type Bases = Partial<Record<'http' | 'https', string>>;

/** Whether a case needs a gateway of its own (see `CaseDef`). */
export const needsOwnGateway = (def: CaseDef): boolean =>
  (def.scheme ?? 'http') !== 'http' || def.gatewaySettings !== undefined;

export function caseTarget(def: CaseDef, bases: Bases, setup: GatewaySetup): LoadTarget {
  const scheme = def.scheme ?? 'http';
  const base = bases[scheme];
  if (!base)
    throw new Error(`case ${def.key}: the gateway printed no ${scheme} listener ("listening on ${scheme}://…")`);
  return {
    url: `${base}/bench/${def.route}${def.query ? `?${def.query}` : ''}`,
    method: def.method,
    headers: def.authorization ? { authorization: def.authorization(setup) } : undefined,
    tagPool: def.method === 'POST' ? (def.tagPool ?? REPEATED_TAG_POOL) : undefined,
  };
}

const repeated = `${REPEATED_TAG_POOL} EPCs`;
const distinct = `${DISTINCT_TAG_POOL / 1_000_000}M EPCs`;

export const CASES: CaseDef[] = [
  { key: 'asyncOpen', route: ROUTES.asyncOpen, label: `async noauth, ${repeated}`, async: true, method: 'POST' },
  {
    key: 'asyncOpenDistinct',
    route: ROUTES.asyncOpenDistinct,
    label: `async noauth, ${distinct}`,
    async: true,
    method: 'POST',
    tagPool: DISTINCT_TAG_POOL,
  },
  {
    key: 'asyncToken',
    route: ROUTES.asyncToken,
    label: 'async access token',
    async: true,
    method: 'POST',
    authorization: (s) => s.accessToken,
  },
  {
    key: 'asyncBasic',
    route: ROUTES.asyncBasic,
    label: 'async Basic',
    async: true,
    method: 'POST',
    authorization: (s) => s.basic,
  },
  {
    // TLS costs CPU: the same load over the HTTPS listener (self-signed certificate; wrk does not verify).
    key: 'asyncOpenHttps',
    route: ROUTES.asyncOpen,
    label: `async noauth over HTTPS, ${repeated}`,
    async: true,
    method: 'POST',
    scheme: 'https',
  },
  { key: 'syncTags', route: ROUTES.syncTags, label: `sync UHFTagRead, ${repeated}`, async: false, method: 'POST' },
  {
    key: 'syncTagsDistinct',
    route: ROUTES.syncTagsDistinct,
    label: `sync UHFTagRead, ${distinct}`,
    async: false,
    method: 'POST',
    tagPool: DISTINCT_TAG_POOL,
  },
  { key: 'syncAll', route: ROUTES.syncAll, label: 'sync AllData', async: false, method: 'POST' },
  {
    key: 'inventory',
    route: ROUTES.inventory,
    label: 'GET inventory',
    async: false,
    method: 'GET',
    query: 'limit=100',
  },
];

/** The same POST the gateway's async noauth case gets, against the bare Koa server. */
export const baselineTarget = (base: string): LoadTarget => ({
  url: `${base}/bench/${ROUTES.asyncOpen}`,
  method: 'POST',
  tagPool: REPEATED_TAG_POOL,
});

/** One load with its CPU shares; the generator's own share from wrk, or this process's (autocannon). */
export async function meteredLoad(
  target: LoadTarget,
  seconds: number,
  connections: number,
  pids: { server: number | undefined; database?: number },
): Promise<RunFigures & { cpu: CpuShare }> {
  const meter = meterCpu(pids.server, pids.database);
  const run = await load(target, seconds, connections);
  const cpu = meter(run.generator === 'wrk' ? run.generatorCpu : undefined);
  return { ...run, generatorCpu: run.generator === 'wrk' ? run.generatorCpu : cpu.loadGenerator, cpu };
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** One warm-up + measured run of the baseline, with CPU shares. */
export async function baselineRun(base: string, pid: number | undefined, settings: BenchSettings): Promise<RunRecord> {
  const target = baselineTarget(base);
  const warmup = settings.warmupSeconds > 0 ? await load(target, settings.warmupSeconds, settings.connections) : null;
  const run = await meteredLoad(target, settings.seconds, settings.connections, { server: pid });
  return { ...run, warmup2xx: warmup?.ok2xx ?? 0, warmupCutOff: warmup?.cutOff ?? 0 };
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
  context: {
    bases: Bases;
    setup: GatewaySetup;
    settings: BenchSettings;
    serverPid: number | undefined;
    databasePid?: number;
  },
): Promise<CaseReport> {
  const { settings } = context;
  const target = caseTarget(def, context.bases, context.setup);
  const runs: RunRecord[] = [];
  for (let i = 1; i <= settings.repeats; i++) {
    log(`${def.label} run ${i}/${settings.repeats}`);
    // Every run starts from an empty queue, so a backlog from the previous run is not measured twice.
    await admin.waitForDrain();
    const warmup = settings.warmupSeconds > 0 ? await load(target, settings.warmupSeconds, settings.connections) : null;
    const before = await admin.commitStats();
    const run = await meteredLoad(target, settings.seconds, settings.connections, {
      server: context.serverPid,
      database: context.databasePid,
    });
    const commit = delta(before, await admin.commitStats());
    const drainMs = def.async ? await admin.waitForDrain() : undefined;
    runs.push({ ...run, warmup2xx: warmup?.ok2xx ?? 0, warmupCutOff: warmup?.cutOff ?? 0, commit, drainMs });
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
    const byStatus = await admin.countEvents(def.route);
    const stored = Object.values(byStatus).reduce((sum, n) => sum + n, 0);
    report.durability = { expected, cutOff, stored, byStatus, pass: stored >= expected && stored <= expected + cutOff };
  }
  return report;
}

import { BATCH_READS, BATCH_TAG_POOL, DISTINCT_TAG_POOL, REPEATED_TAG_POOL } from './epc-pool';
import { MQTT_TOPIC, ROUTES, type AdminClient, type CommitStats, type GatewaySetup } from './gateway-setup';
import { load, medianRun, type LoadTarget, type RunFigures } from './load';
import { meterCpu, type CpuShare } from './machine';
import { mqttLoad } from './mqtt-load';
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
  /**
   * `mqtt`: QoS 1 PUBLISHes to the route's topic (`MQTT_TOPIC`) from the MQTT publishers
   * (mqtt-load.ts) instead of HTTP requests from wrk; `http` unless given.
   */
  transport?: 'http' | 'mqtt';
  /**
   * POST: tag reads per body (2 unless given). A batched case reports reads per second and the
   * bytes per read at rest, so it runs on a gateway of its own whose database holds only its reads.
   */
  readsPerBody?: number;
}

/** The gateway's base URL per scheme (up to and including `/GWENDPOINTAPI`). */
export type Bases = Partial<Record<'http' | 'https', string>>;

/** Whether a case needs a gateway of its own (see `CaseDef`). */
export const needsOwnGateway = (def: CaseDef): boolean =>
  (def.scheme ?? 'http') !== 'http' || def.gatewaySettings !== undefined || def.readsPerBody !== undefined;

export function caseTarget(def: CaseDef, bases: Bases, setup: GatewaySetup): LoadTarget {
  if (def.transport === 'mqtt') throw new Error(`case ${def.key} publishes over MQTT: it has no HTTP target`);
  const scheme = def.scheme ?? 'http';
  const base = bases[scheme];
  if (!base)
    throw new Error(`case ${def.key}: the gateway printed no ${scheme} listener ("listening on ${scheme}://…")`);
  return {
    url: `${base}/bench/${def.route}${def.query ? `?${def.query}` : ''}`,
    method: def.method,
    headers: def.authorization ? { authorization: def.authorization(setup) } : undefined,
    tagPool: def.method === 'POST' ? (def.tagPool ?? REPEATED_TAG_POOL) : undefined,
    readsPerBody: def.readsPerBody,
  };
}

const repeated = `${REPEATED_TAG_POOL} EPCs`;
const distinct = `${DISTINCT_TAG_POOL / 1_000_000}M EPCs`;
const batched = `${BATCH_READS} distinct reads per POST`;

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
    // Issue 37: readers batch (Zebra's HTTP POST batching, Impinj's arrays), so reads per second
    // decides how many readers one gateway serves. Every read a new EPC: the costly case.
    key: 'asyncBatch',
    route: ROUTES.asyncBatch,
    label: `async UHFTagRead, ${batched}`,
    async: true,
    method: 'POST',
    tagPool: BATCH_TAG_POOL,
    readsPerBody: BATCH_READS,
  },
  {
    key: 'syncBatch',
    route: ROUTES.syncBatch,
    label: `sync UHFTagRead, ${batched}`,
    async: false,
    method: 'POST',
    tagPool: BATCH_TAG_POOL,
    readsPerBody: BATCH_READS,
  },
  {
    key: 'inventory',
    route: ROUTES.inventory,
    label: 'GET inventory',
    async: false,
    method: 'GET',
    query: 'limit=100',
  },
  {
    // The asyncOpen load over MQTT (issue 34): the same body to an async noauth UHFTagRead route,
    // one message per QoS 1 PUBLISH. On a gateway of its own with the broker on, so the HTTP
    // cases run without it; judged against asyncOpen (see judge in report.ts).
    key: 'mqttOpen',
    route: ROUTES.mqttOpen,
    label: `MQTT QoS 1 async noauth, ${repeated}`,
    async: true,
    method: 'POST',
    transport: 'mqtt',
    gatewaySettings: { mqttMode: 'on' },
  },
];

/** The same POST the gateway's async noauth case gets, against the bare Koa server. */
export const baselineTarget = (base: string): LoadTarget => ({
  url: `${base}/bench/${ROUTES.asyncOpen}`,
  method: 'POST',
  tagPool: REPEATED_TAG_POOL,
});

/** Loads a case for some seconds: wrk (or autocannon) over HTTP, or the MQTT publishers. */
export type Loader = (seconds: number) => Promise<RunFigures>;

type Pids = { server: number | undefined; database?: number };

/**
 * One load with its CPU shares; the generator's own share from a generator in its own process
 * (wrk, the MQTT publishers), or this process's (autocannon).
 */
export async function metered(loader: Loader, seconds: number, pids: Pids): Promise<RunFigures & { cpu: CpuShare }> {
  const meter = meterCpu(pids.server, pids.database);
  const run = await loader(seconds);
  const own = run.generator !== 'autocannon';
  const cpu = meter(own ? (run.accountedGeneratorCpu ?? run.generatorCpu) : undefined);
  return { ...run, generatorCpu: own ? run.generatorCpu : cpu.loadGenerator, cpu };
}

/** `metered` for an HTTP target. */
export function meteredLoad(
  target: LoadTarget,
  seconds: number,
  connections: number,
  pids: Pids,
): Promise<RunFigures & { cpu: CpuShare }> {
  return metered((s) => load(target, s, connections), seconds, pids);
}

/**
 * What loads a case: for MQTT, the broker's address from `/status` (the broker starts when the
 * settings turn it on, after the gateway printed its listening lines).
 */
async function caseLoader(
  def: CaseDef,
  admin: AdminClient,
  bases: Bases,
  setup: GatewaySetup,
  settings: BenchSettings,
): Promise<Loader> {
  if (def.transport === 'mqtt') {
    const url = await admin.mqttUrl();
    return (seconds) =>
      mqttLoad({
        url,
        topic: MQTT_TOPIC,
        seconds,
        publishers: settings.mqttPublishers,
        window: settings.mqttWindow,
        tagPool: def.tagPool ?? REPEATED_TAG_POOL,
      });
  }
  const target = caseTarget(def, bases, setup);
  return (seconds) => load(target, seconds, settings.connections);
}

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** Events processed since the gateway started (`/_metrics`), and when that was read. */
async function processedSoFar(admin: AdminClient): Promise<{ events: number; at: number }> {
  const metrics = await admin.metrics();
  return { events: metrics.gateway_events_processed_total ?? 0, at: performance.now() };
}

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
  const loader = await caseLoader(def, admin, context.bases, context.setup, settings);
  const runs: RunRecord[] = [];
  for (let i = 1; i <= settings.repeats; i++) {
    log(`${def.label} run ${i}/${settings.repeats}`);
    // Every run starts from an empty queue, so a backlog from the previous run is not measured twice.
    await admin.waitForDrain();
    const warmup = settings.warmupSeconds > 0 ? await loader(settings.warmupSeconds) : null;
    const before = await admin.commitStats();
    const processedBefore = await processedSoFar(admin);
    const run = await metered(loader, settings.seconds, {
      server: context.serverPid,
      database: context.databasePid,
    });
    const processedAfter = await processedSoFar(admin);
    const commit = delta(before, await admin.commitStats());
    const drainMs = def.async ? await admin.waitForDrain() : undefined;
    const processedPerSecond =
      (processedAfter.events - processedBefore.events) / ((processedAfter.at - processedBefore.at) / 1000);
    runs.push({
      ...run,
      warmup2xx: warmup?.ok2xx ?? 0,
      warmupCutOff: warmup?.cutOff ?? 0,
      commit,
      drainMs,
      processedPerSecond,
    });
  }
  const median = medianRun(runs);
  const report: CaseReport = {
    key: def.key,
    label: def.label,
    async: def.async,
    transport: def.transport ?? 'http',
    runs,
    median,
    reads:
      def.readsPerBody === undefined
        ? undefined
        : {
            perBody: def.readsPerBody,
            acknowledgedPerSecond:
              ((median.rps * median.ok2xx) / Math.max(1, median.ok2xx + median.non2xx)) * def.readsPerBody,
            processedPerSecond: (median.processedPerSecond ?? 0) * def.readsPerBody,
          },
    // Filled in by the caller once the baseline run after this case has been measured.
    reference: null,
    ratio: null,
  };
  if (def.method === 'POST') {
    // Every 2xx or PUBACK (warm-ups included) promised a stored event, so none may be missing;
    // requests cut off at the end of a load (answer never read) may or may not have been stored;
    // refusals none.
    await admin.waitForDrain();
    const expected = runs.reduce((sum, r) => sum + r.warmup2xx + r.ok2xx, 0);
    const cutOff = runs.reduce((sum, r) => sum + r.warmupCutOff + r.cutOff, 0);
    const byStatus = await admin.countEvents(def.route);
    const stored = Object.values(byStatus).reduce((sum, n) => sum + n, 0);
    report.durability = { expected, cutOff, stored, byStatus, pass: stored >= expected && stored <= expected + cutOff };
  }
  return report;
}

import type { Bases } from './cases';
import { caseTarget, meteredLoad, type CaseDef } from './cases';
import { ROUTES, type AdminClient, type GatewaySetup } from './gateway-setup';
import type { RunFigures } from './load';
import type { CpuShare } from './machine';
import { instrumentBound } from './report';
import { DISTINCT_TAG_POOL } from './epc-pool';

/** The sustained case: full-speed async UHFTagRead with distinct tags, on a gateway with the default queue cap. */
export const SUSTAINED_CASE: CaseDef = {
  key: 'sustained',
  route: ROUTES.sustained,
  label: 'sustained async noauth',
  async: true,
  method: 'POST',
  tagPool: DISTINCT_TAG_POOL,
};

export interface QueueSample {
  /** Seconds since the load started. */
  atSeconds: number;
  queueDepth: number;
  /** Events processed by the gateway since it started (all routes). */
  processed: number;
  /** Events stored on arrival since it started. */
  received: number;
}

export interface SustainedReport {
  seconds: number;
  connections: number;
  load: RunFigures & { cpu: CpuShare };
  instrumentBound: boolean;
  /** 2xx answers per second of load: events the gateway promised to keep. */
  acknowledgedPerSecond: number;
  /** Events the worker finished per second while the load ran. */
  processedPerSecond: number;
  refused503: number;
  samples: QueueSample[];
  /** From the end of the load until the queue was empty. */
  drainMs: number;
}

const SAMPLE_EVERY_MS = 5_000;

async function sample(admin: AdminClient, startedAt: number): Promise<QueueSample> {
  const m = await admin.metrics();
  return {
    atSeconds: Math.round((performance.now() - startedAt) / 100) / 10,
    queueDepth: m.gateway_queue_depth ?? NaN,
    processed: m.gateway_events_processed_total ?? 0,
    received: m.gateway_events_received_total ?? 0,
  };
}

/**
 * Offers load at full speed for `seconds`, sampling the queue every 5 s through `/_metrics`, then
 * times the drain. The default maxQueueDepth stays: intake faster than processing shows up as a
 * full queue and 503s, which is what this case is for.
 */
export async function sustainedRun(
  admin: AdminClient,
  context: { bases: Bases; setup: GatewaySetup; serverPid: number | undefined; seconds: number; connections: number },
  log: (message: string) => void,
): Promise<SustainedReport> {
  await admin.waitForDrain();
  const target = caseTarget(SUSTAINED_CASE, context.bases, context.setup);
  const startedAt = performance.now();
  const samples = [await sample(admin, startedAt)];
  let finished = false;
  const running = meteredLoad(target, context.seconds, context.connections, { server: context.serverPid }).finally(
    () => (finished = true),
  );
  while (!finished) {
    await Promise.race([running.catch(() => undefined), new Promise((r) => setTimeout(r, SAMPLE_EVERY_MS))]);
    if (finished) break;
    const s = await sample(admin, startedAt);
    samples.push(s);
    log(`sustained: ${s.atSeconds} s, queue ${s.queueDepth}, processed ${s.processed}`);
  }
  const figures = await running;
  const atEnd = await sample(admin, startedAt);
  samples.push(atEnd);
  const loadSeconds = Math.max(0.001, atEnd.atSeconds);
  const first = samples[0] ?? atEnd;
  log('sustained: load over, waiting for the queue to drain');
  const drainMs = await admin.waitForDrain(6 * 3_600_000);
  return {
    seconds: context.seconds,
    connections: context.connections,
    load: figures,
    instrumentBound: instrumentBound(figures),
    acknowledgedPerSecond: figures.ok2xx / loadSeconds,
    processedPerSecond: (atEnd.processed - first.processed) / loadSeconds,
    refused503: figures.statusCodes['503'] ?? 0,
    samples,
    drainMs,
  };
}

export function sustainedText(r: SustainedReport): string {
  const codes = Object.entries(r.load.statusCodes)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  return [
    `Sustained: ${r.seconds} s at full speed, ${r.connections} connections, default maxQueueDepth` +
      (r.instrumentBound ? ` — INSTRUMENT-BOUND (generator ${r.load.generatorCpu}% of its core)` : ''),
    `  offered ${r.load.rps.toFixed(0)} req/s (p99 ${r.load.p99.toFixed(1)} ms); answers ${codes || 'none'}; errors ${r.load.errors}`,
    `  events acknowledged/s ${r.acknowledgedPerSecond.toFixed(0)}, processed/s during the load ${r.processedPerSecond.toFixed(0)}, 503s ${r.refused503}`,
    `  queue depth: ${r.samples.map((s) => `${s.atSeconds}s ${s.queueDepth}`).join(', ')}`,
    `  drain after the load: ${(r.drainMs / 1000).toFixed(1)} s`,
    `  cpu % during the load: server ${r.load.cpu.server} (main ${r.load.cpu.serverMain}), load generator ${r.load.cpu.loadGenerator}, other ${r.load.cpu.other}`,
  ].join('\n');
}

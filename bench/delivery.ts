import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Bases } from './cases';
import { meteredLoad } from './cases';
import { DISTINCT_TAG_POOL } from './epc-pool';
import type { AdminClient } from './gateway-setup';
import type { RunFigures } from './load';
import type { CpuShare } from './machine';
import { instrumentBound } from './report';

/** The route of the delivery case (on the bench endpoint, which the case extends with it). */
export const DELIVERY_ROUTE = 'syncTagsDelivered';

export interface DeliveryReport {
  seconds: number;
  connections: number;
  load: RunFigures & { cpu: CpuShare };
  instrumentBound: boolean;
  /** Items that reached the receiver per second of load (one per counted tag read). */
  deliveredPerSecond: number;
  /** Items the gateway counted into the outbox during the load, per second. */
  queuedPerSecond: number;
  /** From the end of the load until the receiver had everything (the outbox catching up). */
  drainMs: number;
  /** Request received by the gateway → batch received by the receiver, per item, ms. */
  latency: { p50: number; p99: number; max: number };
  batches: number;
  itemsPerBatch: number;
  /** The backlog sampled every `BACKLOG_SAMPLE_MS` during the load: flat when delivery keeps pace. */
  backlog: { atEnd: number; max: number };
  /**
   * The same load on top of a standing backlog (built with the destination paused): what delivery
   * can do when it has more to send than comes in. Delivered per second above queued per second
   * means the backlog shrank while intake ran at full speed.
   */
  withBacklog: {
    seconds: number;
    startBacklog: number;
    endBacklog: number;
    /** How long the standing backlog lasted (the whole phase when it never emptied). */
    lastedSeconds: number;
    /** Items delivered per second while the backlog lasted: delivery's pace with more to send than comes in. */
    deliveredPerSecond: number;
    queuedPerSecond: number;
    itemsPerBatch: number;
  };
}

/** How often the backlog is sampled during the load. */
const BACKLOG_SAMPLE_MS = 5000;
/** The backlog phase: this long with the destination paused, then this long delivering. */
const BACKLOG_FILL_SECONDS = 20;
const BACKLOG_DELIVER_SECONDS = 20;
/** The standing backlog is gone once less than a default batch waits. */
const CAUGHT_UP_ITEMS = 100;

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN);

/**
 * A downstream system for the case: counts items and the delay of each from the gateway's receive
 * time (`receivedAt`, ms precision) to its arrival here. Runs in the bench process, which is
 * pinned off the server's core.
 */
class CountingReceiver {
  items = 0;
  batches = 0;
  delays: number[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const arrived = Date.now();
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: { receivedAt: string }[] };
        this.batches += 1;
        this.items += body.events.length;
        for (const event of body.events) this.delays.push(arrived - Date.parse(event.receivedAt));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/ingest`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The delivery case (issue "Store-and-forward"): sync UHFTagRead at full speed with distinct
 * EPCs on a route that delivers to one local receiver with the destination defaults (batches
 * of 100, 1 s wait). Reports items delivered per second during the load, the outbox's catch-up
 * after it, and end-to-end latency from request to receiver.
 */
export async function deliveryRun(
  admin: AdminClient,
  context: { bases: Bases; serverPid: number | undefined; seconds: number; connections: number },
  log: (message: string) => void,
): Promise<DeliveryReport> {
  const receiver = new CountingReceiver();
  const url = await receiver.start();
  try {
    const settings = { name: 'bench receiver', url };
    const destination = await admin.call<{ id: number }>('POST', '/destinations', settings);
    await admin.call('POST', '/endpoints', {
      name: 'Bench delivery',
      baseRoutePath: 'benchDelivery',
      routes: [
        {
          name: DELIVERY_ROUTE,
          eventType: 'UHFTagRead',
          requestType: 'HttpPost',
          authType: 'noauth',
          destinations: [destination.id],
        },
      ],
    });
    const base = context.bases.http;
    if (!base) throw new Error('delivery case: the gateway printed no http listener');
    const target = {
      url: `${base}/benchDelivery/${DELIVERY_ROUTE}`,
      method: 'POST' as const,
      tagPool: DISTINCT_TAG_POOL,
    };
    const loadFor = (seconds: number) =>
      meteredLoad(target, seconds, context.connections, { server: context.serverPid });
    const counted = async () => {
      const m = await admin.metrics();
      const backlog = m.gateway_destination_backlog ?? 0;
      return { backlog, queued: backlog + (m.gateway_destination_delivered_total ?? 0), received: receiver.items };
    };

    const before = await counted();
    log(`delivery: ${context.seconds} s of sync UHFTagRead to one receiver`);
    const samples: number[] = [];
    const sampler = setInterval(
      () =>
        void counted().then(
          (c) => samples.push(c.backlog),
          () => undefined,
        ),
      BACKLOG_SAMPLE_MS,
    );
    const figures = await loadFor(context.seconds).finally(() => clearInterval(sampler));
    const after = await counted();
    const deliveredDuringLoad = after.received - before.received;
    const drainMs = await drain(counted);
    const sorted = [...receiver.delays].sort((a, b) => a - b);
    const batches = receiver.batches;
    const items = receiver.items;

    log(
      `delivery: ${BACKLOG_FILL_SECONDS} s with the destination paused, then ${BACKLOG_DELIVER_SECONDS} s delivering`,
    );
    await admin.call('PUT', `/destinations/${destination.id}`, { ...settings, active: false });
    await loadFor(BACKLOG_FILL_SECONDS);
    const start = await counted();
    const startedAt = Date.now();
    const batchesBefore = receiver.batches;
    // Each second: while the backlog lasts, delivery runs at what it can do.
    let lasted = { ms: BACKLOG_DELIVER_SECONDS * 1000, received: NaN, batches: 0 };
    const watch = setInterval(
      () =>
        void counted().then(
          (c) => {
            if (Number.isNaN(lasted.received) && c.backlog < CAUGHT_UP_ITEMS)
              lasted = { ms: Date.now() - startedAt, received: c.received, batches: receiver.batches };
          },
          () => undefined,
        ),
      1000,
    );
    await admin.call('PUT', `/destinations/${destination.id}`, { ...settings, active: true });
    await loadFor(BACKLOG_DELIVER_SECONDS).finally(() => clearInterval(watch));
    const end = await counted();
    if (Number.isNaN(lasted.received)) lasted = { ...lasted, received: end.received, batches: receiver.batches };
    await drain(counted);

    return {
      seconds: context.seconds,
      connections: context.connections,
      load: figures,
      instrumentBound: instrumentBound(figures),
      deliveredPerSecond: deliveredDuringLoad / context.seconds,
      queuedPerSecond: (after.queued - before.queued) / context.seconds,
      drainMs,
      latency: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN },
      batches,
      itemsPerBatch: items / Math.max(1, batches),
      backlog: { atEnd: after.backlog, max: Math.max(after.backlog, ...samples) },
      withBacklog: {
        seconds: BACKLOG_DELIVER_SECONDS,
        startBacklog: start.backlog,
        endBacklog: end.backlog,
        lastedSeconds: lasted.ms / 1000,
        deliveredPerSecond: (lasted.received - start.received) / (lasted.ms / 1000),
        queuedPerSecond: (end.queued - start.queued) / BACKLOG_DELIVER_SECONDS,
        itemsPerBatch: (lasted.received - start.received) / Math.max(1, lasted.batches - batchesBefore),
      },
    };
  } finally {
    await receiver.close();
  }
}

/** Waits until the outbox is empty (the receiver has everything); answers how long that took. */
async function drain(counted: () => Promise<{ backlog: number }>): Promise<number> {
  const startedAt = Date.now();
  let { backlog } = await counted();
  while (backlog > 0) {
    if (Date.now() - startedAt > 600_000) throw new Error(`delivery: ${backlog} items still waiting after 10 min`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    ({ backlog } = await counted());
  }
  return Date.now() - startedAt;
}

export function deliveryText(r: DeliveryReport): string {
  return [
    `Delivery: ${r.seconds} s of sync UHFTagRead (distinct EPCs) to one local receiver, ${r.connections} connections` +
      (r.instrumentBound ? ` — INSTRUMENT-BOUND (generator ${r.load.generatorCpu}% of its core)` : ''),
    `  offered ${r.load.rps.toFixed(0)} req/s (p99 ${r.load.p99.toFixed(1)} ms); errors ${r.load.errors}`,
    `  items into the outbox/s ${r.queuedPerSecond.toFixed(0)}, delivered/s during the load ${r.deliveredPerSecond.toFixed(0)}` +
      ` (${(r.deliveredPerSecond / Math.max(1, r.queuedPerSecond)).toFixed(2)} ×)`,
    `  outbox caught up ${(r.drainMs / 1000).toFixed(1)} s after the load; ${r.batches} batches, ${r.itemsPerBatch.toFixed(1)} items each`,
    `  backlog during the load: ${r.backlog.atEnd} items at its end, at most ${r.backlog.max} (sampled every ${BACKLOG_SAMPLE_MS / 1000} s)`,
    `  with a standing backlog (${r.withBacklog.startBacklog} items, built ${BACKLOG_FILL_SECONDS} s with the destination paused), ${r.withBacklog.seconds} s of the same load:` +
      ` delivered/s ${r.withBacklog.deliveredPerSecond.toFixed(0)} while it lasted (${r.withBacklog.lastedSeconds.toFixed(0)} s)` +
      ` against ${r.withBacklog.queuedPerSecond.toFixed(0)} in, backlog ${r.withBacklog.endBacklog} at the end,` +
      ` ${r.withBacklog.itemsPerBatch.toFixed(1)} items per batch`,
    `  request → receiver latency per item: p50 ${r.latency.p50.toFixed(0)} ms, p99 ${r.latency.p99.toFixed(0)} ms, max ${r.latency.max.toFixed(0)} ms`,
    `  cpu % during the load: server ${r.load.cpu.server} (main ${r.load.cpu.serverMain}), load generator ${r.load.cpu.loadGenerator}, other ${r.load.cpu.other}`,
  ].join('\n');
}

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
}

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
    const destination = await admin.call<{ id: number }>('POST', '/destinations', { name: 'bench receiver', url });
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
    const before = await admin.metrics();
    log(`delivery: ${context.seconds} s of sync UHFTagRead to one receiver`);
    const figures = await meteredLoad(
      { url: `${base}/benchDelivery/${DELIVERY_ROUTE}`, method: 'POST', tagPool: DISTINCT_TAG_POOL },
      context.seconds,
      context.connections,
      { server: context.serverPid },
    );
    const deliveredDuringLoad = receiver.items;
    const after = await admin.metrics();
    const queued =
      (after.gateway_destination_backlog ?? 0) +
      (after.gateway_destination_delivered_total ?? 0) -
      ((before.gateway_destination_backlog ?? 0) + (before.gateway_destination_delivered_total ?? 0));
    const endedAt = Date.now();
    let backlog = after.gateway_destination_backlog ?? 0;
    while (backlog > 0) {
      if (Date.now() - endedAt > 600_000) throw new Error(`delivery: ${backlog} items still waiting after 10 min`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      backlog = (await admin.metrics()).gateway_destination_backlog ?? 0;
    }
    const drainMs = Date.now() - endedAt;
    const sorted = [...receiver.delays].sort((a, b) => a - b);
    return {
      seconds: context.seconds,
      connections: context.connections,
      load: figures,
      instrumentBound: instrumentBound(figures),
      deliveredPerSecond: deliveredDuringLoad / context.seconds,
      queuedPerSecond: queued / context.seconds,
      drainMs,
      latency: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN },
      batches: receiver.batches,
      itemsPerBatch: receiver.items / Math.max(1, receiver.batches),
    };
  } finally {
    await receiver.close();
  }
}

export function deliveryText(r: DeliveryReport): string {
  return [
    `Delivery: ${r.seconds} s of sync UHFTagRead (distinct EPCs) to one local receiver, ${r.connections} connections` +
      (r.instrumentBound ? ` — INSTRUMENT-BOUND (generator ${r.load.generatorCpu}% of its core)` : ''),
    `  offered ${r.load.rps.toFixed(0)} req/s (p99 ${r.load.p99.toFixed(1)} ms); errors ${r.load.errors}`,
    `  items into the outbox/s ${r.queuedPerSecond.toFixed(0)}, delivered/s during the load ${r.deliveredPerSecond.toFixed(0)}`,
    `  outbox caught up ${(r.drainMs / 1000).toFixed(1)} s after the load; ${r.batches} batches, ${r.itemsPerBatch.toFixed(1)} items each`,
    `  request → receiver latency per item: p50 ${r.latency.p50.toFixed(0)} ms, p99 ${r.latency.p99.toFixed(0)} ms, max ${r.latency.max.toFixed(0)} ms`,
    `  cpu % during the load: server ${r.load.cpu.server} (main ${r.load.cpu.serverMain}), load generator ${r.load.cpu.loadGenerator}, other ${r.load.cpu.other}`,
  ].join('\n');
}

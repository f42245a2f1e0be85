import { join } from 'node:path';
import knexFactory from 'knex';
import type { AdminClient } from './gateway-setup';
import { load, type RunFigures } from './load';
import { loadObjectEvents } from './epcis-store';

/** The EPCIS repository case (SPEC §17, issue 36): query latency over a large store, and capture. */
export interface EpcisReport {
  events: number;
  /** Seconds the direct database load of `events` took. */
  loadSeconds: number;
  connections: number;
  queries: { label: string; query: string; run: RunFigures }[];
  capture: { events: number; seconds: number; perSecond: number };
}

const ENDPOINT = 'epcisbench';
const CAPTURE_DOCUMENTS = 10;
const EVENTS_PER_CAPTURE = 1_000;

/**
 * Stores `events` ObjectEvents on a fresh EPCIS endpoint straight through the database (capture
 * would take far longer; see epcis-store.ts), then loads `GET Q/events?MATCH_epc=<one EPC>` and
 * `?EQ_bizStep=shipping&GE_eventTime=<the last tenth>&perPage=100` for `seconds` each at
 * `connections`, and times 10 captures of 1,000 events each until their jobs finish.
 */
export async function epcisRun(
  admin: AdminClient,
  options: {
    base: string;
    dataDir: string;
    databaseUrl?: string;
    events: number;
    seconds: number;
    connections: number;
  },
  log: (message: string) => void,
): Promise<EpcisReport> {
  const route = (name: string, requestType: string) => ({
    name,
    eventType: 'EpcisObject',
    requestType,
    authType: 'noauth',
  });
  const endpoint = await admin.call<{ id: number }>('POST', '/endpoints', {
    name: 'EPCIS bench',
    baseRoutePath: ENDPOINT,
    routes: [route('cap', 'HttpPost'), route('q', 'HttpGet')],
  });
  const knex = knexFactory(
    options.databaseUrl
      ? { client: 'pg', connection: options.databaseUrl }
      : { client: 'sqlite3', connection: { filename: join(options.dataDir, 'gateway.db') }, useNullAsDefault: true },
  );
  log(`EPCIS case: loading ${options.events} events into the database`);
  const started = performance.now();
  let store;
  try {
    if (!options.databaseUrl) await knex.raw('PRAGMA busy_timeout = 30000');
    store = await loadObjectEvents(knex, { endpointId: endpoint.id, count: options.events, routeName: 'cap' });
  } finally {
    await knex.destroy();
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const recent = new Date(store.firstEventTime + Math.floor(options.events * 0.9) * 1000).toISOString();
  const queries = [
    {
      label: 'MATCH_epc=<one EPC>',
      query: `MATCH_epc=${encodeURIComponent(store.epc(Math.ceil(options.events / 2)))}`,
    },
    {
      label: 'EQ_bizStep=shipping&GE_eventTime=<last tenth>&perPage=100',
      query: `EQ_bizStep=shipping&GE_eventTime=${encodeURIComponent(recent)}&perPage=100`,
    },
  ];
  const runs: EpcisReport['queries'] = [];
  for (const { label, query } of queries) {
    log(`EPCIS case: ${label}`);
    const url = `${options.base}/${ENDPOINT}/q/events?${query}`;
    runs.push({ label, query, run: await load({ url, method: 'GET' }, options.seconds, options.connections) });
  }
  log('EPCIS case: capture');
  return {
    events: options.events,
    loadSeconds,
    connections: options.connections,
    queries: runs,
    capture: await captureThroughput(options.base),
  };
}

/** Captures of 1,000 ObjectEvents each, two at a time, until every job has finished. */
async function captureThroughput(base: string): Promise<EpcisReport['capture']> {
  const started = performance.now();
  const origin = new URL(base).origin;
  const one = async (k: number) => {
    const eventList = Array.from({ length: EVENTS_PER_CAPTURE }, (_, i) => ({
      type: 'ObjectEvent',
      eventTime: '2026-06-01T00:00:00.000Z',
      eventTimeZoneOffset: '+00:00',
      action: 'OBSERVE',
      bizStep: 'shipping',
      epcList: [`urn:epc:id:sgtin:0614142.107346.${k * EVENTS_PER_CAPTURE + i}`],
    }));
    const response = await fetch(`${base}/${ENDPOINT}/cap/capture`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        '@context': 'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld',
        type: 'EPCISDocument',
        schemaVersion: '2.0',
        creationDate: '2026-06-01T00:00:00Z',
        epcisBody: { eventList },
      }),
    });
    if (response.status !== 202) throw new Error(`capture answered ${response.status}: ${await response.text()}`);
    const location = response.headers.get('location') ?? '';
    for (;;) {
      const job = (await (await fetch(`${origin}${location}`)).json()) as { running: boolean; success: boolean };
      if (!job.running) {
        if (!job.success) throw new Error(`capture ${location} failed`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  for (let k = 0; k < CAPTURE_DOCUMENTS; k += 2) await Promise.all([one(k), one(k + 1)]);
  const seconds = (performance.now() - started) / 1000;
  const events = CAPTURE_DOCUMENTS * EVENTS_PER_CAPTURE;
  return { events, seconds, perSecond: events / seconds };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The case as printed: figures, and the target beside them (p99 ≤ 20 ms). */
export function epcisText(report: EpcisReport): string {
  const lines = [
    `EPCIS repository: ${report.events.toLocaleString('en')} stored ObjectEvents (loaded through the database in ` +
      `${report.loadSeconds.toFixed(1)} s), ${report.connections} connections`,
  ];
  for (const { label, run } of report.queries) {
    const target = run.p99 <= 20 ? 'meets p99 ≤ 20 ms' : 'misses p99 ≤ 20 ms';
    lines.push(
      `  GET Q/events?${label}: ${run.rps.toFixed(0)} req/s, p50 ${ms(run.p50)}, p99 ${ms(run.p99)}, ` +
        `non-2xx ${run.non2xx}, errors ${run.errors} (${target})`,
    );
  }
  const c = report.capture;
  lines.push(
    `  capture: ${c.events} events in ${CAPTURE_DOCUMENTS} documents, ${c.seconds.toFixed(1)} s → ${c.perSecond.toFixed(0)} events/s`,
  );
  return lines.join('\n');
}

import { cpus } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import type { CpuShare } from './machine';
import { meteredLoad } from './cases';
import { BENCH_MAX_QUEUE_DEPTH, type AdminClient } from './gateway-setup';
import type { RunFigures } from './load';
import { loadObjectEvents, RECORD_LAG_MS } from './epcis-store';
import { PINNING, WRK } from './wrk';
import { gatewayLine } from './report';

export type EpcisDatabase = 'sqlite' | 'postgres';

/** What the EPCIS case runs: `BENCH_EPCIS_EVENTS`, and the bench's duration, warm-up and repeats. */
export interface EpcisSettings {
  events: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  repeats: number;
}

type EpcisRun = RunFigures & { cpu: CpuShare };

/** The EPCIS repository case (SPEC §17, issue 36): query latency over a large store, and capture. */
export interface EpcisReport {
  database: EpcisDatabase;
  events: number;
  /** Seconds the direct database load of `events` took (PostgreSQL: with its ANALYZE). */
  loadSeconds: number;
  connections: number;
  /** Each query's measured runs, and the run with the median p99. */
  queries: { label: string; query: string; runs: EpcisRun[]; median: EpcisRun }[];
  capture: { events: number; seconds: number; perSecond: number };
}

const ENDPOINT = 'epcisbench';
const CAPTURE_DOCUMENTS = 10;
const EVENTS_PER_CAPTURE = 1_000;
/** The target for both queries. */
const TARGET_P99_MS = 20;

/** The run with the median p99 (runs are whole observations; no mixing of figures). */
function medianByP99(runs: EpcisRun[]): EpcisRun {
  const middle = [...runs].sort((a, b) => a.p99 - b.p99)[Math.floor((runs.length - 1) / 2)];
  if (!middle) throw new Error('no runs');
  return middle;
}

/**
 * Stores `events` ObjectEvents on a fresh EPCIS endpoint straight through the database (capture
 * would take far longer; see epcis-store.ts), checks that each query answers what it should, then
 * loads `GET Q/events?MATCH_epc=<one EPC>` and `?EQ_bizStep=shipping&GE_eventTime=<the last
 * tenth>&perPage=100` at `connections` (a warm-up, then `repeats` measured runs each), and times
 * 10 captures of 1,000 events each until their jobs finish.
 */
export async function epcisRun(
  admin: AdminClient,
  options: EpcisSettings & {
    base: string;
    dataDir: string;
    database: EpcisDatabase;
    databaseUrl?: string;
    serverPid: number | undefined;
    /** PostgreSQL's postmaster: its CPU is the server's. */
    databasePid?: number;
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
  log(`EPCIS case: loading ${options.events} events into the ${options.database} database`);
  const started = performance.now();
  let store;
  try {
    if (!options.databaseUrl) await knex.raw('PRAGMA busy_timeout = 30000');
    store = await loadObjectEvents(knex, { endpointId: endpoint.id, count: options.events, routeName: 'cap' });
    // What autovacuum's ANALYZE does a minute after a bulk load: the planner's statistics.
    if (options.databaseUrl) await knex.raw('ANALYZE events, epcis_events, epcis_epcs');
  } finally {
    await knex.destroy();
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const recent = new Date(store.firstEventTime + Math.floor(options.events * 0.9) * 1000).toISOString();
  const queries = [
    {
      label: 'MATCH_epc=<one EPC>',
      query: `MATCH_epc=${encodeURIComponent(store.epc(Math.ceil(options.events / 2)))}`,
      expect: { events: 1, next: false },
    },
    {
      label: 'EQ_bizStep=shipping&GE_eventTime=<last tenth>&perPage=100',
      query: `EQ_bizStep=shipping&GE_eventTime=${encodeURIComponent(recent)}&perPage=100`,
      // A quarter of the last tenth is shipping: a full page and a next one, once there are enough.
      expect: { events: Math.min(100, Math.ceil(options.events / 40)), next: options.events > 4_000 },
    },
  ];
  const pids = { server: options.serverPid, database: options.databasePid };
  const runs: EpcisReport['queries'] = [];
  for (const { label, query, expect } of queries) {
    const url = `${options.base}/${ENDPOINT}/q/events?${query}`;
    await checkAnswer(url, expect);
    log(`EPCIS case: ${label} (warm-up ${options.warmupSeconds} s)`);
    if (options.warmupSeconds > 0)
      await meteredLoad({ url, method: 'GET' }, options.warmupSeconds, options.connections, pids);
    const measured: EpcisRun[] = [];
    for (let i = 1; i <= options.repeats; i++) {
      log(`EPCIS case: ${label} (run ${i}/${options.repeats})`);
      measured.push(await meteredLoad({ url, method: 'GET' }, options.seconds, options.connections, pids));
    }
    runs.push({ label, query, runs: measured, median: medianByP99(measured) });
  }
  log('EPCIS case: capture');
  return {
    database: options.database,
    events: options.events,
    loadSeconds,
    connections: options.connections,
    queries: runs,
    capture: await captureThroughput(options.base),
  };
}

/** A query must answer what the store holds before its speed means anything. */
async function checkAnswer(url: string, expected: { events: number; next: boolean }): Promise<void> {
  const response = await fetch(url);
  const body = (await response.json()) as { epcisBody?: { queryResults?: { resultsBody?: { eventList?: [] } } } };
  const events = body.epcisBody?.queryResults?.resultsBody?.eventList?.length ?? -1;
  const next = response.headers.has('link');
  if (response.status !== 200 || events !== expected.events || next !== expected.next) {
    throw new Error(
      `${url} answered ${response.status} with ${events} events${next ? ' and a next page' : ''}; ` +
        `expected ${expected.events}${expected.next ? ' and a next page' : ''}`,
    );
  }
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

/** The header of an EPCIS-only run: this case's own settings, not the HTTP cases'. */
export function epcisHeader(settings: EpcisSettings, gatewayFromBuild: boolean, profile: boolean): string {
  const cpu = cpus();
  const pinning = PINNING
    ? `server (and PostgreSQL) on core ${PINNING.server}, load generator on core ${PINNING.generator} (taskset)`
    : 'NOT pinned (no taskset or one core): server and load generator share the cores';
  return [
    `Gateway benchmark, EPCIS repository case — ${new Date().toISOString()}`,
    `node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}`,
    gatewayLine(gatewayFromBuild),
    `gateway settings: maxQueueDepth ${BENCH_MAX_QUEUE_DEPTH}`,
    `${settings.events.toLocaleString('en')} stored ObjectEvents (BENCH_EPCIS_EVENTS), written straight into the ` +
      'database: through capture a million would take minutes of the run',
    `each query: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ` +
      `${settings.repeats} × ${settings.seconds} s measured, the run with the median p99 shown`,
    WRK
      ? `load generator: wrk (${WRK}), 1 thread; ${pinning}`
      : `load generator: autocannon (instrument-bound); ${pinning}`,
    profile ? 'PROFILING: the gateway runs under --cpu-prof (figures are slower than normal)' : '',
  ]
    .filter(Boolean)
    .join('\n');
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/**
 * The server's CPU time (its process, and PostgreSQL's) per answered request: what the latency
 * is made of when 20 connections queue on one core, and steadier than req/s when other
 * processes take part of that core (the `other` share).
 */
const serverCpuPerRequest = (run: EpcisRun) => (10 * run.cpu.server) / Math.max(1e-9, run.rps);

/** The case as printed: figures, and the target beside them (p99 ≤ 20 ms). */
export function epcisText(report: EpcisReport): string {
  const database = report.database === 'postgres' ? 'PostgreSQL' : 'SQLite';
  const lines = [
    `EPCIS repository on ${database}: ${report.events.toLocaleString('en')} stored ObjectEvents (loaded straight ` +
      `into the database in ${report.loadSeconds.toFixed(1)} s, each recorded ${RECORD_LAG_MS / 1000} s after its ` +
      `event time), ${report.connections} connections`,
  ];
  for (const { label, runs, median } of report.queries) {
    const target = median.p99 <= TARGET_P99_MS ? 'meets' : 'misses';
    const cpu = median.cpu;
    lines.push(
      `  GET Q/events?${label}: ${median.rps.toFixed(0)} req/s, p50 ${ms(median.p50)}, p99 ${ms(median.p99)} ` +
        `(${target} p99 ≤ ${TARGET_P99_MS} ms), non-2xx ${median.non2xx}, errors ${median.errors}`,
      `    cpu % srv(main)/gen/other ${cpu.server}(${cpu.serverMain})/${cpu.loadGenerator}/${cpu.other}; ` +
        `server CPU per request ${serverCpuPerRequest(median).toFixed(2)} ms; ` +
        `p99 of each run: ${runs.map((run) => ms(run.p99)).join(', ')}`,
    );
  }
  const c = report.capture;
  lines.push(
    `  capture: ${c.events} events in ${CAPTURE_DOCUMENTS} documents, ${c.seconds.toFixed(1)} s → ${c.perSecond.toFixed(0)} events/s`,
  );
  return lines.join('\n');
}

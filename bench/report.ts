import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { BENCH_MAX_QUEUE_DEPTH, type CommitStats } from './gateway-setup';
import type { RunFigures } from './load';
import { PINNING, WRK } from './wrk';
import type { CpuShare } from './machine';
import { diskUseText, type DiskUse } from './disk-use';
import { GATEWAY_NODE_FLAGS } from '../scripts/node-flags.js';

export interface RunRecord extends RunFigures {
  cpu: CpuShare;
  warmup2xx: number;
  warmupCutOff: number;
  /** Group-commit deltas over the measured run (gateway only). */
  commit?: CommitStats;
  /** How long the worker took to empty the queue after the run (async only). */
  drainMs?: number;
  /** Events processed (sync and worker) per second while the measured load ran. */
  processedPerSecond?: number;
}

/** A batched case's figures in tag reads (see `CaseDef.readsPerBody`). */
export interface ReadFigures {
  perBody: number;
  /** Reads in 2xx answers per second (median run). */
  acknowledgedPerSecond: number;
  /** Reads processed per second during the load (median run): what keeps pace, or does not. */
  processedPerSecond: number;
  /** The database at the end of the case, per table (SQLite's `dbstat`). */
  disk?: DiskUse;
}

/**
 * The baseline around one case: the mean of the baseline runs just before and just after it.
 * This VM's speed was seen to drift by 2× within minutes, so comparing with a baseline measured
 * many minutes earlier would judge the drift, not the gateway.
 */
export interface Reference {
  /** Whether a bracketing baseline run was instrument-bound (its req/s is then the generator's). */
  instrumentBound: boolean;
  rps: number;
  p99: number;
  /** req/s of the bracketing baseline runs. */
  around: number[];
}

export interface CaseReport {
  key: string;
  label: string;
  async: boolean;
  /** How the load arrived; `mqtt`: req/s are PUBACKs per second (absent in older results: http). */
  transport?: 'http' | 'mqtt';
  runs: RunRecord[];
  median: RunRecord;
  /** The baseline this case is compared with (see `bracket` in run.ts). */
  reference: Reference | null;
  /** Median req/s over the reference req/s. */
  ratio: number | null;
  durability?: { expected: number; cutOff: number; stored: number; byStatus: Record<string, number>; pass: boolean };
  reads?: ReadFigures;
}

export interface Target {
  name: string;
  goal: string;
  actual: string;
  met: boolean;
}

export interface BenchSettings {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  repeats: number;
  profile: boolean;
  /** The MQTT case: connections, and QoS 1 messages each keeps unacknowledged. */
  mqttPublishers: number;
  mqttWindow: number;
}

const fixed = (value: number, digits = 0) => value.toFixed(digits);

/** A generator at or above this share of its core may be what set the pace. */
export const INSTRUMENT_BOUND_PERCENT = 90;

/**
 * Whether the load generator, not the server, may have set the pace of a run: autocannon always
 * (it shares the server's machine and this process), wrk or the MQTT publishers when they used
 * ≥ 90 % of their core.
 */
export const instrumentBound = (run: { generator: string; generatorCpu: number }): boolean =>
  run.generator === 'autocannon' || run.generatorCpu >= INSTRUMENT_BOUND_PERCENT;
const eventsPerFlush = (stats: CommitStats | undefined) =>
  stats && stats.flushes > 0 ? fixed(stats.events / stats.flushes, 1) : '–';

/**
 * Whether other processes competed during the measured runs. A load average would include the
 * bench itself; the CPU meter separates server, load generator and everything else.
 */
export function noiseNote(cases: CaseReport[]): string {
  const worst = Math.max(0, ...cases.flatMap((c) => c.runs.map((r) => r.cpu.other)));
  const note = `Other processes used at most ${worst}% of a core during any measured run`;
  return worst > 15 ? `${note} — WARNING: the machine was busy; figures and ratios are not reliable` : note;
}

function generatorLine(): string {
  const pinning = PINNING
    ? `server on core ${PINNING.server}, load generator on core ${PINNING.generator} (taskset)`
    : 'NOT pinned (no taskset or one core): server and load generator share the cores';
  if (WRK) return `load generator: wrk (${WRK}), 1 thread; ${pinning}`;
  return [
    '!!! INSTRUMENT-BOUND: wrk is not installed (or BENCH_NO_WRK=1); autocannon runs inside this Node process and competes',
    '!!! with the server. Ratios to the baseline are pushed toward 1 and are NOT reported as met.',
    '!!! Install wrk (Debian/Ubuntu: sudo apt-get install wrk) and run again.',
    `load generator: autocannon; ${pinning}`,
  ].join('\n');
}

/** How the gateway runs: its build or its sources; it and the baseline under the service unit's node flags. */
export const gatewayLine = (fromBuild: boolean): string =>
  fromBuild
    ? `gateway: runs its build (out/main/cli.js) as the service unit runs \`gateway serve\`; it and the baseline run under node ${GATEWAY_NODE_FLAGS.join(' ')}`
    : 'gateway: runs from source through tsx (the build is missing or out of date; `npm run build`)';

export function header(settings: BenchSettings, gatewayFromBuild: boolean, mode: 'cases' | 'growth' = 'cases'): string {
  const cpu = cpus();
  return [
    `Gateway benchmark — ${new Date().toISOString()}`,
    `node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}`,
    gatewayLine(gatewayFromBuild),
    `gateway settings: maxQueueDepth ${BENCH_MAX_QUEUE_DEPTH} (so a fast run is not cut short by 503 queue-full;` +
      ' the sustained case keeps the default)',
    mode === 'cases'
      ? `${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured, ` +
        `${settings.repeats} runs per case, median run (by req/s) shown\n` +
        `MQTT case: ${settings.mqttPublishers} publishers (mqtt.js, own process on the load generator's core), ` +
        `each keeping ${settings.mqttWindow} QoS 1 PUBLISHes in flight`
      : '',
    generatorLine(),
    settings.profile ? 'PROFILING: the gateway runs under --cpu-prof (figures are slower than normal)' : '',
  ]
    .filter(Boolean)
    .join('\n');
}

export function table(cases: CaseReport[]): string {
  const head = [
    'case',
    'req/s',
    'p50 ms',
    'p99 ms',
    '× base',
    'non-2xx',
    'errors',
    'ev/flush',
    '2xx/flush',
    'drain s',
    'stored',
    'cpu % srv(main)/gen/other',
    'instrument',
  ];
  const rows = cases.map((c) => {
    const m = c.median;
    const stored = c.durability ? (c.durability.pass ? 'PASS' : 'FAIL') : '–';
    return [
      c.label,
      fixed(m.rps),
      fixed(m.p50),
      fixed(m.p99),
      c.ratio === null ? '–' : fixed(c.ratio, 2),
      String(m.non2xx),
      String(m.errors),
      c.async ? eventsPerFlush(m.commit) : '–',
      m.commit && m.commit.flushes > 0 ? fixed(m.ok2xx / m.commit.flushes, 1) : '–',
      m.drainMs === undefined ? '–' : fixed(m.drainMs / 1000, 1),
      stored,
      `${m.cpu.server}(${m.cpu.serverMain})/${m.cpu.loadGenerator}/${m.cpu.other}`,
      instrumentBound(m) || c.reference?.instrumentBound ? 'BOUND' : 'ok',
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  const legend = [
    'ev/flush: durable event rows per disk flush (group commit); 2xx/flush: answered requests per flush;',
    'drain s: time for the worker to empty the queue after the run; cpu: % of one core used by the',
    'server process (all threads; with PostgreSQL, its database server too), in brackets its main',
    'thread alone / the load generator (wrk, or this process with autocannon) / every other process.',
    `instrument: BOUND when the load generator used ≥ ${INSTRUMENT_BOUND_PERCENT} % of its core (or is autocannon) in this`,
    'run or in a bracketing baseline run: the generator may have set the pace, so the ratio is not trusted.',
    'MQTT case: req/s = PUBLISHes acknowledged (PUBACK) per second, 2xx = PUBACKs, latency = PUBLISH → PUBACK',
    '(it includes the wait behind the window of messages in flight on the connection).',
  ];
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line), '', ...legend].join('\n');
}

/** All three runs per case, for judging the spread behind each median. */
export function runsDetail(cases: CaseReport[]): string {
  return cases
    .map((c) => {
      const runs = c.runs
        .map(
          (r) =>
            `${fixed(r.rps)} req/s p99 ${fixed(r.p99, 1)} ms gen ${r.generatorCpu}%${instrumentBound(r) ? ' BOUND' : ''}`,
        )
        .join(' | ');
      const around =
        c.reference && c.key !== 'baseline'
          ? `  [baseline around: ${c.reference.around.map((r) => fixed(r)).join(', ')} req/s]`
          : '';
      return `${c.label}: ${runs}${around}`;
    })
    .join('\n');
}

/** SPEC-independent targets from the "Benchmark" issue, judged on the medians of this run. */
export function judge(cases: CaseReport[]): Target[] {
  const byKey = new Map(cases.map((c) => [c.key, c]));
  const targets: Target[] = [];
  const ratio = (key: string, goal: number) => {
    const c = byKey.get(key);
    if (!c || c.ratio === null) return;
    // Refusals are answered fast and ingest nothing: a run that had any cannot meet a throughput target.
    const refused = c.median.non2xx + c.median.errors;
    // A ratio from a run the load generator may have paced (either side) says nothing about the server.
    const bound = instrumentBound(c.median) || (c.reference?.instrumentBound ?? false);
    targets.push({
      name: `${c.label} throughput`,
      goal: `≥ ${goal.toFixed(2)} × baseline`,
      actual:
        `${c.ratio.toFixed(2)} ×${refused > 0 ? ` with ${refused} non-2xx/errors` : ''}` +
        (bound ? ' (instrument-bound: not judged)' : ''),
      met: c.ratio >= goal && refused === 0 && !bound,
    });
  };
  // Issue 37's one-read-per-POST targets (0.60 / 0.65 are for one EPC: BENCH_TAGS=1).
  ratio('asyncOpen', 0.6);
  ratio('asyncToken', 0.6);
  ratio('asyncBasic', 0.6);
  ratio('syncTags', 0.65);
  ratio('asyncOpenDistinct', 0.45);
  ratio('syncTagsDistinct', 0.45);
  for (const key of ['asyncBatch', 'syncBatch']) {
    const c = byKey.get(key);
    if (c) targets.push(...readTargets(c, 2.5, 100));
  }
  const mqtt = byKey.get('mqttOpen');
  const http = byKey.get('asyncOpen');
  if (mqtt && http) targets.push(transportTarget(mqtt, http, 1.2));
  for (const c of cases) {
    // An MQTT message waits behind the window in flight on its connection: no HTTP p99 to compare with.
    if (c.key === 'baseline' || !c.reference || c.transport === 'mqtt' || c.reads) continue;
    const limit = 3 * c.reference.p99;
    targets.push({
      name: `${c.label} p99`,
      goal: `≤ ${limit.toFixed(0)} ms (3 × baseline)`,
      actual: `${c.median.p99.toFixed(0)} ms`,
      met: c.median.p99 <= limit,
    });
  }
  for (const c of cases) {
    const stats = c.median.commit;
    if (!c.async || !stats) continue;
    // Answers per disk flush: an async event processed at once (issue 37) is no queued row of
    // the ack lane (`ev/flush`), but its 202 still shares a flush with the others.
    const value = stats.flushes > 0 ? c.median.ok2xx / stats.flushes : 0;
    targets.push({ name: `${c.label} 2xx per flush`, goal: '≥ 3', actual: value.toFixed(1), met: value >= 3 });
  }
  return targets;
}

/**
 * Issue 37: a batched case's reads processed per second during the load against the bare Koa
 * server's requests per second around it, and its p99.
 */
function readTargets(c: CaseReport, goal: number, p99Ms: number): Target[] {
  if (!c.reads || !c.reference) return [];
  const ratio = c.reads.processedPerSecond / c.reference.rps;
  const bound = instrumentBound(c.median) || c.reference.instrumentBound;
  const refused = c.median.non2xx + c.median.errors;
  return [
    {
      name: `${c.label} reads processed`,
      goal: `≥ ${goal.toFixed(1)} × baseline req/s`,
      actual:
        `${ratio.toFixed(2)} × (${fixed(c.reads.processedPerSecond)} reads/s)` +
        (refused > 0 ? ` with ${refused} non-2xx/errors` : '') +
        (bound ? ' (instrument-bound: not judged)' : ''),
      met: ratio >= goal && refused === 0 && !bound,
    },
    {
      name: `${c.label} p99`,
      goal: `≤ ${p99Ms} ms`,
      actual: `${c.median.p99.toFixed(0)} ms`,
      met: c.median.p99 <= p99Ms,
    },
  ];
}

/** The batched cases in reads: acknowledged and processed per second, and bytes per read at rest. */
export function readsText(cases: CaseReport[]): string {
  const lines = cases.flatMap((c) => {
    const r = c.reads;
    if (!r) return [];
    const ratio = c.reference ? ` = ${(r.processedPerSecond / c.reference.rps).toFixed(2)} × baseline req/s` : '';
    return [
      `${c.label}: ${fixed(r.acknowledgedPerSecond)} reads/s acknowledged, ${fixed(r.processedPerSecond)} processed during the load${ratio};` +
        ` p99 ${fixed(c.median.p99)} ms; cpu % server ${c.median.cpu.server} (main ${c.median.cpu.serverMain})`,
      ...(r.disk ? [`  ${diskUseText(r.disk)}`] : []),
    ];
  });
  return lines.length > 0 ? `Tag reads (batched cases):\n${lines.join('\n')}` : '';
}

/**
 * Issue 34: MQTT msgs/s against the HTTP async case's req/s of the same run (both with the same
 * body, to async noauth UHFTagRead routes; MQTT has no per-message HTTP parsing).
 */
function transportTarget(mqtt: CaseReport, http: CaseReport, goal: number): Target {
  const ratio = mqtt.median.rps / Math.max(1e-9, http.median.rps);
  const refused = mqtt.median.non2xx + mqtt.median.errors + http.median.non2xx + http.median.errors;
  const bound = instrumentBound(mqtt.median) || instrumentBound(http.median);
  return {
    name: `${mqtt.label} throughput`,
    goal: `≥ ${goal.toFixed(2)} × ${http.key} (HTTP)`,
    actual:
      `${ratio.toFixed(2)} × (${fixed(mqtt.median.rps)} msg/s ÷ ${fixed(http.median.rps)} req/s)` +
      (refused > 0 ? ` with ${refused} non-2xx/errors` : '') +
      (bound ? ' (instrument-bound: not judged)' : ''),
    met: ratio >= goal && refused === 0 && !bound,
  };
}

export function targetsText(targets: Target[]): string {
  const width = Math.max(...targets.map((t) => t.name.length));
  return targets
    .map((t) => `${t.met ? 'met   ' : 'MISSED'}  ${t.name.padEnd(width)}  ${t.goal.padEnd(26)}  actual ${t.actual}`)
    .join('\n');
}

export function durabilityText(cases: CaseReport[]): string {
  return cases
    .filter((c) => c.durability)
    .map((c) => {
      const d = c.durability;
      if (!d) return '';
      const statuses =
        Object.entries(d.byStatus)
          .map(([status, n]) => `${status} ${n}`)
          .join(', ') || 'none';
      const extra = d.stored - d.expected;
      return (
        `${d.pass ? 'PASS' : 'FAIL'}  ${c.label}: ${d.stored} stored (${statuses}) for ${d.expected} 2xx answers` +
        ` + ${extra} of ${d.cutOff} requests cut off unanswered at the end of a load`
      );
    })
    .join('\n');
}

/** Writes `bench/results/<timestamp>.json` and `latest.json`; returns the timestamped path. */
export function writeResults(dir: string, data: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const json = JSON.stringify(
    {
      at: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      generator: WRK ? 'wrk' : 'autocannon',
      pinning: PINNING,
      ...data,
    },
    null,
    2,
  );
  const file = join(dir, `${stamp}.json`);
  writeFileSync(file, json + '\n');
  writeFileSync(join(dir, 'latest.json'), json + '\n');
  return file;
}

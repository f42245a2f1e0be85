import autocannon, { type Options, type RequestParams, type Result } from 'autocannon';
import { epcHex } from './epc-pool';
import { runWrk, WRK, type WrkResult } from './wrk';

let sequence = 0;

/**
 * The autocannon fallback's body: the Zebra FX batch of `readsPerBody` tag reads that the wrk
 * script builds (see wrk-script.ts), fresh timestamps and the next EPCs of a pool of `tagPool` serials.
 */
export function zebraBody(tagPool: number, readsPerBody = 2): string {
  const timestamp = new Date().toISOString().replace('Z', '+0000');
  const read = (antenna: number) => {
    sequence += 1;
    return {
      type: 'SIMPLE',
      timestamp,
      data: {
        MAC: '84:24:8D:12:34:56',
        antenna,
        eventNum: sequence,
        format: 'epc',
        idHex: epcHex(sequence % Math.max(1, tagPool)),
        peakRssi: -50 - (sequence % 20),
        reads: 1 + (sequence % 4),
      },
    };
  };
  return JSON.stringify(Array.from({ length: readsPerBody }, (_, i) => read((i % 4) + 1)));
}

export interface LoadTarget {
  url: string;
  method: 'POST' | 'GET';
  headers?: Record<string, string>;
  /** POST: serials cycled for the body's EPCs (see epc-pool.ts). */
  tagPool?: number;
  /** POST: tag reads per body; 2 unless given. */
  readsPerBody?: number;
}

export interface RunFigures {
  /**
   * Which load generator ran: wrk on its own core, the MQTT publishers (mqtt-publishers.ts) on
   * that core, or autocannon inside the bench process.
   */
  generator: 'wrk' | 'mqtt' | 'autocannon';
  /**
   * The load generator's CPU over the run, % of one core (-1 unknown). At ≥ 90 % it, not the
   * server, may have set the pace: the run is instrument-bound.
   */
  generatorCpu: number;
  /**
   * The generator's CPU over its whole life, % of one core over the load call, where it differs
   * from `generatorCpu` (the MQTT publishers measure their window; starting Node is not load):
   * what the CPU meter books to the generator rather than to other processes.
   */
  accountedGeneratorCpu?: number;
  /** Requests answered (MQTT: PUBLISHes acknowledged) per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  ok2xx: number;
  non2xx: number;
  /** Socket errors and timeouts: no answer at all. */
  errors: number;
  /**
   * Requests sent but not answered when the duration ran out (autocannon drops the sockets of up
   * to `connections` requests in flight) or that errored: the server may well have stored them.
   */
  cutOff: number;
  statusCodes: Record<string, number>;
}

function fire(target: LoadTarget, seconds: number, connections: number): Promise<Result> {
  const options: Options = {
    url: target.url,
    connections,
    duration: seconds,
    method: target.method,
    headers: { ...(target.method === 'POST' ? { 'content-type': 'application/json' } : {}), ...target.headers },
    requests:
      target.method === 'POST'
        ? [
            {
              setupRequest: (request: RequestParams): RequestParams => ({
                ...request,
                body: zebraBody(target.tagPool ?? 1, target.readsPerBody),
              }),
            },
          ]
        : undefined,
  };
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

function autocannonFigures(result: Result): RunFigures {
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
  return {
    generator: 'autocannon',
    // Filled in by the CPU meter (the bench process's own share).
    generatorCpu: -1,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cutOff: Math.max(0, result.requests.sent - result.requests.total),
    statusCodes,
  };
}

/** wrk's figures in the bench's terms. */
export function wrkFigures(result: WrkResult, wallMs: number): RunFigures {
  const answered = Object.values(result.statuses).reduce((sum, n) => sum + n, 0);
  const ok2xx = Object.entries(result.statuses)
    .filter(([code]) => code.startsWith('2'))
    .reduce((sum, [, n]) => sum + n, 0);
  const errors = result.errors.connect + result.errors.read + result.errors.write + result.errors.timeout;
  return {
    generator: 'wrk',
    generatorCpu: result.cpuMs < 0 ? -1 : Math.round((100 * result.cpuMs) / Math.max(1, wallMs)),
    rps: result.requests / (result.durationUs / 1e6),
    p50: result.latencyUs.p50 / 1000,
    p99: result.latencyUs.p99 / 1000,
    ok2xx,
    non2xx: answered - ok2xx,
    errors,
    // Built and never answered: in flight when wrk stopped (about one per connection) or lost to an
    // error. `sent` counts request() calls, so this is an upper bound: the durability check's allowance.
    cutOff: Math.max(0, result.sent - answered),
    statusCodes: { ...result.statuses },
  };
}

/**
 * Loads the target for `seconds` with wrk when it is installed, else with autocannon in this
 * process (instrument-bound); warm-ups are just shorter calls whose figures are kept apart.
 */
export async function load(target: LoadTarget, seconds: number, connections: number): Promise<RunFigures> {
  if (WRK) {
    const url = new URL(target.url);
    const run = await runWrk(
      url.origin,
      {
        method: target.method,
        path: url.pathname + url.search,
        headers: target.headers,
        tagPool: target.tagPool,
        readsPerBody: target.readsPerBody,
      },
      seconds,
      connections,
    );
    return wrkFigures(run.result, run.wallMs);
  }
  return autocannonFigures(await fire(target, seconds, connections));
}

/** The run with the median req/s (runs are whole observations; no mixing of figures). */
export function medianRun<T extends { rps: number }>(runs: T[]): T {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!middle) throw new Error('no runs');
  return middle;
}

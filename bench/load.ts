import autocannon, { type Options, type RequestParams, type Result } from 'autocannon';

/** Distinct tags the simulated readers see; a pool, so the inventory has updates as well as inserts. */
const TAG_POOL = Math.max(1, Number(process.env.BENCH_TAGS ?? 5000));
// SGTIN-96 of company 0614141, item 812345: the low 32 bits are the serial (the 6 bits above it
// are zero in this prefix), so every body carries real, decodable EPCs.
const SGTIN_PREFIX = '3074257BF7194E40';

let sequence = 0;

/**
 * A Zebra FX (IoT Connector) batch of two tag reads, as the reader posts it: ~390 bytes, fresh
 * timestamps and EPCs from the pool on every request. Varying the body makes the sync UHFTagRead
 * case do real dedup/inventory work rather than suppress one EPC forever. The baseline gets the
 * very same generator, so the load generator's own cost is identical on both sides.
 */
export function zebraBody(): string {
  const timestamp = new Date().toISOString().replace('Z', '+0000');
  const read = (antenna: number) => {
    sequence += 1;
    const serial = (sequence % TAG_POOL).toString(16).toUpperCase().padStart(8, '0');
    return {
      type: 'SIMPLE',
      timestamp,
      data: {
        MAC: '84:24:8D:12:34:56',
        antenna,
        eventNum: sequence,
        format: 'epc',
        idHex: SGTIN_PREFIX + serial,
        peakRssi: -50 - (sequence % 20),
        reads: 1 + (sequence % 4),
      },
    };
  };
  return JSON.stringify([read(1), read(2)]);
}

export interface LoadTarget {
  url: string;
  method: 'POST' | 'GET';
  headers?: Record<string, string>;
}

export interface RunFigures {
  /** autocannon's mean of per-second samples. */
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
        ? [{ setupRequest: (request: RequestParams): RequestParams => ({ ...request, body: zebraBody() }) }]
        : undefined,
  };
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

function figures(result: Result): RunFigures {
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats)) statusCodes[code] = stats.count;
  return {
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

/** Loads the target for `seconds`; warm-ups are just shorter calls whose figures are kept apart. */
export async function load(target: LoadTarget, seconds: number, connections: number): Promise<RunFigures> {
  return figures(await fire(target, seconds, connections));
}

/** The run with the median req/s (runs are whole observations; no mixing of figures). */
export function medianRun<T extends { rps: number }>(runs: T[]): T {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!middle) throw new Error('no runs');
  return middle;
}

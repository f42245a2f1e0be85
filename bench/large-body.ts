import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { epcHex } from './epc-pool';

/**
 * Large bodies (issue 38.3, SPEC §13 "`/_health` within 1 s whatever the gateway is doing"): a
 * gateway child process takes one or several bodies of up to `bodyLimitBytes` (100 MiB at most)
 * while `/_health` is asked every 100 ms; what it costs is read from /proc (VmRSS, VmHWM).
 * Shared by `npm run bench` (BENCH_LARGE=1) and test/integration/large-bodies.test.ts.
 */

/** One Zebra IoT Connector read (SPEC §5) of tag `serial`, about 170 bytes of JSON. */
const zebraRead = (serial: number, n: number): string =>
  `{"type":"SIMPLE","timestamp":"2026-03-02T08:${String(15 + (Math.floor(n / 60_000) % 40)).padStart(2, '0')}:` +
  `${String(Math.floor(n / 1000) % 60).padStart(2, '0')}.${String(n % 1000).padStart(3, '0')}+0000",` +
  `"data":{"antenna":${1 + (n % 4)},"eventNum":${n},"format":"epc","idHex":"${epcHex(serial)}",` +
  `"peakRssi":${-40 - (n % 30)},"reads":1}}`;

/**
 * A JSON array of Zebra reads of `tags` distinct EPCs, as close under `bytes` as whole reads
 * allow: the body a reader's batch of that size would be.
 */
export function zebraBody(bytes: number, tags = 5000): Buffer {
  const parts: string[] = ['['];
  let size = 2;
  for (let n = 0; ; n++) {
    const read = zebraRead(n % tags, n);
    if (size + read.length + 1 > bytes) break;
    parts.push(n === 0 ? read : ',' + read);
    size += read.length + (n === 0 ? 0 : 1);
  }
  parts.push(']');
  return Buffer.from(parts.join(''));
}

/** A process's resident set now and at its peak, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/** A POST answered: status and (short) body. Node's http client, so the body streams from one Buffer. */
export function postBody(url: string, body: Buffer): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString().slice(0, 500),
            ms: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One `/_health` answer's time, or Infinity when it failed. */
function healthOnce(base: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(`${base}/_health`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
      res.on('error', () => resolve(Infinity));
    });
    req.on('error', () => resolve(Infinity));
    req.end();
  });
}

/**
 * Asks `/_health` every `everyMs`, each ask on its own connection and not waiting for the one
 * before (a stalled gateway shows as one long answer, not as fewer asks); `stop` resolves with
 * every answer's time once all are in.
 */
export function pollHealth(base: string, everyMs = 100): { stop: () => Promise<number[]> } {
  const asks: Promise<number>[] = [];
  const timer = setInterval(() => asks.push(healthOnce(base)), everyMs);
  asks.push(healthOnce(base));
  return {
    stop: async () => {
      clearInterval(timer);
      return Promise.all(asks);
    },
  };
}

export interface LargeBodyReport {
  bodyBytes: number;
  bodies: number;
  statuses: number[];
  /** The slowest `/_health` answer while the bodies were handled, and how many were asked. */
  healthMaxMs: number;
  healthAsks: number;
  /** RSS before the bodies, peak (VmHWM) while they were handled, 2 s after they settled, and `settleMs` after. */
  rssBefore: number;
  rssPeak: number;
  rssAfter: number;
  rssLate: number;
  settleMs: number;
  /** Slowest POST answer. */
  postMaxMs: number;
}

/**
 * Posts `bodies` copies of `body` at once to the routes in turn (`urls`), polling `/_health`
 * meanwhile; `settled` waits for whatever the gateway still does after answering (the async
 * worker), then RSS is read after `settleMs` more.
 */
export async function largeBodyRun(options: {
  base: string;
  pid: number;
  urls: string[];
  body: Buffer;
  bodies: number;
  settled: () => Promise<void>;
  settleMs?: number;
}): Promise<LargeBodyReport> {
  const { base, pid, urls, body, bodies } = options;
  const rssBefore = memoryOf(pid).rss;
  const poll = pollHealth(base);
  const answers = await Promise.all(Array.from({ length: bodies }, (_, i) => postBody(urls[i % urls.length], body)));
  await options.settled();
  const times = await poll.stop();
  const settleMs = Math.max(2000, options.settleMs ?? 2000);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const after = memoryOf(pid);
  await new Promise((resolve) => setTimeout(resolve, settleMs - 2000));
  const late = memoryOf(pid);
  return {
    bodyBytes: body.length,
    bodies,
    statuses: answers.map((answer) => answer.status),
    healthMaxMs: Math.max(...times),
    healthAsks: times.length,
    rssBefore,
    rssPeak: late.peak,
    rssAfter: after.rss,
    rssLate: late.rss,
    settleMs,
    postMaxMs: Math.max(...answers.map((answer) => answer.ms)),
  };
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** One line per run: health max, RSS before/peak/after and as multiples of the bodies' size. */
export function largeBodyText(label: string, r: LargeBodyReport): string {
  const total = r.bodyBytes * r.bodies;
  return (
    `${label}: ${r.bodies} × ${mib(r.bodyBytes)} → ${r.statuses.join(',')} in ≤${(r.postMaxMs / 1000).toFixed(1)} s; ` +
    `/_health max ${r.healthMaxMs.toFixed(0)} ms (${r.healthAsks} asks); RSS before ${mib(r.rssBefore)}, ` +
    `peak ${mib(r.rssPeak)} (+${((r.rssPeak - r.rssBefore) / total).toFixed(2)}× the bodies), ` +
    `after 2 s ${mib(r.rssAfter)} (+${((r.rssAfter - r.rssBefore) / total).toFixed(2)}×)` +
    (r.settleMs > 2000
      ? `, after ${(r.settleMs / 1000).toFixed(0)} s ${mib(r.rssLate)} (+${((r.rssLate - r.rssBefore) / total).toFixed(2)}×)`
      : '')
  );
}

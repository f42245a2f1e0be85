/**
 * `BENCH_LARGE=1 npm run bench`: each case on a fresh
 * `gateway serve` child (not pinned: a worker thread may take the other core), one or four bodies
 * of `BENCH_LARGE_MIB` (default 99) MiB of Zebra reads to sync and async UHFTagRead and AllData
 * routes, `/_health` polled every 100 ms. Prints one line per case (see `largeBodyText`), the
 * RSS figures as multiples of the bodies' size. `BENCH_LARGE_CASES=0,4` picks cases by index,
 * `BENCH_LARGE_SETTLE_MS` how long RSS is watched after the bodies (default 45 s: V8 gives idle
 * garbage back after about half a minute), `BENCH_LARGE_PROFILE=<dir>` profiles the gateway.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildGateway } from '../test/helpers/child-gateway';
import { ADMIN_PASSWORD } from './children';
import { AdminClient } from './gateway-setup';
import { largeBodyRun, largeBodyText, zebraBody, type LargeBodyReport } from './large-body';

const LIMIT = 104_857_600;

interface LargeCase {
  label: string;
  routes: string[];
  bodies: number;
}

const CASES: LargeCase[] = [
  { label: 'sync UHFTagRead', routes: ['syncTags'], bodies: 1 },
  { label: 'async UHFTagRead', routes: ['asyncTags'], bodies: 1 },
  { label: 'sync AllData', routes: ['syncAll'], bodies: 1 },
  { label: 'async AllData', routes: ['asyncAll'], bodies: 1 },
  { label: 'four at once (each route)', routes: ['syncTags', 'asyncTags', 'syncAll', 'asyncAll'], bodies: 4 },
];

const route = (name: string, eventType: string, async: boolean) => ({
  name,
  eventType,
  requestType: 'HttpPost',
  authType: 'noauth',
  async,
  roles: [],
});

async function runCase(c: LargeCase, body: Buffer): Promise<LargeBodyReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-large-'));
  const gw = await startChildGateway(
    ['--data-dir', dataDir],
    { GATEWAY_ADMIN_PASSWORD: ADMIN_PASSWORD },
    // BENCH_LARGE_PROFILE=<dir>: the gateway writes a .cpuprofile there when it stops.
    {
      nodeArgs: [
        ...(process.env.BENCH_LARGE_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_LARGE_PROFILE] : []),
        ...(process.env.BENCH_LARGE_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      ],
    },
  );
  try {
    const admin = new AdminClient(gw.base);
    await admin.login();
    await admin.call('PUT', '/settings', { bodyLimitBytes: LIMIT });
    await admin.call('POST', '/endpoints', {
      name: 'Large',
      baseRoutePath: 'large',
      active: true,
      routes: [
        route('syncTags', 'UHFTagRead', false),
        route('asyncTags', 'UHFTagRead', true),
        route('syncAll', 'AllData', false),
        route('asyncAll', 'AllData', true),
      ],
    });
    // Let the start-up settle so "before" is the idle gateway.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return await largeBodyRun({
      base: gw.base,
      pid: gw.process.pid as number,
      urls: c.routes.map((name) => `${gw.base}/large/${name}`),
      body,
      bodies: c.bodies,
      settled: async () => {
        await admin.waitForDrain();
      },
      settleMs: Number(process.env.BENCH_LARGE_SETTLE_MS ?? 45_000),
    });
  } finally {
    gw.process.kill('SIGTERM');
    await gw.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function largeBodiesMain(): Promise<void> {
  const mib = Math.min(100, Number(process.env.BENCH_LARGE_MIB ?? 99));
  const only = process.env.BENCH_LARGE_CASES?.split(',').map((s) => s.trim());
  const body = zebraBody(Math.floor(mib * 1024 * 1024), Number(process.env.BENCH_LARGE_TAGS ?? 5000));
  process.stdout.write(`large bodies: ${body.length} bytes of Zebra reads each\n`);
  for (const [i, c] of CASES.entries()) {
    if (only && !only.includes(String(i))) continue;
    const report = await runCase(c, body);
    process.stdout.write(`${largeBodyText(c.label, report)}\n`);
  }
}

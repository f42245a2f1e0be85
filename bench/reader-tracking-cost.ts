/**
 * What keeping the readers' records (SPEC §16, issue 35) costs one flush of batched reads, apart
 * from everything else the flush does: `node --import tsx bench/reader-tracking-cost.ts`.
 *
 * The flush is the batched bench's: 23 POSTs of 50 distinct Zebra reads from one reader on four
 * antennas, 1,150 rows of ~180 bytes into a table of their own (standing for the inventory and
 * events), one COMMIT with `synchronous = FULL`. Measured as CPU time of the whole process (the
 * main thread and SQLite's threads, `process.cpuUsage`), so other processes on the machine move
 * the figures less than they move throughput. Each flush goes through the group transaction's own
 * path (`WriteBatch.onScript`), with and without `ReaderTracking.add`, in ABBA order: a table that
 * grows makes later flushes dearer, so a fixed order would favour the first arm.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../server/db/create-db';
import { inScriptTransaction } from '../server/db/sqlite-transaction';
import { WriteBatch } from '../server/db/write-batch';
import type { EventMeta, StoreOutcome } from '../server/events/processor';
import { ReaderTracking } from '../server/intake/processing/reader-tracking';

const POSTS = 23;
const READS_PER_POST = 50;
const ROWS = POSTS * READS_PER_POST;
const FLUSHES = 100;
const ROUNDS = 8;

/** A flush's processed events as reader tracking sees them. */
function flushEvents(): { meta: EventMeta; outcome: StoreOutcome }[] {
  const at = Date.now();
  return Array.from({ length: POSTS }, (_, i) => ({
    meta: {
      id: String(i),
      routeId: 1,
      routeName: 'zebra',
      endpointId: 1,
      endpointName: 'dock',
      eventType: 'UHFTagRead',
      receivedAt: at,
      principal: 'reader',
      sourceIp: '192.0.2.10',
      requestId: String(i),
      transport: 'http',
      topic: null,
    },
    outcome: {
      result: { reads: READS_PER_POST, uniqueEpcs: READS_PER_POST, duplicatesSuppressed: 0 },
      data: null,
      deliveries: () => [],
      readers: [
        {
          readerId: '84:24:8D:12:34:56',
          counted: READS_PER_POST,
          suppressed: 0,
          health: null,
          alarms: [],
          lastStatus: undefined,
          antennas: new Map(
            [1, 2, 3, 4].map((antenna) => [antenna, { counted: 12, read: true, lastRssi: -55, connected: null }]),
          ),
        },
      ],
    },
  }));
}

const cpuMicros = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

const dir = mkdtempSync(join(tmpdir(), 'gateway-reader-cost-'));
const db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') });
try {
  await db.knex.raw('CREATE TABLE flush_rows (k TEXT PRIMARY KEY, v TEXT NOT NULL)');
  const tracking = new ReaderTracking(() => Date.now());
  let serial = 0;
  /** One flush through the group transaction's own path: its rows, and the readers' if `tracked`. */
  const flush = (tracked: boolean) =>
    inScriptTransaction(db.knex, async (transaction) => {
      const batch = WriteBatch.onScript(transaction);
      const events = flushEvents();
      batch.insertRows(
        'flush_rows',
        Array.from({ length: ROWS }, () => ({ k: String(++serial).padStart(24, '0'), v: 'x'.repeat(150) })),
      );
      if (tracked) await tracking.add(batch, events);
      await batch.send();
    });
  // Warm-up; the first tracked flush also writes the reader's route, once per process.
  for (let i = 0; i < 30; i++) await flush(true);
  const arms = { without: false, with: true } as const;
  const cpu: Record<keyof typeof arms, number[]> = { without: [], with: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order: (keyof typeof arms)[] = round % 2 === 0 ? ['without', 'with'] : ['with', 'without'];
    for (const arm of order) {
      const started = process.cpuUsage();
      for (let i = 0; i < FLUSHES; i++) await flush(arms[arm]);
      cpu[arm].push(cpuMicros(started) / FLUSHES);
    }
  }

  const added = median(cpu.with) - median(cpu.without);
  console.log(`Reader tracking, per flush of ${ROWS} reads (${POSTS} POSTs × ${READS_PER_POST}), CPU µs, medians:`);
  console.log(
    `  flush without / with the readers' records: ${median(cpu.without).toFixed(0)} / ` +
      `${median(cpu.with).toFixed(0)} (+${added.toFixed(0)})`,
  );
  console.log(`  = ${(added / ROWS).toFixed(3)} µs per read`);
  console.log('  Compare with the batched cases’ server CPU per read (npm run bench, "cpu % server").');
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

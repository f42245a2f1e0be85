/**
 * What keeping the readers' records (SPEC §16, issue 35) costs one flush of batched reads, apart
 * from everything else the flush does: `node --import tsx bench/reader-tracking-cost.ts`.
 *
 * The flush is the batched bench's: 23 POSTs of 50 distinct Zebra reads from one reader on four
 * antennas, 1,150 rows of ~180 bytes into a table of their own (standing for the inventory and
 * events), one COMMIT with `synchronous = FULL`. Measured as CPU time of the whole process (the
 * main thread and SQLite's threads, `process.cpuUsage`), so other processes on the machine move
 * the figures less than they move throughput:
 * - the main thread: `ReaderTracking.add` (fold, admit, the upserts built) and the script text;
 * - SQLite: the same flush with and without the reader statements, in ABBA order (a table that
 *   grows makes later flushes dearer, so a fixed order would favour the first arm).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../server/db/create-db';
import { execScript, withSqliteConnection } from '../server/db/sqlite-exec';
import { WriteBatch, type Write } from '../server/db/write-batch';
import { sqliteScript } from '../server/db/write-script';
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

  // The main thread's part, per flush.
  const mainThread: number[] = [];
  let readerScript = '';
  for (let i = 0; i < ROUNDS * FLUSHES; i++) {
    const events = flushEvents();
    const batch = new WriteBatch(db.knex);
    const started = process.cpuUsage();
    await tracking.add(batch, events);
    readerScript = sqliteScript((batch as unknown as { writes: Write[] }).writes) ?? '';
    mainThread.push(cpuMicros(started));
  }
  // The route is written once per process; a steady flush carries the other three statements.
  readerScript = readerScript.replace(/INSERT INTO "reader_routes"[^;]*;/, '');

  let serial = 0;
  const rows = (): string =>
    'INSERT INTO flush_rows VALUES ' +
    Array.from({ length: ROWS }, () => `('${String(++serial).padStart(24, '0')}','${'x'.repeat(150)}')`).join(',') +
    ';';
  const arms = { without: '', with: readerScript };
  const sqlite: Record<keyof typeof arms, number[]> = { without: [], with: [] };
  await withSqliteConnection(db.knex, async (connection) => {
    const flush = (extra: string) => execScript(connection, `BEGIN IMMEDIATE;${rows()}${extra}COMMIT;`);
    for (let i = 0; i < 30; i++) await flush(arms.with);
    for (let round = 0; round < ROUNDS; round++) {
      const order: (keyof typeof arms)[] = round % 2 === 0 ? ['without', 'with'] : ['with', 'without'];
      for (const arm of order) {
        const started = process.cpuUsage();
        for (let i = 0; i < FLUSHES; i++) await flush(arms[arm]);
        sqlite[arm].push(cpuMicros(started) / FLUSHES);
      }
    }
  });

  const main = median(mainThread);
  const added = median(sqlite.with) - median(sqlite.without);
  const perFlush = main + added;
  console.log(`Reader tracking, per flush of ${ROWS} reads (${POSTS} POSTs × ${READS_PER_POST}), CPU µs, medians:`);
  console.log(`  main thread (fold, admit, statements, script text): ${main.toFixed(0)}`);
  console.log(
    `  SQLite, flush without / with the reader statements: ${median(sqlite.without).toFixed(0)} / ` +
      `${median(sqlite.with).toFixed(0)} (+${added.toFixed(0)})`,
  );
  console.log(`  in all: ${perFlush.toFixed(0)} µs per flush = ${(perFlush / ROWS).toFixed(3)} µs per read`);
  console.log('  Compare with the batched cases’ server CPU per read (npm run bench, "cpu % server").');
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Which form of a flush's inventory upsert costs least (issue 37 item 2, "kept statements with
 * bound values"): `node --import tsx bench/insert-forms.ts`.
 *
 * A flush of the batched bench's shape, 1,150 new SGTIN-96 rows, upserted into `tag_inventory`
 * (the real schema) three ways, each in a group transaction of its own with its COMMIT:
 * - `literal`: the product's path, `inventoryRepo.upsert` rendered as one `INSERT … VALUES` of
 *   literals in the transaction's script (a new text each flush, parsed by SQLite each time);
 * - `json`: one kept statement (prepared once per connection) reading the rows from one JSON
 *   text bound to it, `INSERT … SELECT … FROM json_each(?)`;
 * - `bound`: one kept statement of 50 rows of `?` placeholders, run 23 times.
 * Measured as CPU time of the whole process (main thread and SQLite's threads), in rotating order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../server/db/create-db';
import { inScriptTransaction } from '../server/db/sqlite-transaction';
import { WriteBatch } from '../server/db/write-batch';
import { decodeEpc, uriListsEpc } from '../server/events/uhf';
import { inventoryRepo, type InventoryRow } from '../server/repositories/inventory.repo';
import { epcHex } from './epc-pool';

const ROWS = 1_150;
const BOUND_ROWS = 50;
const FLUSHES = 40;
const ROUNDS = 6;

const COLUMNS = [
  'endpoint_id',
  'epc',
  'epc_uri',
  'epc_uri_hash',
  'tid',
  'reader_id',
  'antenna',
  'rssi',
  'first_seen',
  'last_seen',
  'read_count',
  'counted_at',
  'counted_others',
] as const;
const UPSERT = `ON CONFLICT (endpoint_id, epc) DO UPDATE SET ${COLUMNS.slice(2)
  .map((column) => `${column} = excluded.${column}`)
  .join(', ')}`;
const JSON_SQL =
  `INSERT INTO tag_inventory (${COLUMNS.join(', ')}) SELECT ` +
  COLUMNS.map((column, i) => (column === 'epc' ? `unhex(value ->> ${i})` : `value ->> ${i}`)).join(', ') +
  ` FROM json_each(?) WHERE true ${UPSERT}`;
const BOUND_SQL =
  `INSERT INTO tag_inventory (${COLUMNS.join(', ')}) VALUES ` +
  Array.from({ length: BOUND_ROWS }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ') +
  ` ${UPSERT}`;

let serial = 0;
function flushRows(): InventoryRow[] {
  const at = Date.now();
  return Array.from({ length: ROWS }, (_, i) => {
    const epc = epcHex(serial++);
    return {
      epc,
      epcUri: decodeEpc(epc),
      tid: null,
      readerId: '84:24:8D:12:34:56',
      antenna: 1 + (i % 4),
      rssi: -55.5,
      firstSeen: at,
      lastSeen: at,
      readCount: 1,
    };
  });
}

/** A row as the kept statements take it, in `COLUMNS` order (the EPC as hex for JSON, bytes when bound). */
const values = (row: InventoryRow, epc: string | Buffer) => [
  1,
  epc,
  row.epcUri,
  null,
  row.tid,
  row.readerId,
  row.antenna,
  row.rssi,
  row.firstSeen,
  row.lastSeen,
  row.readCount,
  row.lastSeen,
  null,
];

const ARMS = {
  literal: (batch: WriteBatch, rows: InventoryRow[]) => {
    inventoryRepo.upsert(batch, 1, rows, new Map(), uriListsEpc);
    return batch.send();
  },
  json: async (batch: WriteBatch, rows: InventoryRow[]) => {
    await batch.readSql(JSON_SQL, [JSON.stringify(rows.map((row) => values(row, row.epc)))]);
  },
  bound: async (batch: WriteBatch, rows: InventoryRow[]) => {
    for (let start = 0; start < rows.length; start += BOUND_ROWS)
      await batch.readSql(
        BOUND_SQL,
        rows.slice(start, start + BOUND_ROWS).flatMap((row) => values(row, Buffer.from(row.epc, 'hex'))),
      );
  },
} as const;
type Arm = keyof typeof ARMS;

const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? NaN;

const dir = mkdtempSync(join(tmpdir(), 'gateway-insert-forms-'));
const db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') });
try {
  const flush = (arm: Arm) =>
    inScriptTransaction(db.knex, async (transaction) => {
      await ARMS[arm](WriteBatch.onScript(transaction), flushRows());
    });
  const arms = Object.keys(ARMS) as Arm[];
  for (const arm of arms) for (let i = 0; i < 5; i++) await flush(arm);
  const cpu: Record<Arm, number[]> = { literal: [], json: [], bound: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? arms : [...arms].reverse();
    for (const arm of order) {
      const started = process.cpuUsage();
      for (let i = 0; i < FLUSHES; i++) await flush(arm);
      const used = process.cpuUsage(started);
      cpu[arm].push((used.user + used.system) / FLUSHES);
    }
  }
  const [stored] = await db.knex('tag_inventory').count<{ n: number }[]>({ n: '*' });
  console.log(
    `Inventory upsert of ${ROWS} new rows per flush, CPU µs per flush (medians), ${stored?.n} rows at the end:`,
  );
  for (const arm of arms) console.log(`  ${arm.padEnd(8)} ${median(cpu[arm]).toFixed(0)}`);
} finally {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDb } from './server/db';
import { WriteBatch } from './server/db/write-batch';
import { allPrepared, withSqliteConnection } from './server/db/sqlite-exec';
import { jsonObjectsSql } from './server/db/sqlite-json-objects';
import { inventoryRepo, type InventoryRow } from './server/repositories/snapshots.repo';

const dir = mkdtempSync(join(tmpdir(), 'pg-'));
const db = await createDb({ kind: 'sqlite', filename: join(dir, 'g.db') } as never);
const epc = (n: number) => `3074257BF7194E40${n.toString(16).toUpperCase().padStart(8, '0')}`;
const entry = (n: number, t: number): InventoryRow => ({ epc: epc(n), epcUri: `urn:epc:id:sgtin:0614141.812345.${n}`, tid: null, readerId: 'bench-reader', antenna: 1 + (n % 2), rssi: -50 - (n % 20), firstSeen: t, lastSeen: t + n, readCount: 1 + (n % 4) });
{ const w = new WriteBatch(db.knex); inventoryRepo.upsert(w, 1, Array.from({ length: 5000 }, (_, n) => entry(n, 1_790_000_000_000))); await w.send(); }
const FIELDS = [
  { key: 'epc', column: 'epc', kind: 'text' }, { key: 'epcUri', column: 'epc_uri', kind: 'text' }, { key: 'tid', column: 'tid', kind: 'text' },
  { key: 'readerId', column: 'reader_id', kind: 'text' }, { key: 'antenna', column: 'antenna', kind: 'integer' }, { key: 'rssi', column: 'rssi', kind: 'real' },
  { key: 'firstSeen', column: 'first_seen', kind: 'instant' }, { key: 'lastSeen', column: 'last_seen', kind: 'instant' }, { key: 'readCount', column: 'read_count', kind: 'integer' },
] as const;
const inner = 'SELECT * FROM tag_inventory WHERE endpoint_id = ? ORDER BY last_seen DESC, epc LIMIT ?';
const textSql = jsonObjectsSql(inner, FIELDS as never, [{ column: 'last_seen', order: 'desc' }, { column: 'epc', order: 'asc' }] as never);
const blobSql = textSql.replace('SELECT group_concat(', 'SELECT CAST(group_concat(').replace(') AS objects', ') AS BLOB) AS objects');
const run = (sql: string) => withSqliteConnection(db.reads, (c) => allPrepared<{ objects: unknown }>(c, sql, [1, 101]));
const noOrder = textSql.replace(/ ORDER BY "last_seen" DESC, "epc" ASC\) AS objects/, ') AS objects');
const simpleReal = textSql.replace(/CASE WHEN "rssi" IS NULL.*? END/, `ifnull(printf('%.15g', "rssi"), 'null')`);
const rowsSql = `SELECT json_group_array(json_array(epc, epc_uri, tid, reader_id, antenna, iif(rssi IS NULL, NULL, printf('%!.17g', rssi)), first_seen, last_seen, read_count) ORDER BY last_seen DESC, epc) AS rows FROM (${inner})`;
const bare = `SELECT count(*), sum(length(epc)) FROM (${inner})`;
const fmt = '{"epc":%s,"epcUri":%s,"tid":%s,"readerId":%s,"antenna":%s,"rssi":%s,"firstSeen":%s,"lastSeen":%s,"readCount":%s}';
const realCase = /CASE WHEN "rssi" IS NULL.*? END/.exec(textSql)![0];
const args = `json_quote(epc), json_quote(epc_uri), json_quote(tid), json_quote(reader_id), ifnull(antenna, 'null'), ${realCase}, iif(first_seen IS NULL, 'null', char(1) || first_seen || char(1)), iif(last_seen IS NULL, 'null', char(1) || last_seen || char(1)), ifnull(read_count, 'null')`;
const printfSql = `SELECT group_concat(printf('${fmt}', ${args}), char(30) ORDER BY last_seen DESC, epc) AS objects, count(*) AS count FROM (${inner})`;
const printfNoOrder = `SELECT group_concat(printf('${fmt}', ${args}), char(30)) AS objects, count(*) AS count FROM (${inner})`;
const rowsOnly = `SELECT printf('${fmt}', ${args}) AS o FROM (${inner})`;
const runRows = async () => { const rows = await withSqliteConnection(db.reads, (c) => allPrepared<{ o: string }>(c, rowsOnly, [1, 101])); return rows.map((r) => r.o).join('\x1e'); };
console.log((await run(printfSql))[0]?.objects === (await run(textSql))[0]?.objects, (await runRows()) === (await run(textSql))[0]?.objects);
{
  for (let round = 0; round < 3; round++) {
    const line: string[] = [];
    for (const [name, f] of [['current', () => run(textSql)], ['printf', () => run(printfSql)], ['printfNoOrder', () => run(printfNoOrder)], ['rowsOnly', runRows]] as const) {
      const N = 500;
      const elu0 = performance.eventLoopUtilization();
      const t0 = performance.now();
      for (let i = 0; i < N; i++) await f();
      const elu = performance.eventLoopUtilization(elu0);
      line.push(`${name} ${((performance.now() - t0) * 1000 / N).toFixed(0)} (main ${(elu.active * 1000 / N).toFixed(0)})`);
    }
    console.log('µs/page sequential:', line.join(' | '));
  }
}
for (let round = 0; round < 3; round++) {
  const line: string[] = [];
  for (const [name, sql] of [['current', textSql], ['noOrder', noOrder], ['simpleReal', simpleReal], ['jsonRows', rowsSql], ['bare', bare]] as const) {
    const N = 500;
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await run(sql);
    line.push(`${name} ${((performance.now() - t0) * 1000 / N).toFixed(0)}`);
  }
  console.log('µs/page sequential:', line.join(' | '));
}
await db.close();

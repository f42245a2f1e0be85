import knexFactory from 'knex';
import sqlite3 from 'sqlite3';
const file = '/tmp/gwb/c.db';
const k = knexFactory({ client: 'sqlite3', connection: { filename: file }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
await k.raw('PRAGMA journal_mode=WAL'); await k.raw('PRAGMA synchronous=FULL');
await k.schema.dropTableIfExists('t'); await k.schema.createTable('t', (t) => { t.string('id').primary(); t.text('v'); });
const N = 300;
let t = performance.now();
for (let i = 0; i < N; i++) await k.transaction(async (trx) => { await trx('t').insert({ id: 'w' + i, v: 'x'.repeat(400) }); });
console.log('knex trx+insert+commit ms', ((performance.now() - t) / N).toFixed(2));
await k.destroy();
const db = new sqlite3.Database(file);
const run = (sql: string, p: unknown[] = []) => new Promise<void>((res, rej) => db.run(sql, p, (e) => (e ? rej(e) : res())));
await run('PRAGMA synchronous=FULL');
t = performance.now();
for (let i = 0; i < N; i++) { await run('BEGIN'); await run('insert into t values (?, ?)', ['r' + i, 'x'.repeat(400)]); await run('COMMIT'); }
console.log('raw begin+insert+commit ms', ((performance.now() - t) / N).toFixed(2));
t = performance.now();
for (let i = 0; i < N; i++) { await run('BEGIN'); await run('insert into t values (?, ?)', ['s' + i, 'x'.repeat(400)]); await run('ROLLBACK'); }
console.log('raw begin+insert+rollback ms', ((performance.now() - t) / N).toFixed(2));
await run('PRAGMA synchronous=NORMAL');
t = performance.now();
for (let i = 0; i < N; i++) { await run('BEGIN'); await run('insert into t values (?, ?)', ['n' + i, 'x'.repeat(400)]); await run('COMMIT'); }
console.log('raw commit synchronous=NORMAL ms', ((performance.now() - t) / N).toFixed(2));
db.close();

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { withSqliteConnection, type SqliteConnection } from '../../server/db/sqlite-exec';
import { ConcurrentWrite, inScriptTransaction } from '../../server/db/sqlite-transaction';
import { WriteBatch } from '../../server/db/write-batch';

let dir: string;
let db: Db;
/** A second connection to the same file: what another reader sees while a transaction is open. */
let other: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-script-tx-'));
  db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') }, { migrate: false });
  other = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') }, { migrate: false });
  await db.knex.schema.createTable('st', (t) => {
    t.integer('k').primary();
    t.text('v');
    t.binary('b');
  });
});

afterAll(async () => {
  await other.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await db.knex('st').del();
});

const rows = async (from: Db = db) => await from.knex('st').orderBy('k').select<{ k: number; v: string }[]>('k', 'v');

describe('SQLite script transaction', () => {
  it('queues sent writes until the next read or the commit, and reads inside the transaction', async () => {
    await inScriptTransaction(db.knex, async (transaction) => {
      const writes = WriteBatch.onScript(transaction);
      writes.insertRows('st', [{ k: 1, v: "it's" }]);
      await writes.send();
      expect(transaction.queued).toBe(1);
      // Queued, not yet run: another connection sees nothing, not even a write lock taken.
      expect(await rows(other)).toEqual([]);
      const seen = await writes.read<{ k: number }>(writes.sql('st').select('k'));
      expect(seen).toEqual([{ k: 1 }]);
      writes.add(writes.sql('st').where({ k: 1 }).update({ v: 'changed' }));
      writes.insertRows('st', [{ k: 2, v: '?' }]);
      await writes.send();
      // Run but not committed: still invisible to the other connection.
      expect(await rows(other)).toEqual([]);
    });
    expect(await rows(other)).toEqual([
      { k: 1, v: 'changed' },
      { k: 2, v: '?' },
    ]);
  });

  it('rolls everything back when the work throws, and leaves the connection usable', async () => {
    await expect(
      inScriptTransaction(db.knex, async (transaction) => {
        const writes = WriteBatch.onScript(transaction);
        writes.insertRows('st', [{ k: 1, v: 'a' }]);
        await writes.send();
        await writes.read(writes.sql('st').select('k'));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await rows()).toEqual([]);
    // No transaction was left open on the pool's one connection.
    await db.knex.transaction((trx) => trx('st').insert({ k: 3, v: 'c' }));
    expect(await rows()).toEqual([{ k: 3, v: 'c' }]);
  });

  it('rolls back when a queued write fails at the commit', async () => {
    await db.knex('st').insert({ k: 1, v: 'there' });
    await expect(
      inScriptTransaction(db.knex, async (transaction) => {
        const writes = WriteBatch.onScript(transaction);
        writes.insertRows('st', [{ k: 2, v: 'new' }]);
        writes.insertRows('st', [{ k: 1, v: 'duplicate' }]);
        await writes.send();
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(await rows()).toEqual([{ k: 1, v: 'there' }]);
  });

  it('sends values without a literal as bound statements, in order', async () => {
    await inScriptTransaction(db.knex, async (transaction) => {
      const writes = WriteBatch.onScript(transaction);
      writes.add(writes.sql('st').insert({ k: 1, v: 'first', b: Buffer.from([0, 1, 2]) }));
      writes.add(writes.sql('st').where({ k: 1 }).update({ v: 'second' }));
      await writes.send();
    });
    expect(await db.knex('st').select('k', 'v', 'b')).toEqual([{ k: 1, v: 'second', b: Buffer.from([0, 1, 2]) }]);
  });

  it('refuses to write after its reads when another connection committed in between, then recovers', async () => {
    await db.knex('st').insert({ k: 1, v: 'a' });
    const increment = (between?: () => Promise<unknown>) =>
      inScriptTransaction(db.knex, async (transaction) => {
        const writes = WriteBatch.onScript(transaction);
        const [row] = await writes.read<{ v: string }>(writes.sql('st').where({ k: 1 }).select('v'));
        await between?.();
        writes.add(
          writes
            .sql('st')
            .where({ k: 1 })
            .update({ v: `${row?.v ?? ''}+1` }),
        );
        await writes.send();
      });
    await increment();
    expect(await rows()).toEqual([{ k: 1, v: 'a+1' }]);
    // The read ran before BEGIN; a write by another connection lands before ours would.
    const lateWrite = increment(() => other.knex('st').where({ k: 1 }).update({ v: 'elsewhere' }));
    await expect(lateWrite).rejects.toBeInstanceOf(ConcurrentWrite);
    expect(await rows()).toEqual([{ k: 1, v: 'elsewhere' }]);
    await increment();
    expect(await rows()).toEqual([{ k: 1, v: 'elsewhere+1' }]);
  });

  it('takes no write lock for a transaction that only reads', async () => {
    await inScriptTransaction(db.knex, async (transaction) => {
      const writes = WriteBatch.onScript(transaction);
      await writes.read(writes.sql('st').select('k'));
      // Another connection can write meanwhile: nothing holds the lock.
      await other.knex('st').insert({ k: 9, v: 'other' });
    });
    expect(await rows()).toEqual([{ k: 9, v: 'other' }]);
  });

  it('never runs a statement through its builder: that fails at once instead of waiting for the pool', async () => {
    await inScriptTransaction(db.knex, async (transaction) => {
      await expect(transaction.sql('st').select('k')).rejects.toThrow(/acquire a connection/);
    });
  });

  it('prepares a fixed read once per connection, and the database still closes cleanly', async () => {
    const file = join(dir, 'prepared.db');
    const own = await createDb({ kind: 'sqlite', filename: file }, { migrate: false });
    await own.knex.schema.createTable('p', (t) => t.integer('k'));
    await own.knex('p').insert([{ k: 1 }, { k: 2 }, { k: 3 }]);
    const sql = 'SELECT k FROM p WHERE k IN (SELECT value FROM json_each(?)) ORDER BY k';
    let prepared = 0;
    await withSqliteConnection(own.knex, (connection: SqliteConnection) => {
      const prepare = connection.prepare.bind(connection);
      connection.prepare = (text, callback) => {
        if (text === sql) prepared += 1;
        return prepare(text, callback);
      };
      return Promise.resolve();
    });
    for (const wanted of [[1, 3], [2], []]) {
      const found = await inScriptTransaction(own.knex, (transaction) =>
        WriteBatch.onScript(transaction).readSql<{ k: number }>(sql, [JSON.stringify(wanted)]),
      );
      expect(found.map((row) => row.k)).toEqual(wanted);
    }
    expect(prepared).toBe(1);
    await own.close();
    // SQLite removes the WAL file only when the last connection closed without error (a kept
    // statement that was not finalized makes the close fail).
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});

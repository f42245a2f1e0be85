import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { withSqliteConnection, type SqliteConnection } from '../../server/db/sqlite-exec';
import { readUnlessUnchanged } from '../../server/db/sqlite-read-cache';

let dir: string;
let db: Db;

const SUM = "SELECT count(*) || ':' || ifnull(sum(n), 0) FROM numbers WHERE n >= ?";

/** Reads SUM through the cache, counting how often the answer was decoded (read afresh). */
function reader(connection: SqliteConnection) {
  let decoded = 0;
  const read = (from = 0, decodeKey = '') =>
    readUnlessUnchanged(
      connection,
      SUM,
      [from],
      (text) => {
        decoded++;
        return { text };
      },
      decodeKey,
    );
  return { read, decoded: () => decoded };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-read-cache-'));
  db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') });
  await db.knex.schema.createTable('numbers', (t) => t.integer('n'));
});

beforeEach(async () => {
  await db.knex('numbers').del();
  await db.knex('numbers').insert([{ n: 1 }, { n: 2 }]);
});

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('readUnlessUnchanged', () => {
  it('gives a read-only connection its kept answer while nothing commits, and reads afresh after a commit', async () => {
    await withSqliteConnection(db.reads, async (connection) => {
      const { read, decoded } = reader(connection);
      const first = await read();
      expect(first.text).toBe('2:3');
      expect(await read()).toBe(first);
      expect(decoded()).toBe(1);

      await db.knex('numbers').insert({ n: 4 }); // the writer: another connection
      expect((await read()).text).toBe('3:7');
      expect(decoded()).toBe(2);
      expect((await read()).text).toBe('3:7');
      expect(decoded()).toBe(2);
    });
  });

  it('sees a commit by another process’s connection (a second database handle on the file)', async () => {
    const other = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') }, { migrate: false });
    try {
      await withSqliteConnection(db.reads, async (connection) => {
        const { read } = reader(connection);
        expect((await read()).text).toBe('2:3');
        await other.knex('numbers').where('n', 1).del();
        expect((await read()).text).toBe('1:2');
      });
    } finally {
      await other.close();
    }
  });

  it('keeps nothing on a connection that writes: its own commits would not move its data_version', async () => {
    await withSqliteConnection(db.knex, async (connection) => {
      const { read, decoded } = reader(connection);
      expect((await read()).text).toBe('2:3');
      expect((await read()).text).toBe('2:3');
      expect(decoded()).toBe(2);
    });
    // The same connection writes between two reads (the writer pool has one connection).
    await withSqliteConnection(db.knex, async (connection) => {
      const { read } = reader(connection);
      await new Promise<void>((resolve, reject) =>
        connection.run('INSERT INTO numbers (n) VALUES (10)', (error) => (error ? reject(error) : resolve())),
      );
      expect((await read()).text).toBe('3:13');
    });
  });

  it('keeps answers apart by bindings and decode key, and keeps a bounded number of them', async () => {
    await withSqliteConnection(db.reads, async (connection) => {
      const { read, decoded } = reader(connection);
      expect((await read(0)).text).toBe('2:3');
      expect((await read(2)).text).toBe('1:2');
      const other = await read(2, 'other decoding');
      expect(other.text).toBe('1:2');
      expect(decoded()).toBe(3);
      await read(0);
      await read(2);
      expect(decoded()).toBe(3);

      // 40 other statements later, the least recently used answers are gone; a recent one is kept.
      for (let from = 100; from < 140; from++) await read(from);
      const before = decoded();
      await read(139);
      expect(decoded()).toBe(before);
      await read(0);
      expect(decoded()).toBe(before + 1);
    });
  });
});

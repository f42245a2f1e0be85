import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { allPrepared, withSqliteConnection } from '../../server/db/sqlite-exec';

let dir: string;
let db: Db;

// `LIMIT ?` is what makes SQLite compile a statement again whenever values are bound to it.
const FIRST_FROM = 'SELECT n FROM numbers WHERE n >= ? ORDER BY n LIMIT ?';
const values = (rows: { n: number }[]) => rows.map((row) => row.n);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-prepared-'));
  db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') });
  await db.knex.schema.createTable('numbers', (t) => t.integer('n'));
  await db.knex('numbers').insert([1, 2, 3, 4, 5].map((n) => ({ n })));
});

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('allPrepared', () => {
  it('answers each call with its own values, whether they repeat, alternate or overlap in flight', async () => {
    await withSqliteConnection(db.reads, async (connection) => {
      const read = async (from: number, limit: number) =>
        values(await allPrepared<{ n: number }>(connection, FIRST_FROM, [from, limit]));
      expect(await read(2, 2)).toEqual([2, 3]);
      expect(await read(2, 2)).toEqual([2, 3]);
      expect(await read(4, 2)).toEqual([4, 5]);
      expect(await read(2, 2)).toEqual([2, 3]);
      const calls: [number, number][] = [
        [1, 1],
        [1, 1],
        [3, 5],
        [3, 5],
        [1, 1],
        [5, 1],
        [5, 1],
        [2, 3],
      ];
      const answers = await Promise.all(calls.map(([from, limit]) => read(from, limit)));
      expect(answers).toEqual([[1], [1], [3, 4, 5], [3, 4, 5], [1], [5], [5], [2, 3, 4]]);
    });
  });

  it('sees what was committed between two calls with the same values', async () => {
    await withSqliteConnection(db.reads, async (connection) => {
      const read = async () => values(await allPrepared<{ n: number }>(connection, FIRST_FROM, [0, 2]));
      expect(await read()).toEqual([1, 2]);
      await db.knex('numbers').insert({ n: 0 });
      expect(await read()).toEqual([0, 1]);
      await db.knex('numbers').where({ n: 0 }).del();
    });
  });

  it('fails the calls that counted on a binding that failed, instead of running them with what it left bound', async () => {
    await withSqliteConnection(db.reads, async (connection) => {
      expect(values(await allPrepared<{ n: number }>(connection, FIRST_FROM, [3, 1]))).toEqual([3]);
      // Three values for two placeholders: binding fails after the first two were bound.
      const tooMany = [4, 1, 9];
      const [first, second] = await Promise.allSettled([
        allPrepared(connection, FIRST_FROM, tooMany),
        allPrepared(connection, FIRST_FROM, tooMany),
      ]);
      expect(first.status).toBe('rejected');
      expect(second.status).toBe('rejected');
      expect(String((second as PromiseRejectedResult).reason)).toMatch(/SQLITE_RANGE/);
      expect(values(await allPrepared<{ n: number }>(connection, FIRST_FROM, [4, 1]))).toEqual([4]);
    });
  });
});

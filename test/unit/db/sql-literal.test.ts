import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../../server/db';
import {
  boundValue,
  inlineBindings,
  postgresLiteral,
  SqlBytes,
  sqliteLiteral,
  valuesInsert,
} from '../../../server/db/sql-literal';

const sqliteValuesInsert = valuesInsert.bind(null, sqliteLiteral);
const sqliteInline = (sql: string, bindings: readonly unknown[]) => inlineBindings(sqliteLiteral, sql, bindings);

describe('sqliteLiteral', () => {
  it('renders numbers, booleans and missing values', () => {
    expect(sqliteLiteral(42)).toBe('42');
    // Negative numbers in parentheses: `a-?` must not become the comment `a--1.5`.
    expect(sqliteLiteral(-1.5)).toBe('(-1.5)');
    expect(sqliteLiteral(true)).toBe('1');
    expect(sqliteLiteral(false)).toBe('0');
    expect(sqliteLiteral(null)).toBe('NULL');
    expect(sqliteLiteral(undefined)).toBe('NULL');
  });

  it('refuses what SQLite cannot hold as a number', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => sqliteLiteral(value)).toThrow(TypeError);
    }
  });

  it('doubles quotes and writes NUL-bearing strings as hex', () => {
    expect(sqliteLiteral("it's")).toBe("'it''s'");
    expect(sqliteLiteral('a\0b')).toBe("CAST(X'610062' AS TEXT)");
  });

  it('writes bytes as a BLOB literal, and PostgreSQL as bytea; bound, they are a Buffer', () => {
    expect(sqliteLiteral(new SqlBytes('00AAff'))).toBe("X'00AAff'");
    expect(sqliteLiteral(new SqlBytes(''))).toBe("X''");
    expect(postgresLiteral(new SqlBytes('00AAff'))).toBe("'\\x00AAff'::bytea");
    expect(boundValue(new SqlBytes('00AAff'))).toEqual(Buffer.from([0, 0xaa, 0xff]));
    expect(boundValue('00AAff')).toBe('00AAff');
  });

  it('refuses bytes whose text is not whole bytes of hex: nothing else reaches the SQL', () => {
    for (const hex of ["AA'); DROP TABLE t; --", 'ABC', 'GG', ' AA', 'AA\n']) {
      expect(() => sqliteLiteral(new SqlBytes(hex))).toThrow(TypeError);
      expect(() => postgresLiteral(new SqlBytes(hex))).toThrow(TypeError);
      expect(() => boundValue(new SqlBytes(hex))).toThrow(TypeError);
    }
  });
});

describe('sqliteValuesInsert', () => {
  it('merges every inserted column but the conflict columns, which are equal already', () => {
    const sql = sqliteValuesInsert('t', ['a', 'b', 'c'], [{ a: 1, b: 'x', c: null }], {
      columns: ['a', 'b'],
      then: 'merge',
    });
    expect(sql).toBe(
      `INSERT INTO "t" ("a","b","c") VALUES (1,'x',NULL) ON CONFLICT ("a","b") DO UPDATE SET "c" = excluded."c"`,
    );
  });

  it('does nothing on conflict when only conflict columns are inserted, or when told to ignore', () => {
    const merge = sqliteValuesInsert('t', ['a'], [{ a: 1 }], { columns: ['a'], then: 'merge' });
    expect(merge).toBe(`INSERT INTO "t" ("a") VALUES (1) ON CONFLICT ("a") DO NOTHING`);
    const ignore = sqliteValuesInsert('t', ['a', 'b'], [{ a: 1, b: 2 }], { columns: ['a'], then: 'ignore' });
    expect(ignore).toBe(`INSERT INTO "t" ("a","b") VALUES (1,2) ON CONFLICT ("a") DO NOTHING`);
  });
});

describe('sqliteInline', () => {
  it('replaces placeholders in order', () => {
    expect(sqliteInline('insert into `t` (`a`, `b`) values (?, ?)', [1, "x'y"])).toBe(
      "insert into `t` (`a`, `b`) values (1, 'x''y')",
    );
  });

  it('leaves question marks inside quoted text alone', () => {
    expect(sqliteInline("select '?', \"?\", `?`, 'it''s ?', ?", [7])).toBe("select '?', \"?\", `?`, 'it''s ?', 7");
  });

  it('refuses a count mismatch and values without a literal form', () => {
    expect(() => sqliteInline('select ?, ?', [1])).toThrow(TypeError);
    expect(() => sqliteInline('select ?', [1, 2])).toThrow(TypeError);
    expect(() => sqliteInline('select ?', [new Date(0)])).toThrow(TypeError);
    expect(() => sqliteInline('select ?', [new Uint8Array([1])])).toThrow(TypeError);
  });
});

describe('literals round-trip through SQLite unchanged', () => {
  let dir: string;
  let db: Db;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-literal-'));
    db = await createDb({ kind: 'sqlite', filename: join(dir, 'literal.db') }, { migrate: false });
    await db.knex.raw('CREATE TABLE t (k INTEGER, v TEXT, n REAL, b BLOB)');
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Every value an attacker or a reader could send in a body, principal or header.
  const hostile = [
    "'); DROP TABLE t; --",
    "''''",
    "back\\slash \\' mixed",
    'line\nbreak\r\ttab',
    'nul \0 inside',
    '\0',
    'ünïcödé ✓ 𝄞 emoji 🚀',
    '"double" `back` [brackets]',
    "X'41'",
    '',
    ' '.repeat(3),
    "ends with quote'",
  ];

  it('stores each string, and its bytes, exactly as bound parameters would', async () => {
    const rows = hostile.map((v, k) => ({ k, v, n: k / 4, b: new SqlBytes(Buffer.from(v).toString('hex')) }));
    const connection = (await db.knex.client.acquireConnection()) as {
      exec(sql: string, cb: (error: Error | null) => void): void;
    };
    try {
      await new Promise<void>((resolve, reject) =>
        connection.exec(sqliteValuesInsert('t', ['k', 'v', 'n', 'b'], rows), (error) =>
          error ? reject(error) : resolve(),
        ),
      );
    } finally {
      await db.knex.client.releaseConnection(connection);
    }
    const stored = (await db.knex('t').orderBy('k')) as { k: number; v: string; n: number; b: Buffer }[];
    expect(stored).toEqual(rows.map((row) => ({ ...row, b: Buffer.from(row.v) })));
    // The table is still there: nothing in a value ran as SQL.
    expect(await db.knex('t').count({ c: '*' })).toEqual([{ c: hostile.length }]);
  });
});

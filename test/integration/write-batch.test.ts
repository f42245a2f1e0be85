import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { SqlBytes, SqlUtf8 } from '../../server/db/sql-literal';
import { inScriptTransaction } from '../../server/db/sqlite-transaction';
import { WriteBatch } from '../../server/db/write-batch';
import { TEXT_PIECE_BYTES } from '../../server/db/text-pieces';
import { testDatabase } from '../helpers/test-gateway';
import * as textPieces from '../../migrations/20261205090000_text_pieces';

let dir: string;
let db: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-writes-'));
  db = await createDb(await testDatabase(dir), { migrate: false });
  await textPieces.up(db.knex);
  await db.knex.schema.createTable('wb', (t) => {
    t.integer('k').primary();
    t.text('v');
  });
  await db.knex.schema.createTable('wb_bytes', (t) => {
    t.integer('k').primary();
    t.binary('b');
  });
});

afterAll(async () => {
  await db.knex.schema.dropTableIfExists('wb');
  await db.knex.schema.dropTableIfExists('wb_bytes');
  await textPieces.down(db.knex);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await db.knex('wb').del();
});

const rows = async () => (await db.knex('wb').orderBy('k')) as { k: number; v: string | null }[];

describe('WriteBatch', () => {
  it('runs nothing until sent, then every write in order', async () => {
    await db.knex.transaction(async (trx) => {
      const writes = new WriteBatch(trx);
      writes.add(
        trx('wb').insert([
          { k: 1, v: "it's" },
          { k: 2, v: '?' },
        ]),
      );
      writes.add(trx('wb').insert({ k: 3, v: null }).onConflict('k').merge());
      writes.add(trx('wb').where({ k: 1 }).update({ v: 'changed' }));
      expect(await trx('wb').count({ c: '*' })).toEqual([{ c: 0 }]);
      await writes.send();
      // Sent writes are part of the transaction: visible to its own reads.
      expect(await trx('wb').count({ c: '*' })).toEqual([{ c: 3 }]);
    });
    expect(await rows()).toEqual([
      { k: 1, v: 'changed' },
      { k: 2, v: '?' },
      { k: 3, v: null },
    ]);
  });

  it('rolls back with its transaction', async () => {
    await expect(
      db.knex.transaction(async (trx) => {
        const writes = new WriteBatch(trx);
        writes.add(trx('wb').insert({ k: 1, v: 'a' }));
        await writes.send();
        throw new Error('abandon');
      }),
    ).rejects.toThrow('abandon');
    expect(await rows()).toEqual([]);
  });

  it('fails when a write fails, leaving nothing of the batch after rollback', async () => {
    await expect(
      db.knex.transaction(async (trx) => {
        const writes = new WriteBatch(trx);
        writes.add(trx('wb').insert({ k: 1, v: 'a' }), trx('wb').insert({ k: 1, v: 'duplicate' }));
        await writes.send();
      }),
    ).rejects.toThrow();
    expect(await rows()).toEqual([]);
  });

  it('binds values that have no literal form instead of inlining them', async () => {
    const writes = new WriteBatch(db.knex);
    writes.add(db.knex('wb').insert({ k: 1, v: new Date(0) as unknown as string }));
    writes.add(db.knex('wb').insert({ k: 2, v: 'text' }));
    await writes.send();
    expect((await rows()).map((row) => row.k)).toEqual([1, 2]);
  });

  it('inserts rows, merging or ignoring on conflict, a missing column as NULL', async () => {
    await db.knex('wb').insert([
      { k: 1, v: 'old' },
      { k: 2, v: 'kept' },
    ]);
    const writes = new WriteBatch(db.knex);
    writes.insertRows('wb', [{ k: 1, v: 'new' }, { k: 3 }], { columns: ['k'], then: 'merge' });
    writes.insertRows('wb', [{ k: 2, v: 'ignored' }], { columns: ['k'], then: 'ignore' });
    await writes.send();
    expect(await rows()).toEqual([
      { k: 1, v: 'new' },
      { k: 2, v: 'kept' },
      { k: 3, v: null },
    ]);
  });

  it('stores bytes exactly, in a script and bound through Knex', async () => {
    const hex = ['', '00', '00FF10', 'DEADbeef'.repeat(31)];
    const script = new WriteBatch(db.knex);
    script.insertRows(
      'wb_bytes',
      hex.map((h, k) => ({ k, b: new SqlBytes(h) })),
    );
    await script.send();
    // A value with no literal form sends the whole batch through Knex, bytes bound as a Buffer.
    const bound = new WriteBatch(db.knex);
    bound.add(db.knex('wb').insert({ k: 1, v: new Date(0) as unknown as string }));
    bound.insertRows(
      'wb_bytes',
      hex.map((h, k) => ({ k: 100 + k, b: new SqlBytes(h) })),
    );
    await bound.send();
    const stored = (await db.knex('wb_bytes').orderBy('k')) as { k: number; b: Buffer }[];
    expect(stored.map((row) => row.b.toString('hex').toUpperCase())).toEqual(
      [...hex, ...hex].map((h) => h.toUpperCase()),
    );
  });

  it('inserts more rows than one statement binds', async () => {
    const writes = new WriteBatch(db.knex);
    writes.insertRows(
      'wb',
      Array.from({ length: 1_234 }, (_, k) => ({ k, v: `row ${k}` })),
    );
    await writes.send();
    expect(await db.knex('wb').count({ c: '*' })).toEqual([{ c: 1_234 }]);
  });

  it('stores hostile text exactly', async () => {
    // PostgreSQL text cannot hold NUL at all; SQLite can, and gets it.
    const nul = db.kind === 'sqlite' ? ['nul \0 inside'] : [];
    const hostile = [
      "'); DROP TABLE wb; --",
      ...nul,
      '`?` "?" \'?\'',
      'ünï 🚀',
      "back\\slash \\' still inside",
      '$$ dollar $tag$ /* not a comment */ -- nor this',
    ];
    const writes = new WriteBatch(db.knex);
    writes.add(db.knex('wb').insert(hostile.map((v, k) => ({ k, v }))));
    writes.insertRows(
      'wb',
      hostile.map((v, k) => ({ k: 100 + k, v })),
    );
    await writes.send();
    const stored = (await rows()).map((row) => row.v);
    expect(stored).toEqual([...hostile, ...hostile]);
  });

  it('stores a long text given as bytes exactly, sent in pieces cut inside characters, and drops the pieces', async () => {
    // 2.5 pieces of two-, three- and four-byte characters: every piece boundary falls inside one.
    const unit = 'é€🚀a';
    const long = unit.repeat(Math.ceil((TEXT_PIECE_BYTES * 2.5) / Buffer.byteLength(unit)));
    const value = () => new SqlUtf8(Buffer.from(long, 'utf8'));
    expect(Buffer.byteLength(long) % TEXT_PIECE_BYTES).not.toBe(0);
    // Alone on the pool, then in a transaction beside other rows, then (SQLite) on a script transaction.
    const alone = new WriteBatch(db.knex);
    alone.insertRows('wb', [{ k: 1, v: value() }]);
    await alone.send();
    await db.knex.transaction(async (trx) => {
      const writes = new WriteBatch(trx);
      writes.insertRows('wb', [
        { k: 2, v: 'short' },
        { k: 3, v: value() },
        { k: 4, v: new SqlUtf8(Buffer.from('short bytes')) },
      ]);
      await writes.send();
      // The pieces were deleted with the row that took them in.
      expect(await trx('text_pieces').count({ n: '*' })).toEqual([{ n: 0 }]);
    });
    if (db.kind === 'sqlite') {
      await inScriptTransaction(db.knex, async (transaction) => {
        const writes = WriteBatch.onScript(transaction);
        writes.insertRows('wb', [{ k: 5, v: value() }]);
        await writes.send();
      });
    }
    const stored = await rows();
    expect(stored.map((row) => row.k)).toEqual(db.kind === 'sqlite' ? [1, 2, 3, 4, 5] : [1, 2, 3, 4]);
    for (const row of stored.filter((r) => r.k !== 2 && r.k !== 4)) expect(row.v === long).toBe(true);
    expect(stored.find((row) => row.k === 4)?.v).toBe('short bytes');
    // Stored as text, not as a blob that happens to hold the bytes.
    const typeOf = db.kind === 'sqlite' ? 'typeof(v)' : 'pg_typeof(v)::text';
    const types = await db.knex('wb').select<{ t: string }[]>(db.knex.raw(`${typeOf} AS t`));
    expect(new Set(types.map((row) => row.t))).toEqual(new Set(['text']));
  });

  it('inlines a negative number so that it cannot start a comment', async () => {
    await db.knex('wb').insert([{ k: 1, v: 'a' }]);
    const writes = new WriteBatch(db.knex);
    // `k-?` with -100 must read k-(-100), not `k--100` (a comment, leaving `k`).
    writes.add(db.knex('wb').update({ k: db.knex.raw('k-?', [-100]) }));
    await writes.send();
    expect(await rows()).toEqual([{ k: 101, v: 'a' }]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { sqliteObjectsViaJson, type JsonField } from '../../server/db/sqlite-json-objects';

let dir: string;
let db: Db;

type Column = 'n' | 'x' | 'label' | 'at';
const FIELDS: JsonField<Column>[] = [
  { key: 'n', column: 'n', kind: 'integer' },
  { key: 'value', column: 'x', kind: 'real' },
  { key: 'label', column: 'label', kind: 'text' },
  { key: 'at', column: 'at', kind: 'instant' },
];
const BY_N = [{ column: 'n', order: 'asc' }] as const;

/** Stores these REALs (bound, so every bit is kept) and reads them back through `jsonObjectsSql`. */
async function roundTrip(values: (number | null)[]): Promise<{ text: string; parsed: { value: number | null }[] }> {
  await db.knex('reals').del();
  for (let i = 0; i < values.length; i += 400)
    await db.knex('reals').insert(values.slice(i, i + 400).map((x, j) => ({ n: i + j, x, label: null, at: null })));
  const { json } = await sqliteObjectsViaJson(
    db.knex,
    db.knex('reals').select('n', 'x', 'label', 'at'),
    FIELDS,
    BY_N,
    values.length,
  );
  return { text: json, parsed: JSON.parse(json) as { value: number | null }[] };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-json-objects-'));
  db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') });
  await db.knex.schema.createTable('reals', (t) => {
    t.integer('n').primary();
    t.double('x').nullable();
    t.text('label').nullable();
    t.bigInteger('at').nullable();
  });
});

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('jsonObjectsSql on SQLite', () => {
  it('writes REALs exactly as JSON.stringify does, across magnitudes and digit counts', async () => {
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff) * (1 + 1e-9);
    const values = [
      ...Array.from({ length: 1500 }, () => -120 + random() * 140), // RSSI-like, 15-17 digits
      ...Array.from({ length: 500 }, (_, i) => (random() - 0.5) * 10 ** ((i % 25) - 7)), // 1e-7 … 1e17
      ...[-50, -50.5, -55.3, 0.1 + 0.2, 1 / 3, -57.90476190476191, 2 ** 52 + 0.5, 123456789012345, 764403468064668.25],
      // Exactly halfway between two 16-digit texts that both give it back: JS takes the even one.
      ...[9 + 1 / 65536, -90 + 1 / 32768],
      null,
    ];
    const { text } = await roundTrip(values);
    const expected = JSON.stringify(values.map((value, n) => ({ n, value, label: null, at: null })));
    // Compared object by object, so a failure names the few values that differ.
    const differing = (json: string) =>
      json
        .slice(1, -1)
        .split('},{')
        .filter((o, i) => o !== expected.slice(1, -1).split('},{')[i]);
    expect(differing(text)).toEqual([]);
    expect(text).toBe(expected);
  });

  it('writes values outside plain decimals, and -0, as JSON.stringify does too', async () => {
    const values = [1e-7, 1.5e-5, -1e-4, 1e21, 1e15 + 1, 5e-324, Number.MAX_VALUE, -Number.MIN_VALUE, 2 ** 53 + 2, -0];
    const { text, parsed } = await roundTrip(values);
    expect(text).toBe(JSON.stringify(values.map((value, n) => ({ n, value, label: null, at: null }))));
    expect(parsed.map((row) => row.value)).toEqual(values.map((x) => (Object.is(x, -0) ? 0 : x)));
  });

  it('escapes text as JSON and turns instants into ISO 8601; keeps the asked number of objects', async () => {
    await db.knex('reals').del();
    const labels = ['"quoted" \\ / \u0000 \u0008 \u001f \u2028 😀', '', 'ünïcødé'];
    await db.knex('reals').insert(labels.map((label, n) => ({ n, x: null, label, at: 1_700_000_000_123 + n })));
    const query = () => db.knex('reals').select('n', 'x', 'label', 'at');
    const expected = labels.map((label, n) => ({
      n,
      value: null,
      label,
      at: new Date(1_700_000_000_123 + n).toISOString(),
    }));
    const all = await sqliteObjectsViaJson(db.knex, query(), FIELDS, BY_N, 3);
    expect(JSON.parse(all.json)).toEqual(expected);
    expect(all).toMatchObject({ more: false, last: expected[2] });
    const two = await sqliteObjectsViaJson(db.knex, query(), FIELDS, BY_N, 2);
    expect(JSON.parse(two.json)).toEqual(expected.slice(0, 2));
    expect(two).toMatchObject({ more: true, last: expected[1] });
    expect(await sqliteObjectsViaJson(db.knex, query(), FIELDS, BY_N, 0)).toEqual({
      json: '[]',
      last: undefined,
      more: true,
    });
    await db.knex('reals').del();
    expect(await sqliteObjectsViaJson(db.knex, query(), FIELDS, BY_N, 5)).toEqual({
      json: '[]',
      last: undefined,
      more: false,
    });
  });
});

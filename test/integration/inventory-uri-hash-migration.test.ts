import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/db';
import { migrationSource } from '../../server/db/migration-source';
import { WriteBatch } from '../../server/db/write-batch';
import { decodeEpc, epcUriFilter, uriListsEpc } from '../../server/events/uhf';
import { inventoryRepo, type InventoryRow } from '../../server/repositories/inventory.repo';
import { useTestDatabase } from '../helpers/test-gateway';

/**
 * The URI hash index holds only hashed rows (issue 37; decision 0415): rows written before keep
 * their hash and are found by it (once, though their URI lists them too), rows written after
 * carry none where their URI lists them, and `down` hashes every row again.
 */
let db: Db;
const migration = { migrationSource, tableName: 'knex_migrations', name: '20261204090000_inventory_uri_hash_partial' };
const postgres = process.env.GATEWAY_TEST_DATABASE === 'postgres';

const tag = (epc: string, lastSeen: number): InventoryRow => ({
  epc,
  epcUri: decodeEpc(epc),
  tid: null,
  readerId: 'dock 1',
  antenna: 1,
  rssi: null,
  firstSeen: lastSeen,
  lastSeen,
  readCount: 1,
});
const sgtin = 'urn:epc:id:sgtin:0614141.812345.6789';
// Before: an SGTIN-96 and an SSCC. After: the same SGTIN with another filter value, a raw EPC.
const before = [tag('3074257BF7194E4000001A85', 1_000), tag('3174257BF4499602D2000000', 2_000)];
const after = [tag('3034257BF7194E4000001A85', 3_000), tag('E2801160600002084E3B2F1F', 4_000)];

async function write(rows: InventoryRow[], listed: (epc: string, uri: string) => boolean): Promise<void> {
  const writes = new WriteBatch(db.knex);
  inventoryRepo.upsert(writes, 1, rows, new Map(), listed);
  await writes.send();
}

/** Each stored row's URI hash by EPC. */
async function hashes(): Promise<Map<string, number | null>> {
  const hex = postgres ? "upper(encode(epc, 'hex'))" : 'hex(epc)';
  const rows = await db
    .knex('tag_inventory')
    .select<{ epc: string; h: unknown }[]>(db.knex.raw(`${hex} as epc`), 'epc_uri_hash as h');
  return new Map(rows.map((row) => [row.epc, row.h === null ? null : Number(row.h)]));
}

async function indexDefinition(): Promise<string> {
  const rows = postgres
    ? await db
        .knex('pg_indexes')
        .where('indexname', 'tag_inventory_uri_hash_idx')
        .select<{ d: string }[]>('indexdef as d')
    : await db.knex('sqlite_master').where('name', 'tag_inventory_uri_hash_idx').select<{ d: string }[]>('sql as d');
  return rows[0]?.d ?? '';
}

const byUri = (uri: string) => inventoryRepo.page(db.knex, { endpointId: 1, limit: 10, epcUri: epcUriFilter(uri) });

useTestDatabase('gateway-uri-hash-', (opened) => (db = opened));

describe('the partial URI hash index migration', () => {
  it('keeps the rows there were findable, writes new ones without a hash, and hashes all on the way down', async () => {
    await db.knex.migrate.down(migration);
    expect(await indexDefinition()).not.toMatch(/WHERE/i);
    // As the gateway wrote them before: every row with its hash.
    await write(before, () => false);

    await db.knex.migrate.up(migration);
    expect(await indexDefinition()).toMatch(/WHERE \(?epc_uri_hash IS NOT NULL\)?/i);
    expect(await byUri(sgtin)).toEqual([before[0]]);
    expect(await byUri(before[1]?.epcUri ?? '')).toEqual([before[1]]);

    await write(after, uriListsEpc);
    const written = await hashes();
    expect(written.get(after[0]?.epc ?? '')).toBeNull();
    expect(written.get(after[1]?.epc ?? '')).toBeNull();
    const oldHash = written.get(before[0]?.epc ?? '');
    expect(oldHash).toEqual(expect.any(Number));
    expect(await byUri(sgtin)).toEqual([after[0], before[0]]);
    expect(await byUri(after[1]?.epcUri ?? '')).toEqual([after[1]]);

    // Written again, an old row drops the hash its URI does not need; the SSCC keeps its own.
    const seenAgain = { ...tag(before[0]?.epc ?? '', 5_000), firstSeen: 1_000 };
    await write([seenAgain, { ...before[1], readCount: 2 }], uriListsEpc);
    const rewritten = await hashes();
    expect(rewritten.get(seenAgain.epc)).toBeNull();
    expect(rewritten.get(before[1]?.epc ?? '')).toEqual(written.get(before[1]?.epc ?? ''));
    expect(await byUri(sgtin)).toEqual([seenAgain, after[0]]);

    await db.knex.migrate.down(migration);
    expect(await indexDefinition()).not.toMatch(/WHERE/i);
    const down = await hashes();
    expect([...down.values()].every((h) => typeof h === 'number')).toBe(true);
    // The same URI, the same hash: the one written before this migration.
    expect(down.get(after[0]?.epc ?? '')).toBe(oldHash);
    expect(down.get(seenAgain.epc)).toBe(oldHash);

    await db.knex.migrate.up(migration);
    expect(await byUri(sgtin)).toEqual([seenAgain, after[0]]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/db';
import { migrationSource } from '../../server/db/migration-source';
import { WriteBatch } from '../../server/db/write-batch';
import { dedupKey, inventoryRepo, type InventoryRow } from '../../server/repositories/inventory.repo';
import { useTestDatabase } from '../helpers/test-gateway';
import { uriListsEpc } from '../../server/events/uhf';

/**
 * The inventory's EPCs become bytes (issue 37.6): every EPC the gateway can store, whatever its
 * length, comes back as the same hex text, is found by it, and pages in the same order; `down`
 * gives the text back.
 */
let db: Db;
const migration = { migrationSource, tableName: 'knex_migrations', name: '20261203090000_inventory_epc_bytes' };
const postgres = process.env.GATEWAY_TEST_DATABASE === 'postgres';

const row = (epc: string, lastSeen: number, readerId = 'dock 1'): InventoryRow => ({
  epc,
  epcUri: `urn:epc:raw:${String(epc.length * 4)}.x${epc}`,
  tid: null,
  readerId,
  antenna: 1,
  rssi: -61.5,
  firstSeen: 1_700_000_000_000,
  lastSeen,
  readCount: 2,
});
// One byte, leading zero bytes, 96 and 128 bits, the longest EPC (496 bits); three share a
// lastSeen, with EPCs that are prefixes of each other.
const rows = [
  row('AA', 1_700_000_000_900),
  row('00000000000000000000000A', 1_700_000_000_800),
  row('3074257BF7194E4000001A85', 1_700_000_000_700, 'dock "2" ☃'),
  row('E2801160600002084E3B2F1F3074257B', 1_700_000_000_700),
  row('3074257BF7194E4000001A', 1_700_000_000_700),
  row('F'.repeat(124), 1_700_000_000_600),
];
const newestFirst = [...rows].sort((a, b) => b.lastSeen - a.lastSeen || (a.epc < b.epc ? 1 : a.epc > b.epc ? -1 : 0));
const stored = (r: InventoryRow) => ({
  endpoint_id: 1,
  epc: r.epc,
  epc_uri: r.epcUri,
  epc_uri_hash: null,
  tid: r.tid,
  reader_id: r.readerId,
  antenna: r.antenna,
  rssi: r.rssi,
  first_seen: r.firstSeen,
  last_seen: r.lastSeen,
  read_count: r.readCount,
  counted_at: r.lastSeen,
  counted_others: null,
});

useTestDatabase('gateway-epc-bytes-', (opened) => (db = opened));

/** Every page of endpoint 1, two rows at a time, through the keyset cursor. */
async function allPages(): Promise<InventoryRow[]> {
  const seen: InventoryRow[] = [];
  for (;;) {
    const last = seen[seen.length - 1];
    const after = last ? { lastSeen: last.lastSeen, epc: last.epc } : undefined;
    const page = await inventoryRepo.page(db.knex, { endpointId: 1, limit: 2, after });
    if (page.length === 0) return seen;
    seen.push(...page);
  }
}

describe('the inventory EPC bytes migration', () => {
  it('stores each EPC as its bytes, gives back the same hex, and gives the text back on the way down', async () => {
    await db.knex.migrate.down(migration);
    await db.knex('tag_inventory').insert(rows.map(stored));

    await db.knex.migrate.up(migration);
    const length = postgres ? 'octet_length(epc)' : 'length(epc)';
    const lengths = await db
      .knex('tag_inventory')
      .select<{ n: unknown }[]>(db.knex.raw(`${length} as n`))
      .then((found) => found.map((r) => Number(r.n)));
    expect(lengths.sort((a, b) => a - b)).toEqual(rows.map((r) => r.epc.length / 2).sort((a, b) => a - b));
    const state = await inventoryRepo.loadState(
      new WriteBatch(db.knex),
      1,
      rows.map((r) => r.epc),
    );
    expect([...state.inventory].sort((a, b) => a.epc.localeCompare(b.epc))).toEqual(
      [...rows].sort((a, b) => a.epc.localeCompare(b.epc)),
    );
    expect(state.lastCounted.get(dedupKey(rows[2].epc, rows[2].readerId, 1))).toBe(rows[2].lastSeen);
    expect(await allPages()).toEqual(newestFirst);
    for (const r of rows) {
      expect(await inventoryRepo.page(db.knex, { endpointId: 1, epc: r.epc, limit: 5 })).toEqual([r]);
      expect(await inventoryRepo.page(db.knex, { endpointId: 1, readerId: r.readerId, limit: 9 })).toEqual(
        newestFirst.filter((other) => other.readerId === r.readerId),
      );
    }

    // A row written after the migration is found and merged by its EPC like the converted ones.
    const writes = new WriteBatch(db.knex);
    const seenAgain = { ...rows[0], lastSeen: 1_700_000_001_000, readCount: 3 };
    inventoryRepo.upsert(writes, 1, [seenAgain, row('0001', 1_700_000_000_500)], new Map(), uriListsEpc);
    await writes.send();
    expect(await inventoryRepo.page(db.knex, { endpointId: 1, epc: 'AA', limit: 5 })).toEqual([seenAgain]);

    await db.knex.migrate.down(migration);
    const back = await db.knex('tag_inventory').select<{ epc: string; last_seen: unknown }[]>('epc', 'last_seen');
    expect(back.map((r) => r.epc).sort()).toEqual([...rows.map((r) => r.epc), '0001'].sort());
    expect(Number(back.find((r) => r.epc === 'AA')?.last_seen)).toBe(seenAgain.lastSeen);
    await db.knex.migrate.up(migration);
    expect(await inventoryRepo.page(db.knex, { endpointId: 1, epc: '0001', limit: 5 })).toHaveLength(1);
  });
});

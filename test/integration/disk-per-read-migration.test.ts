import { describe, expect, it } from 'vitest';
import type { Db } from '../../server/db';
import { migrationSource } from '../../server/db/migration-source';
import { WriteBatch } from '../../server/db/write-batch';
import { eventsRepo, eventWrites } from '../../server/repositories/events.repo';
import { dedupKey, inventoryRepo, type InventoryRow } from '../../server/repositories/inventory.repo';
import { useTestDatabase } from '../helpers/test-gateway';
import { epcUriFilter } from '../../server/events/uhf';

/**
 * The migration of issue 37.6 converts what is stored: dedup rows into their EPC's inventory row
 * and back, URI hashes for the rows there are, compressed payloads back to text on the way down.
 */
let db: Db;
// Named: later migrations (the EPCIS lead index, say) stay applied while this one goes down and up;
// the inventory's EPC bytes, which convert the rows this one writes, go down first and up last.
const migrations = { migrationSource, tableName: 'knex_migrations', name: '20261202090000_disk_per_read' };
const epcBytes = { migrationSource, tableName: 'knex_migrations', name: '20261203090000_inventory_epc_bytes' };

const row = (epc: string, readerId: string, antenna: number | null): InventoryRow => ({
  epc,
  epcUri: `urn:epc:raw:96.x${epc}`,
  tid: null,
  readerId,
  antenna,
  rssi: -61.5,
  firstSeen: 1_700_000_000_000,
  lastSeen: 1_700_000_000_500,
  readCount: 3,
});
const stored = (endpointId: number, r: InventoryRow) => ({
  endpoint_id: endpointId,
  epc: r.epc,
  epc_uri: r.epcUri,
  tid: r.tid,
  reader_id: r.readerId,
  antenna: r.antenna,
  rssi: r.rssi,
  first_seen: r.firstSeen,
  last_seen: r.lastSeen,
  read_count: r.readCount,
});

const one = row('AA01', 'dock "one" ☃', 1);
const two = row('AA02', 'dock 2', null);
// Dedup rows as the gateway wrote them before: the row's own reader antenna, others, and one
// whose EPC has no inventory row (which no transaction of the gateway leaves behind).
const dedup = [
  [1, dedupKey(one.epc, one.readerId, 1), 1_700_000_000_100],
  [1, dedupKey(one.epc, one.readerId, null), 1_700_000_000_101],
  [1, dedupKey(one.epc, 'dock 2', 1), 1_700_000_000_102],
  [1, dedupKey(two.epc, 'dock 9', 0), 1_700_000_000_103],
  [2, dedupKey(one.epc, one.readerId, 1), 1_700_000_000_104],
] as const;
const orphan = [1, dedupKey('AA99', 'dock 2', 1), 1_700_000_000_105] as const;
const dedupRows = (rows: readonly (readonly [number, string, number])[]) =>
  rows.map(([endpoint_id, dedup_key, last_counted]) => ({ endpoint_id, dedup_key, last_counted }));

const event = (id: string, payload: string) => ({
  id,
  parent_id: null,
  route_id: 1,
  route_name: 'reads',
  endpoint_id: 1,
  endpoint_name: 'Plant',
  transport: 'http' as const,
  topic: null,
  event_type: 'AllData' as const,
  status: 'processed' as const,
  received_at: 1_700_000_000_000,
  processed_at: 1_700_000_000_001,
  principal: 'anonymous',
  source_ip: '10.0.0.1',
  request_id: `req-${id}`,
  payload,
  data: null,
  result: '{}',
  errors: null,
  warnings: null,
});
const batch = JSON.stringify(Array.from({ length: 40 }, (_, n) => ({ epc: `AA${n}`, antenna: 1, note: 'é 😀' })));

useTestDatabase('gateway-disk-migration-', (opened) => (db = opened));

describe('the disk-per-read migration', () => {
  it('folds dedup rows into the inventory, hashes the URIs, and unfolds them again on the way down', async () => {
    await db.knex.migrate.down(epcBytes);
    await db.knex.migrate.down(migrations);
    await db.knex('tag_inventory').insert([stored(1, one), stored(1, two), stored(2, one)]);
    await db.knex('tag_dedup').insert(dedupRows([...dedup, orphan]));
    await db.knex('events').insert(event('01JMIGRATE0000000000000001', batch));

    await db.knex.migrate.up(migrations);
    await db.knex.migrate.up(epcBytes);
    const state = await inventoryRepo.loadState(new WriteBatch(db.knex), 1, [one.epc, two.epc, 'AA99']);
    expect([...state.inventory].sort((a, b) => a.epc.localeCompare(b.epc))).toEqual([one, two]);
    expect(state.lastCounted).toEqual(new Map(dedup.filter(([e]) => e === 1).map(([, key, at]) => [key, at])));
    expect((await inventoryRepo.loadState(new WriteBatch(db.knex), 2, [one.epc])).lastCounted).toEqual(
      new Map([[dedup[4][1], dedup[4][2]]]),
    );
    // The URI filter finds the rows there were through their new hashes.
    expect(await inventoryRepo.page(db.knex, { endpointId: 1, epcUri: epcUriFilter(two.epcUri), limit: 10 })).toEqual([
      two,
    ]);
    // An event stored before stays as it was, and reads back the same.
    expect(await db.knex('events').select('payload', 'payload_bytes')).toEqual([
      { payload: batch, payload_bytes: null },
    ]);

    const writes = new WriteBatch(db.knex);
    eventWrites.insertMany(writes, [event('01JMIGRATE0000000000000002', batch)]);
    await writes.send();
    const compressed = await db.knex('events').where('id', '01JMIGRATE0000000000000002').first('payload_bytes');
    expect(Number(compressed?.payload_bytes)).toBe(Buffer.byteLength(batch));

    await db.knex.migrate.down(epcBytes);
    await db.knex.migrate.down(migrations);
    const back = await db
      .knex('tag_dedup')
      .select<{ endpoint_id: unknown; dedup_key: string; last_counted: unknown }[]>(
        'endpoint_id',
        'dedup_key',
        'last_counted',
      );
    expect(
      back
        .map((r) => ({
          endpoint_id: Number(r.endpoint_id),
          dedup_key: r.dedup_key,
          last_counted: Number(r.last_counted),
        }))
        .sort((a, b) => a.endpoint_id - b.endpoint_id || a.dedup_key.localeCompare(b.dedup_key)),
    ).toEqual(dedupRows(dedup).sort((a, b) => a.endpoint_id - b.endpoint_id || a.dedup_key.localeCompare(b.dedup_key)));
    // Every payload is text as received again.
    expect(await db.knex('events').orderBy('id').pluck('payload')).toEqual([batch, batch]);

    await db.knex.migrate.up(migrations);
    await db.knex.migrate.up(epcBytes);
    expect((await eventsRepo.findById(db.knex, '01JMIGRATE0000000000000002'))?.payload).toBe(batch);
  });
});

import { describe, expect, inject, it } from 'vitest';
import { createDb } from '../../server/db';
import { WriteBatch } from '../../server/db/write-batch';
import type { ProcessContext, StoreItem } from '../../server/events/processor';
import { PROCESSORS } from '../../server/events/registry';
import type { UhfBatch } from '../../server/events/uhf/normalize';
import { createDatabase } from '../helpers/postgres-cluster';

describe('inventory updates across instances on PostgreSQL', () => {
  it('loses no read when two instances update the same EPCs at once, in opposite orders', async () => {
    const url = await createDatabase(inject('postgresUrl'), `gw_locks_${process.pid}`);
    const [a, b] = await Promise.all([createDb({ kind: 'postgres', url }), createDb({ kind: 'postgres', url })]);
    if (!a || !b) throw new Error('no instance');
    try {
      const epcs = Array.from({ length: 20 }, (_, i) => `3000000000000000000000${String(i).padStart(2, '0')}`);
      // A zero dedup window counts every read, so each transaction adds one to every EPC.
      const context = { settings: { tagDedupWindowMs: 0 } } as unknown as ProcessContext;
      const item = (round: number, order: string[]): StoreItem<UhfBatch> => ({
        prepared: {
          statuses: [],
          heard: [],
          reads: order.map((epc) => ({
            epc,
            epcUri: `urn:epc:raw:96.x${epc}`,
            tid: null,
            readerId: 'dock',
            antenna: 1,
            rssi: -50,
            readAt: 1_700_000_000_000 + round,
          })),
        },
        event: { endpointId: 1 } as StoreItem<UhfBatch>['event'],
        context,
      });
      const processor = PROCESSORS.UHFTagRead;
      const store = (db: typeof a, round: number, order: string[]) =>
        db.knex.transaction(async (trx) => {
          const writes = new WriteBatch(trx);
          if (!processor.storeMany) throw new Error('UHFTagRead stores in batches');
          await processor.storeMany(writes, [item(round, order)]);
          await writes.send();
        });
      // Load-modify-store on each instance's own connections: without the locks, updates are lost;
      // without taking them in one order, opposite EPC orders deadlock.
      await Promise.all(
        [a, b].flatMap((db, k) =>
          Array.from({ length: 15 }, (_, round) => store(db, round, k === 0 ? epcs : [...epcs].reverse())),
        ),
      );
      const rows = await a
        .knex('tag_inventory')
        .whereIn(
          'epc',
          epcs.map((epc) => Buffer.from(epc, 'hex')),
        )
        .select<{ read_count: unknown }[]>('read_count');
      expect(rows.map((row) => Number(row.read_count))).toEqual(epcs.map(() => 30));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

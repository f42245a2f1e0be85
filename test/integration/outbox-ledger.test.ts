import { afterEach, describe, expect, it } from 'vitest';
import type { WriteBatch } from '../../server/db/write-batch';
import { DeliveryLedger } from '../../server/delivery/ledger';
import { Outbox, type ProcessedEvent } from '../../server/delivery/outbox';
import { outboxRepo } from '../../server/repositories/outbox.repo';
import { gatewayWithDestination } from '../helpers/destination-rig';
import type { TestGateway } from '../helpers/test-gateway';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

/** A paused destination (nothing is delivered, so the backlog only grows) fed by a sync UHFTagRead route. */
async function setup() {
  const { gw, receiver, id } = await gatewayWithDestination(open, { active: false });
  const endpoint = await gw.admin('POST', '/endpoints', {
    name: 'Dock door 3',
    baseRoutePath: 'dock3',
    routes: [
      { name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth', destinations: [id] },
    ],
  });
  expect(endpoint.status).toBe(201);
  return { gw, receiver, id };
}

const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();

const post = (gw: TestGateway, n: number) =>
  fetch(`${gw.base}/dock3/reads`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ epc: epc(n), antenna: 1 }),
  });

/** The destination's backlog as the ledger counts it (the status, `/_metrics`) and as the database holds it. */
async function backlogs(gw: TestGateway, id: number) {
  const status = await gw.admin('GET', `/destinations/${id}`);
  const stored = await outboxRepo.backlogs(gw.gateway.db.knex);
  return { counted: status.body.status.backlog as number, stored: stored.get(id) ?? 0 };
}

/** A write the database refuses when the transaction carrying it runs (on SQLite it fails the whole script). */
const refusedWrite = (writes: WriteBatch) => writes.add(writes.sql.raw('insert into no_such_table (x) values (1)'));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const settle = (job: Promise<unknown>) =>
  job.then(
    () => 'committed',
    () => 'refused',
  );

describe('the backlog counts committed outbox items only (SPEC §11)', () => {
  it.skipIf(process.env.GATEWAY_TEST_DATABASE === 'postgres')(
    'sync events retried one by one after their shared flush failed are counted once',
    async () => {
      const { gw, receiver, id } = await setup();
      expect((await post(gw, 1)).status).toBe(200);
      expect(await backlogs(gw, id)).toEqual({ counted: 1, stored: 1 });

      // A job that waits keeps the group commit's flush open, so the next POSTs gather for the
      // flush after it; a job whose write fails joins that flush: on SQLite the flush rolls back
      // as a whole, and the sync batcher stores each event again in a job of its own (batcher.ts).
      let release: (() => void) | undefined;
      const gate = gw.gateway.commit.store(() => new Promise<void>((resolve) => (release = resolve)));
      while (!release) await sleep(5);
      const posts = Array.from({ length: 5 }, (_, i) => post(gw, 10 + i));
      while (gw.gateway.commit.waiting === 0) await sleep(5);
      await sleep(100);
      const failing = settle(gw.gateway.commit.store((writes) => Promise.resolve(refusedWrite(writes))));
      release();
      await gate;
      expect((await Promise.all(posts)).map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
      expect(await failing).toBe('refused');

      expect(await backlogs(gw, id)).toEqual({ counted: 6, stored: 6 });

      // Delivered, the backlog is 0 at once, not after the next recount (RECOUNT_MS).
      await gw.admin('PUT', `/destinations/${id}`, { name: 'WMS', url: receiver.url, batchMaxWaitMs: 0, active: true });
      await receiver.waitFor((r) => r.items.length >= 6, 10_000);
      const deadline = Date.now() + 5_000;
      while ((await backlogs(gw, id)).counted > 0 && Date.now() < deadline) await sleep(50);
      expect(await backlogs(gw, id)).toEqual({ counted: 0, stored: 0 });
    },
  );

  it('items of a job or a transaction that rolled back are not counted, on either database', async () => {
    const { gw, id } = await setup();
    const ledger = new DeliveryLedger(Date.now);
    const outbox = new Outbox(gw.gateway.db, gw.gateway.changes, ledger, () => 1000, Date.now);
    let sequence = 0;
    const event = (): ProcessedEvent => {
      sequence += 1;
      return {
        meta: {
          id: `01JLEDGER${String(sequence).padStart(17, '0')}`,
          routeName: 'reads',
          endpointName: 'Dock door 3',
          eventType: 'UHFTagRead',
          receivedAt: 1_700_000_000_000,
        },
        destinationIds: [id],
        processedAt: 1_700_000_000_001,
        units: [{ data: '{"n":1}' }, { data: '{"n":2}' }],
      };
    };
    const stored = async () => (await outboxRepo.backlogs(gw.gateway.db.knex)).get(id) ?? 0;

    // One flush: a job that commits, one that throws after adding its items (it fails alone),
    // and one whose write the database refuses (SQLite: the whole transaction rolls back;
    // PostgreSQL: that job's savepoint).
    const outcomes = await Promise.all([
      settle(gw.gateway.commit.store((writes) => Promise.resolve(outbox.add(writes, [event()])))),
      settle(
        gw.gateway.commit.store((writes) => {
          outbox.add(writes, [event()]);
          return Promise.reject(new Error('changed my mind'));
        }),
      ),
      settle(
        gw.gateway.commit.store((writes) => {
          outbox.add(writes, [event()]);
          refusedWrite(writes);
          return Promise.resolve();
        }),
      ),
    ]);
    expect(outcomes.slice(1)).toEqual(['refused', 'refused']);
    expect(ledger.backlog(id)).toBe(await stored());

    // Alone in its transaction, which then fails.
    await settle(
      gw.gateway.commit.store((writes) => {
        outbox.add(writes, [event(), event()]);
        refusedWrite(writes);
        return Promise.resolve();
      }),
    );
    expect(ledger.backlog(id)).toBe(await stored());

    // The bound still holds against items added but not yet committed: 1000 in all, the rest dead letters.
    const big = { ...event(), units: Array.from({ length: 600 }, (_, i) => ({ data: `{"i":${i}}` })) };
    const bigger = { ...event(), units: Array.from({ length: 600 }, (_, i) => ({ data: `{"j":${i}}` })) };
    await gw.gateway.commit.store((writes) => Promise.resolve(outbox.add(writes, [big, bigger])));
    expect(ledger.backlog(id)).toBe(1000);
    expect(await stored()).toBe(1000);
    expect(ledger.deadLetters(id)).toBe(1);
  });
});

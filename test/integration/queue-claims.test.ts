import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db';
import { SqlUtf8 } from '../../server/db/sql-literal';
import { inScriptTransaction } from '../../server/db/sqlite-transaction';
import { WriteBatch } from '../../server/db/write-batch';
import type { Payload } from '../../server/repositories/event-payload';
import { eventsRepo, eventWrites, type Claim, type EventInsert } from '../../server/repositories/events.repo';
import { useTestDatabase } from '../helpers/test-gateway';

/**
 * The worker's claim of queued events on each database (SQLite reads the batch on a reader
 * connection, PostgreSQL leases it): which events, in which order, as stored, and how many a
 * byte budget lets through.
 */
let db: Db;
let sequence = 0;
const NOW = 1_700_000_000_000;

type StoredEvent = EventInsert & {
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
};

const queued = (overrides: Partial<StoredEvent> = {}): StoredEvent => ({
  id: `01JCLAIM${String(sequence++).padStart(18, '0')}`,
  parent_id: null,
  route_id: 7,
  route_name: 'reads',
  endpoint_id: 3,
  endpoint_name: 'Plant',
  transport: 'http',
  topic: null,
  event_type: 'AllData',
  status: 'queued',
  received_at: NOW - 1000 + sequence,
  processed_at: null,
  principal: "o'brien",
  source_ip: '10.0.0.9',
  request_id: `req-${sequence}`,
  payload: '{"a":"ü"}',
  data: null,
  result: null,
  errors: null,
  warnings: null,
  attempts: 0,
  next_attempt_at: 0,
  lease_owner: null,
  lease_until: null,
  ...overrides,
});

/** The claim the worker makes on this database; `held`: the large payloads this process holds. */
const claim = (bounds: Omit<Claim, 'now'>, held?: (id: string) => Payload | undefined) =>
  db.kind === 'sqlite'
    ? eventsRepo.dueQueued(db.reads, { now: NOW, ...bounds }, held)
    : eventWrites.claimDue(db.knex, { now: NOW, ...bounds, owner: 'me', leaseMs: 15_000, skipLocked: true }, held);

const store = async (rows: StoredEvent[]) => {
  await db.knex('events').insert(rows);
};

useTestDatabase('gateway-claims-', (opened) => (db = opened));

beforeEach(async () => {
  await db.knex('events').delete();
});

describe('the worker claims queued events', () => {
  it('only due, unleased, queued ones, oldest first, up to the limit, with every stored field', async () => {
    const due = [queued(), queued({ attempts: 2, parent_id: '01JCLAIMPARENT00000000000000' }), queued(), queued()];
    await store([
      ...[...due].reverse(),
      queued({ next_attempt_at: NOW + 5000 }),
      queued({ status: 'processed', processed_at: NOW, result: '{}' }),
      queued({ lease_owner: 'other', lease_until: NOW + 5000 }),
    ]);
    const { rows, cut } = await claim({ limit: 3, maxBytes: 1024 });
    expect(rows.map((row) => row.id)).toEqual(due.slice(0, 3).map((row) => row.id));
    expect(cut).toBe(false);
    const { lease_owner: _owner, lease_until: _until, ...stored } = due[1];
    expect(rows[1]).toMatchObject({ ...stored, attempts: 2 });
  });

  it('takes only as many as fit in the byte budget, the first always, and says the claim was cut', async () => {
    // 600 bytes each: "é" is two bytes in UTF-8, so the budget counts bytes, not characters.
    const events = [0, 1, 2].map(() => queued({ payload: `"${'é'.repeat(299)}"` }));
    await store(events);
    const ids = (batch: { rows: { id: string }[] }) => batch.rows.map((row) => row.id);

    const first = await claim({ limit: 10, maxBytes: 1000 });
    expect(ids(first)).toEqual([events[0]?.id]);
    expect(first.cut).toBe(true);
    if (db.kind === 'postgres') await db.knex('events').update({ lease_owner: null, lease_until: null });

    const two = await claim({ limit: 10, maxBytes: 1200 });
    expect(ids(two)).toEqual([events[0]?.id, events[1]?.id]);
    expect(two.cut).toBe(true);
    if (db.kind === 'postgres') await db.knex('events').update({ lease_owner: null, lease_until: null });

    const tiny = await claim({ limit: 10, maxBytes: 1 });
    expect(ids(tiny)).toEqual([events[0]?.id]);
    if (db.kind === 'postgres') await db.knex('events').update({ lease_owner: null, lease_until: null });

    const all = await claim({ limit: 10, maxBytes: 1800 });
    expect(ids(all)).toEqual(events.map((event) => event.id));
    expect(all.cut).toBe(false);
  });

  it('a claim full by count is not cut', async () => {
    await store([queued(), queued(), queued()]);
    const { rows, cut } = await claim({ limit: 2, maxBytes: 1024 });
    expect(rows).toHaveLength(2);
    expect(cut).toBe(false);
  });

  it.runIf(process.env.GATEWAY_TEST_DATABASE === 'postgres')('leases what it claims, and nothing else', async () => {
    const events = [0, 1, 2].map(() => queued({ payload: `"${'x'.repeat(598)}"` }));
    await store(events);
    await claim({ limit: 10, maxBytes: 1000 });
    const leased = await db.knex('events').whereNotNull('lease_owner').pluck('id');
    expect(leased).toEqual([events[0]?.id]);
  });

  it('refuses a bound that is not a positive whole number', async () => {
    await expect(claim({ limit: 0, maxBytes: 10 })).rejects.toThrow(RangeError);
    await expect(claim({ limit: 10, maxBytes: 1.5 })).rejects.toThrow(RangeError);
  });
});

describe("the batch's transaction confirms its claim", () => {
  /** The worker's store runs on a script transaction on SQLite and a Knex transaction on PostgreSQL. */
  const inBatch = <T>(use: (writes: WriteBatch) => Promise<T>): Promise<T> =>
    db.kind === 'sqlite'
      ? inScriptTransaction(db.knex, (tx) => use(WriteBatch.onScript(tx)))
      : db.knex.transaction((trx) => use(new WriteBatch(trx)));

  it('keeps only the events still queued (and, on PostgreSQL, still leased to this worker)', async () => {
    const mine = queued({ lease_owner: 'me', lease_until: NOW + 5000 });
    const done = queued({ status: 'processed', processed_at: NOW, result: '{}', lease_owner: 'me' });
    const theirs = queued({ lease_owner: 'other', lease_until: NOW + 5000 });
    await store([mine, done, theirs]);
    const ids = [mine.id, done.id, theirs.id, 'no-such-event'];
    const held = await inBatch((writes) => eventWrites.confirmLeases(writes, ids, 'me'));
    // SQLite's worker claims without leases: there the status is the whole check.
    expect([...held].sort()).toEqual(db.kind === 'sqlite' ? [mine.id, theirs.id] : [mine.id]);
  });
});

describe('payloads are stored compressed where that pays, and every read gives back the text received (issue 37.6)', () => {
  const reading = JSON.stringify({ epc: '3074257BF7194E4000001A85', antenna: 1, rssi: -55.5, reader: 'dock ☃ 📦' });
  const payloads = {
    batch: `[${Array.from({ length: 50 }, () => reading).join(',')}]`,
    // Under 1 KiB: a compression call's fixed cost would outweigh the bytes saved.
    short: JSON.stringify({ a: 'ü'.repeat(400) }),
    // Random text: compressed, it would not be shorter.
    random: JSON.stringify(randomBytes(1200).toString('base64')),
    // Escapes and characters outside the BMP, long enough to be compressed.
    escapes: JSON.stringify({ text: '\\"\'\t\n\u0001 é 😀 '.repeat(60) }),
    // Over the size compressed on the main thread: stored as received.
    large: `"${'x'.repeat(1024 * 1024 + 10)}"`,
  };
  const events = Object.fromEntries(
    Object.entries(payloads).map(([name, payload]) => [name, queued({ payload })]),
  ) as Record<keyof typeof payloads, StoredEvent>;

  beforeEach(async () => {
    const writes = new WriteBatch(db.knex);
    eventWrites.insertMany(writes, Object.values(events));
    await writes.send();
  });

  it('keeps the compressed ones marked with their size received, and the others as received', async () => {
    const stored = await db
      .knex('events')
      .select<{ id: string; payload: string; payload_bytes: unknown }[]>('id', 'payload', 'payload_bytes');
    const byId = new Map(stored.map((row) => [row.id, row]));
    const batch = byId.get(events.batch.id);
    expect(Number(batch?.payload_bytes)).toBe(Buffer.byteLength(payloads.batch));
    expect(batch?.payload.length).toBeLessThan(payloads.batch.length / 10);
    expect(Number(byId.get(events.escapes.id)?.payload_bytes)).toBe(Buffer.byteLength(payloads.escapes));
    for (const name of ['short', 'random', 'large'] as const) {
      expect(byId.get(events[name].id)).toEqual({ id: events[name].id, payload: payloads[name], payload_bytes: null });
    }
  });

  it('gives every payload back byte for byte: by id, in the inspector page, in a claim and in a snapshot page', async () => {
    for (const [name, payload] of Object.entries(payloads)) {
      const event = events[name as keyof typeof payloads];
      expect((await eventsRepo.findById(db.knex, event.id))?.payload).toBe(payload);
    }
    const page = await eventsRepo.page(db.knex, { limit: 10 });
    expect(new Map(page.map((row) => [row.id, row.payload]))).toEqual(
      new Map(Object.entries(payloads).map(([name, payload]) => [events[name as keyof typeof payloads].id, payload])),
    );
    expect(page.every((row) => !('payload_bytes' in row))).toBe(true);
    const claimed = await claim({ limit: 10, maxBytes: 64 * 1024 * 1024 });
    // On SQLite a large payload comes as its bytes (decision 0424): the same text once decoded.
    const large = claimed.rows.find((row) => row.id === events.large.id)?.payload;
    expect(large instanceof SqlUtf8).toBe(db.kind === 'sqlite');
    const text = (payload: Payload) => (payload instanceof SqlUtf8 ? payload.text() : payload);
    expect(new Map(claimed.rows.map((row) => [row.id, text(row.payload)]))).toEqual(
      new Map(page.map((row) => [row.id, row.payload])),
    );
    await db.knex('events').update({ status: 'processed', processed_at: NOW, lease_owner: null, lease_until: null });
    const snapshot = await eventWrites.snapshotPage(db.knex, {
      endpointId: 3,
      eventType: 'AllData',
      children: false,
      facets: [],
      limit: 10,
    });
    expect(new Map(snapshot.map((row) => [row.id, row.payload]))).toEqual(
      new Map(page.map((row) => [row.id, row.payload])),
    );
  });

  it('takes a large payload this process holds instead of reading it, and reads only the others', async () => {
    const large = `"${'x'.repeat(1024 * 1024 + 10)}"`;
    const [held, read, short] = [queued({ payload: large }), queued({ payload: large }), queued()];
    await store([held, read, short]);
    const bytes = new SqlUtf8(Buffer.from(large));
    const asked: string[] = [];
    const claimed = await claim({ limit: 10, maxBytes: 64 * 1024 * 1024 }, (id) => {
      asked.push(id);
      return id === held.id ? bytes : undefined;
    });
    const byId = new Map(claimed.rows.map((row) => [row.id, row.payload]));
    expect(byId.get(held.id)).toBe(bytes);
    const text = byId.get(read.id);
    expect(text instanceof SqlUtf8 ? text.text() : text).toBe(large);
    expect(byId.get(short.id)).toBe(short.payload);
    // Only the payloads left out of the claim for their size are asked for.
    expect(asked).toEqual(expect.arrayContaining([held.id, read.id]));
    expect(asked).not.toContain(short.id);
  });

  it('budgets a claim by the size received, not the size stored', async () => {
    await db.knex('events').whereNot('id', events.batch.id).delete();
    const more = queued({ payload: payloads.batch });
    const writes = new WriteBatch(db.knex);
    eventWrites.insertMany(writes, [more]);
    await writes.send();
    // Both fit by their stored size; by the size received only the first does.
    const received = Buffer.byteLength(payloads.batch);
    const { rows, cut } = await claim({ limit: 10, maxBytes: received + 100 });
    expect(rows.map((row) => row.id)).toEqual([events.batch.id]);
    expect(cut).toBe(true);
  });
});

import type { DeadLetterReason } from '../contract/dto';
import type { WriteBatch } from '../db/write-batch';
import { num, numOrNull, type Queryable } from './db-types';

/** One delivery item as written beside its event's outcome (SPEC §11). */
export interface OutboxInsert {
  destination_id: number;
  item_id: string;
  event_id: string;
  route_name: string;
  endpoint_name: string;
  event_type: string;
  received_at: number;
  processed_at: number;
  /** The item's `data`, as JSON text. */
  data: string;
  batch_id?: string | null;
  dead?: boolean;
}

export interface OutboxItem {
  seq: number;
  itemId: string;
  eventId: string;
  routeName: string;
  endpointName: string;
  eventType: string;
  receivedAt: number;
  processedAt: number;
  data: string;
}

export interface DeliveryBatch {
  /** The row id: what the dead-letter API names. */
  id: number;
  /** The uuid sent as Idempotency-Key, the same on every attempt. */
  batchId: string;
  destinationId: number;
  state: 'open' | 'dead';
  firstSeq: number;
  itemCount: number;
  attempts: number;
  firstAttemptAt: number | null;
  nextAttemptAt: number;
  lastAttemptAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  failedAt: number | null;
  reason: DeadLetterReason | null;
}

interface BatchRow {
  id: unknown;
  batch_id: string;
  destination_id: unknown;
  state: 'open' | 'dead';
  first_seq: unknown;
  item_count: unknown;
  attempts: unknown;
  first_attempt_at: unknown;
  next_attempt_at: unknown;
  last_attempt_at: unknown;
  last_status: unknown;
  last_error: string | null;
  failed_at: unknown;
  reason: DeadLetterReason | null;
}

const toBatch = (row: BatchRow): DeliveryBatch => ({
  id: num(row.id),
  batchId: row.batch_id,
  destinationId: num(row.destination_id),
  state: row.state,
  firstSeq: num(row.first_seq),
  itemCount: num(row.item_count),
  attempts: num(row.attempts),
  firstAttemptAt: numOrNull(row.first_attempt_at),
  nextAttemptAt: num(row.next_attempt_at),
  lastAttemptAt: numOrNull(row.last_attempt_at),
  lastStatus: numOrNull(row.last_status),
  lastError: row.last_error,
  failedAt: numOrNull(row.failed_at),
  reason: row.reason,
});

interface ItemRow {
  seq: unknown;
  item_id: string;
  event_id: string;
  route_name: string;
  endpoint_name: string;
  event_type: string;
  received_at: unknown;
  processed_at: unknown;
  data: string;
}

/** An item's columns but its data (which `waiting` reads only when the items make a batch). */
const ITEM_COLUMNS = [
  'seq',
  'item_id',
  'event_id',
  'route_name',
  'endpoint_name',
  'event_type',
  'received_at',
  'processed_at',
] as const;

const toItem = (row: ItemRow): OutboxItem => ({
  seq: num(row.seq),
  itemId: row.item_id,
  eventId: row.event_id,
  routeName: row.route_name,
  endpointName: row.endpoint_name,
  eventType: row.event_type,
  receivedAt: num(row.received_at),
  processedAt: num(row.processed_at),
  data: row.data,
});

/** What a failed attempt leaves on its batch. */
export interface AttemptFailure {
  attempts: number;
  firstAttemptAt: number;
  lastAttemptAt: number;
  nextAttemptAt: number;
  lastStatus: number | null;
  lastError: string;
}

/** Which dead letters an operation means: the listed ids, or every one of the destination's. */
const deadOf = (db: Queryable, destinationId: number, ids: readonly number[] | undefined) => {
  const query = db('delivery_batches').where({ destination_id: destinationId, state: 'dead' });
  if (ids !== undefined) void query.whereIn('id', ids.length > 0 ? [...ids] : [-1]);
  return query;
};

/** Reads of the outbox (run anywhere) and its writes (added to a group-commit batch). */
export const outboxRepo = {
  /** The delivery items of processed events, in the order they are to be sent. */
  addItems(writes: WriteBatch, rows: readonly OutboxInsert[]): void {
    writes.insertRows('outbox_items', rows);
  },

  /** Items that found their destination's outbox full: written straight as a dead letter. */
  addDeadLetter(
    writes: WriteBatch,
    batch: { batchId: string; destinationId: number; at: number },
    rows: readonly OutboxInsert[],
  ): void {
    writes.insertRows(
      'outbox_items',
      rows.map((row) => ({ ...row, batch_id: batch.batchId, dead: true })),
    );
    writes.insertRows('delivery_batches', [
      {
        batch_id: batch.batchId,
        destination_id: batch.destinationId,
        state: 'dead',
        rank: 1,
        first_seq: 0,
        item_count: rows.length,
        attempts: 0,
        next_attempt_at: 0,
        failed_at: batch.at,
        reason: 'outbox_full',
      },
    ]);
  },

  /** The batch to send next: one a technician sent back to the head first, then in outbox order. */
  async headBatch(db: Queryable, destinationId: number): Promise<DeliveryBatch | null> {
    const row = (await db('delivery_batches')
      .where({ destination_id: destinationId, state: 'open' })
      .orderBy([{ column: 'rank' }, { column: 'first_seq' }, { column: 'id' }])
      .first()) as BatchRow | undefined;
    return row ? toBatch(row) : null;
  },

  /**
   * The oldest items not yet in a batch (at most `limit`), in one read. Whole when they make a
   * batch now (`full` of them, or the oldest processed at or before `readyBefore`), so batches cut
   * from them are sent as read; without their data otherwise, so a poll that waits for more items
   * reads little. `othersOpen`: whether an open batch exists that is not one of `known` (the
   * batches the sender already holds, in their order): a batch cut now follows `known` only when
   * none does.
   */
  async waiting(
    writes: WriteBatch,
    destinationId: number,
    next: { limit: number; full: number; readyBefore: number; known: readonly string[] },
  ): Promise<
    | { ready: true; items: OutboxItem[]; othersOpen: boolean }
    | { ready: false; oldestProcessedAt: number | null; othersOpen: boolean }
  > {
    const sql = writes.sql;
    const unknownOpen = () =>
      sql('delivery_batches')
        .where({ destination_id: destinationId, state: 'open' })
        .whereNotIn('batch_id', next.known.length > 0 ? [...next.known] : ['']);
    const page = sql('outbox_items')
      .where({ destination_id: destinationId })
      .whereNull('batch_id')
      .orderBy('seq')
      .limit(next.limit)
      .select('*');
    // Every row answers the same condition (window aggregates over the page); data is never null.
    const data = sql.raw('case when count(*) over () >= ? or min(processed_at) over () <= ? then data end as data', [
      next.full,
      next.readyBefore,
    ]);
    const rows = await writes.read<Omit<ItemRow, 'data'> & { data: string | null; others_open: unknown }>(
      sql
        .queryBuilder()
        .from(page.as('page'))
        .select(...ITEM_COLUMNS, data, unknownOpen().count('*').as('others_open'))
        .orderBy('seq'),
    );
    const first = rows[0];
    if (!first) {
      // No item waits, so no row carried the count: asked alone.
      const [counted] = await writes.read<{ n: unknown }>(unknownOpen().count({ n: '*' }));
      return { ready: false, oldestProcessedAt: null, othersOpen: num(counted?.n) > 0 };
    }
    const othersOpen = num(first.others_open) > 0;
    if (first.data === null) return { ready: false, oldestProcessedAt: num(first.processed_at), othersOpen };
    const items = rows.map(({ data, ...row }) => {
      if (data === null) throw new Error(`outbox item ${String(row.seq)} was read without its data`);
      return toItem({ ...row, data });
    });
    return { ready: true, items, othersOpen };
  },

  /** Cuts these items into new open batches, in the order given (one row insert, one UPDATE per batch). */
  cutBatches(
    writes: WriteBatch,
    destinationId: number,
    batches: readonly { batchId: string; seqs: readonly number[] }[],
  ): Omit<DeliveryBatch, 'id'>[] {
    const sql = writes.sql;
    const cut = batches.map((batch): Omit<DeliveryBatch, 'id'> => ({
      batchId: batch.batchId,
      destinationId,
      state: 'open',
      firstSeq: batch.seqs[0] ?? 0,
      itemCount: batch.seqs.length,
      attempts: 0,
      firstAttemptAt: null,
      nextAttemptAt: 0,
      lastAttemptAt: null,
      lastStatus: null,
      lastError: null,
      failedAt: null,
      reason: null,
    }));
    writes.insertRows(
      'delivery_batches',
      cut.map((batch) => ({
        batch_id: batch.batchId,
        destination_id: destinationId,
        state: 'open',
        rank: 1,
        first_seq: batch.firstSeq,
        item_count: batch.itemCount,
        attempts: 0,
        next_attempt_at: 0,
      })),
    );
    for (const batch of batches)
      writes.add(
        sql('outbox_items')
          .whereIn('seq', [...batch.seqs])
          .whereNull('batch_id')
          .update({ batch_id: batch.batchId }),
      );
    return cut;
  },

  async batchItems(db: Queryable, batchId: string): Promise<OutboxItem[]> {
    const rows = (await db('outbox_items').where({ batch_id: batchId }).orderBy('seq').select('*')) as ItemRow[];
    return rows.map(toItem);
  },

  /** 2xx answers: these batches and their items are done (two statements, however many batches). */
  delivered(writes: WriteBatch, batchIds: readonly string[]): void {
    if (batchIds.length === 0) return;
    const sql = writes.sql;
    writes.add(
      sql('outbox_items')
        .whereIn('batch_id', [...batchIds])
        .delete(),
      sql('delivery_batches')
        .whereIn('batch_id', [...batchIds])
        .delete(),
    );
  },

  /** A failed attempt to be retried at `nextAttemptAt`. */
  failed(writes: WriteBatch, batch: Pick<DeliveryBatch, 'batchId'>, failure: AttemptFailure): void {
    writes.add(
      writes.sql('delivery_batches').where({ batch_id: batch.batchId, state: 'open' }).update({
        attempts: failure.attempts,
        first_attempt_at: failure.firstAttemptAt,
        last_attempt_at: failure.lastAttemptAt,
        next_attempt_at: failure.nextAttemptAt,
        last_status: failure.lastStatus,
        last_error: failure.lastError,
      }),
    );
  },

  /** A technician's "Retry now": the destination's open batches waiting for a retry are due at `now`. */
  dueNow(writes: WriteBatch, destinationId: number, now: number): void {
    writes.add(
      writes
        .sql('delivery_batches')
        .where({ destination_id: destinationId, state: 'open' })
        .where('next_attempt_at', '>', now)
        .update({ next_attempt_at: now }),
    );
  },

  /** The batch gives up: it stays, with its items, as a dead letter. */
  deadLettered(
    writes: WriteBatch,
    batch: Pick<DeliveryBatch, 'batchId'>,
    failure: AttemptFailure & { reason: DeadLetterReason; failedAt: number },
  ): void {
    const sql = writes.sql;
    writes.add(
      sql('delivery_batches').where({ batch_id: batch.batchId, state: 'open' }).update({
        state: 'dead',
        attempts: failure.attempts,
        first_attempt_at: failure.firstAttemptAt,
        last_attempt_at: failure.lastAttemptAt,
        last_status: failure.lastStatus,
        last_error: failure.lastError,
        failed_at: failure.failedAt,
        reason: failure.reason,
      }),
      sql('outbox_items').where({ batch_id: batch.batchId }).update({ dead: true }),
    );
  },

  /** A page of dead letters, newest first; `beforeId` is the keyset cursor. */
  async deadLetters(
    db: Queryable,
    destinationId: number,
    page: { limit: number; beforeId?: number },
  ): Promise<DeliveryBatch[]> {
    const query = db('delivery_batches')
      .where({ destination_id: destinationId, state: 'dead' })
      .orderBy('id', 'desc')
      .limit(page.limit)
      .select('*');
    if (page.beforeId !== undefined) void query.where('id', '<', page.beforeId);
    return ((await query) as BatchRow[]).map(toBatch);
  },

  /**
   * Sends dead letters back to the head of the outbox in their original order, with a fresh
   * retry age; answers how many batches and items went back.
   */
  async retryDead(
    db: Queryable,
    destinationId: number,
    ids: readonly number[] | undefined,
  ): Promise<{ batches: number; items: number }> {
    const rows: { batch_id: string; item_count: unknown }[] = await deadOf(db, destinationId, ids).select(
      'batch_id',
      'item_count',
    );
    if (rows.length === 0) return { batches: 0, items: 0 };
    const batchIds = rows.map((row) => row.batch_id);
    await db('outbox_items').whereIn('batch_id', batchIds).update({ dead: false });
    await deadOf(db, destinationId, ids).update({
      state: 'open',
      rank: 0,
      // A batch written dead (outbox_full) had no place yet: its first item's is its order.
      first_seq: db.raw('(select min(seq) from outbox_items where outbox_items.batch_id = delivery_batches.batch_id)'),
      first_attempt_at: null,
      next_attempt_at: 0,
      failed_at: null,
    });
    return { batches: rows.length, items: rows.reduce((sum, row) => sum + num(row.item_count), 0) };
  },

  /** Deletes dead letters with their items; answers how many batches went. */
  async discardDead(db: Queryable, destinationId: number, ids: readonly number[] | undefined): Promise<number> {
    const rows: { batch_id: string }[] = await deadOf(db, destinationId, ids).select('batch_id');
    if (rows.length === 0) return 0;
    const batchIds = rows.map((row) => row.batch_id);
    for (let start = 0; start < batchIds.length; start += 500) {
      const chunk = batchIds.slice(start, start + 500);
      await db('outbox_items').whereIn('batch_id', chunk).delete();
      await db('delivery_batches').whereIn('batch_id', chunk).delete();
    }
    return rows.length;
  },

  /** Per destination, items waiting (not dead letters): seeds the in-memory backlog. */
  async backlogs(db: Queryable): Promise<Map<number, number>> {
    const rows: { destination_id: unknown; n: unknown }[] = await db('outbox_items')
      .where({ dead: false })
      .groupBy('destination_id')
      .select('destination_id')
      .count({ n: '*' });
    return new Map(rows.map((row) => [num(row.destination_id), num(row.n)]));
  },

  async deadLetterCounts(db: Queryable): Promise<Map<number, number>> {
    const rows: { destination_id: unknown; n: unknown }[] = await db('delivery_batches')
      .where({ state: 'dead' })
      .groupBy('destination_id')
      .select('destination_id')
      .count({ n: '*' });
    return new Map(rows.map((row) => [num(row.destination_id), num(row.n)]));
  },

  /** When the oldest waiting item of the destination finished processing, or null. */
  async oldestPending(db: Queryable, destinationId: number): Promise<number | null> {
    const row: { processed_at: unknown } | undefined = await db('outbox_items')
      .where({ destination_id: destinationId, dead: false })
      .orderBy('seq')
      .first('processed_at');
    return row ? num(row.processed_at) : null;
  },

  /** PostgreSQL, several instances: takes or renews this destination's lease; false when another instance holds it. */
  async lease(db: Queryable, lease: { destinationId: number; owner: string; until: number; now: number }) {
    const result = (await db.raw(
      `INSERT INTO delivery_leases (destination_id, owner, lease_until) VALUES (?, ?, ?)
       ON CONFLICT (destination_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until
       WHERE delivery_leases.owner = excluded.owner OR delivery_leases.lease_until < ?
       RETURNING owner`,
      [lease.destinationId, lease.owner, lease.until, lease.now],
    )) as { rows?: unknown[] } | unknown[];
    const rows = Array.isArray(result) ? result : (result.rows ?? []);
    return rows.length > 0;
  },

  /**
   * Inside a write transaction: renews the lease only while `owner` still holds it, and answers
   * whether it does. The lease row stays locked until the commit, so no other instance can take
   * the destination over while this transaction cuts a batch.
   */
  async fenceLease(writes: WriteBatch, lease: { destinationId: number; owner: string; until: number }) {
    const rows = await writes.read<{ owner: string }>(
      writes
        .sql('delivery_leases')
        .where({ destination_id: lease.destinationId, owner: lease.owner })
        .update({ lease_until: lease.until })
        .returning('owner'),
    );
    return rows.length > 0;
  },

  async releaseLease(db: Queryable, destinationId: number, owner: string): Promise<void> {
    await db('delivery_leases').where({ destination_id: destinationId, owner }).delete();
  },
};

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../server/db';
import { withSqliteConnection, type SqliteConnection } from '../../server/db/sqlite-exec';
import { createWriter } from '../../server/db/writer';
import { GroupCommit } from '../../server/intake/commit/group-commit';
import { eventWrites, type EventInsert } from '../../server/repositories/events.repo';
import { idempotencyRepo, type IdempotencyInsert } from '../../server/repositories/idempotency.repo';
import { useTestDatabase } from '../helpers/test-gateway';

let db: Db;
let routeId: number;
let endpointId: number;
let sequence = 0;

const row = (overrides: Partial<EventInsert> = {}): EventInsert => ({
  id: `01JTEST${String(sequence++).padStart(19, '0')}`,
  parent_id: null,
  route_id: routeId,
  route_name: 'reads',
  endpoint_id: endpointId,
  endpoint_name: 'Plant',
  transport: 'http',
  topic: null,
  event_type: 'AllData',
  status: 'queued',
  received_at: 1_700_000_000_000 + sequence,
  processed_at: null,
  principal: 'anonymous',
  source_ip: '127.0.0.1',
  request_id: `req-${sequence}`,
  payload: '{"a":1}',
  data: null,
  result: null,
  errors: null,
  warnings: null,
  ...overrides,
});

/** An acknowledgement, as the pipeline writes one: the event row and its idempotency key. */
const insert = (commit: GroupCommit, r: EventInsert, key?: IdempotencyInsert) =>
  commit.acknowledge(key ? [eventWrites.rowInsert(r), idempotencyRepo.rowInsert([key])] : [eventWrites.rowInsert(r)]);

/** SQLite returns the new id as a number, PostgreSQL as `{ id }`. */
const insertedId = (r: { id: number } | number): number => (typeof r === 'number' ? r : r.id);

useTestDatabase('gateway-commit-', (opened) => (db = opened));

beforeAll(async () => {
  [endpointId] = (
    await db
      .knex('endpoints')
      .insert(
        { name: 'Plant', name_key: 'plant', base_route_path: 'plant', base_route_path_key: 'plant', active: true },
        'id',
      )
  ).map(insertedId);
  [routeId] = (
    await db.knex('routes').insert(
      {
        endpoint_id: endpointId,
        name: 'reads',
        name_key: 'reads',
        event_type: 'AllData',
        request_type: 'HttpPost',
        auth_type: 'noauth',
        async: true,
        active: true,
      },
      'id',
    )
  ).map(insertedId);
});

describe('group commit of acknowledgements', () => {
  it('stores every row of a concurrent batch exactly, in one flush per gathering', async () => {
    const commit = new GroupCommit(createWriter(db));
    const rows = Array.from({ length: 40 }, (_, i) =>
      row({
        payload: JSON.stringify({ i, text: 'quote \' and "double" ✓' }),
        principal: i % 2 ? "user:o'brien" : 'anonymous',
      }),
    );
    await Promise.all(rows.map((r) => insert(commit, r)));
    expect(commit.stats.events).toBe(40);
    // Jobs queued in one turn of the event loop share a transaction.
    expect(commit.stats.flushes).toBe(1);
    const stored = await db
      .knex('events')
      .whereIn(
        'id',
        rows.map((r) => r.id),
      )
      .orderBy('id');
    expect(stored.map((s: EventInsert) => [s.id, s.payload, s.principal, Number(s.received_at)])).toEqual(
      rows.map((r) => [r.id, r.payload, r.principal, r.received_at]),
    );
  });

  it('reads every instant it records from the injected clock', async () => {
    const clock = 1_234_567_000;
    const commit = new GroupCommit(createWriter(db), { now: () => clock });
    const stored = insert(commit, row());
    // Queued in this turn of the event loop, not yet taken by a flush.
    expect(commit.oldestWaitingSince).toBe(clock);
    await stored;
    expect(commit.state.lastCommitAt).toBe(clock);
  });

  it('rejects the whole batch when one row cannot be stored, and the next batch commits', async () => {
    const commit = new GroupCommit(createWriter(db));
    const existing = row();
    await insert(commit, existing);
    const fresh = row();
    const results = await Promise.allSettled([insert(commit, fresh), insert(commit, { ...row(), id: existing.id })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // Nobody was told "stored" for a row that is not there.
    expect(await db.knex('events').where({ id: fresh.id }).first()).toBeUndefined();
    // No transaction was left open on the shared connection: later writes and reads work.
    const after = row();
    await insert(commit, after);
    expect(await db.knex('events').where({ id: after.id }).first()).toBeTruthy();
  });

  it('stores idempotency keys with their events and keeps the first of a duplicate key', async () => {
    const commit = new GroupCommit(createWriter(db));
    const key = (status: number) => ({
      route_id: routeId,
      principal: 'ip:10.0.0.1',
      idempotency_key: 'same-key',
      body_hash: 'h',
      status_code: status,
      response_body: `{"status":${status}}`,
      created_at: 1,
    });
    await Promise.all([insert(commit, row(), key(202)), insert(commit, row(), key(203))]);
    const keys = await db.knex('idempotency_keys').where({ idempotency_key: 'same-key' });
    expect(keys.map((k: { status_code: number }) => Number(k.status_code))).toEqual([202]);
  });
});

/**
 * Calls `onExec` with each script sent to the SQLite writer (synchronously, as it is sent), until
 * the returned function restores the connection.
 */
async function watchWriterScripts(onExec: (sql: string) => void): Promise<() => void> {
  const connection = await withSqliteConnection(db.knex, (c) => Promise.resolve(c));
  const exec = connection.exec.bind(connection);
  const watched: SqliteConnection['exec'] = (sql, callback) => {
    onExec(sql);
    exec(sql, callback);
  };
  Object.assign(connection, { exec: watched });
  return () => Reflect.deleteProperty(connection, 'exec');
}

describe.runIf(process.env.GATEWAY_TEST_DATABASE !== 'postgres')('chained acknowledgements (SQLite)', () => {
  /** What happened, in order: `sent <batch>` as its script goes to SQLite, `answered <batch>` as its first waiter hears. */
  let log: string[] = [];
  let restore = () => undefined as unknown;
  const batchOf = (sql: string, batches: EventInsert[][]) => batches.findIndex((b) => sql.includes(b[0]?.id ?? '-'));
  const answered = (name: string, inserts: Promise<void>[]) =>
    Promise.all(inserts).then(() => {
      log.push(`answered ${name}`);
    });

  afterEach(() => {
    restore();
    log = [];
  });

  it('sends the next batch of acknowledgements before answering the one that committed', async () => {
    const commit = new GroupCommit(createWriter(db));
    const a = [row(), row(), row()];
    const b = [row(), row()];
    let waitingB: Promise<void> | undefined;
    restore = await watchWriterScripts((sql) => {
      const batch = batchOf(sql, [a, b]);
      if (batch >= 0) log.push(`sent ${'ab'[batch]}`);
      // B arrives while A is committing.
      if (batch === 0)
        waitingB = answered(
          'b',
          b.map((r) => insert(commit, r)),
        );
    });
    await answered(
      'a',
      a.map((r) => insert(commit, r)),
    );
    await waitingB;
    expect(log).toEqual(['sent a', 'sent b', 'answered a', 'answered b']);
    expect(commit.stats).toMatchObject({ flushes: 2, events: 5 });
    expect(
      await db
        .knex('events')
        .whereIn(
          'id',
          [...a, ...b].map((r) => r.id),
        )
        .count({ n: '*' }),
    ).toEqual([{ n: 5 }]);
  });

  it('chains store jobs the same way: the next transaction goes out before the committed one is answered', async () => {
    const commit = new GroupCommit(createWriter(db));
    const [a, b] = [row(), row()];
    const storing = (r: EventInsert) => commit.store((writes) => Promise.resolve(eventWrites.insertMany(writes, [r])));
    let waitingB: Promise<void> | undefined;
    restore = await watchWriterScripts((sql) => {
      const batch = batchOf(sql, [[a], [b]]);
      if (batch >= 0) log.push(`sent ${'ab'[batch]}`);
      if (batch === 0) waitingB = answered('b', [storing(b)]);
    });
    await answered('a', [storing(a)]);
    await waitingB;
    expect(log).toEqual(['sent a', 'sent b', 'answered a', 'answered b']);
    expect(commit.stats).toMatchObject({ flushes: 2, jobs: 2 });
  });

  it('lets anyone waiting for the writer go first, and then goes on', async () => {
    const commit = new GroupCommit(createWriter(db));
    const a = [row()];
    const b = [row()];
    let others: Promise<unknown>[] = [];
    restore = await watchWriterScripts((sql) => {
      if (batchOf(sql, [a]) !== 0) return;
      others = [
        answered(
          'b',
          b.map((r) => insert(commit, r)),
        ),
        // An admin write (or the worker's claim) asks for the writer meanwhile.
        db.knex.raw('SELECT 1').then(() => log.push('other writer')),
      ];
    });
    await answered(
      'a',
      a.map((r) => insert(commit, r)),
    );
    await Promise.all(others);
    expect(log).toEqual(['answered a', 'other writer', 'answered b']);
  });

  it('chains acknowledgements and a store job waiting together: one transaction for both', async () => {
    const commit = new GroupCommit(createWriter(db));
    const a = [row()];
    const b = [row()];
    const c = row();
    let scriptB = '';
    let others: Promise<unknown>[] = [];
    restore = await watchWriterScripts((sql) => {
      const batch = batchOf(sql, [a, b]);
      if (batch >= 0) log.push(`sent ${'ab'[batch]}`);
      if (batch === 1) scriptB = sql;
      if (batch !== 0) return;
      others = [
        answered(
          'b',
          b.map((r) => insert(commit, r)),
        ),
        commit.store((writes) => Promise.resolve(eventWrites.insertMany(writes, [c]))),
      ];
    });
    await answered(
      'a',
      a.map((r) => insert(commit, r)),
    );
    await Promise.all(others);
    // Chained, and B's rows and the store job's went to SQLite in the one script (one COMMIT).
    expect(log).toEqual(['sent a', 'sent b', 'answered a', 'answered b']);
    expect(scriptB).toContain(c.id);
    expect(scriptB.match(/COMMIT/g)).toHaveLength(1);
    expect(await db.knex('events').where({ id: c.id }).first()).toBeTruthy();
  });

  it('acknowledgements sharing a transaction with a failing store job commit on their own', async () => {
    const commit = new GroupCommit(createWriter(db));
    const existing = row();
    await insert(commit, existing);
    const acks = [row(), row()];
    const [acked, stored] = await Promise.all([
      Promise.allSettled(acks.map((r) => insert(commit, r))),
      // Fails in the database (a duplicate key) after adding its writes: the shared transaction fails.
      commit
        .store((writes) => Promise.resolve(eventWrites.insertMany(writes, [{ ...existing }])))
        .then(
          () => 'stored',
          () => 'refused',
        ),
    ]);
    expect(acked.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(stored).toBe('refused');
    expect(
      await db
        .knex('events')
        .whereIn(
          'id',
          acks.map((r) => r.id),
        )
        .count({ n: '*' }),
    ).toEqual([{ n: 2 }]);
  });

  it("a store job whose writes failed when the next job's read sent them is never answered as stored", async () => {
    const commit = new GroupCommit(createWriter(db));
    const existing = row();
    await insert(commit, existing);
    const settled = (job: Promise<unknown>) =>
      job.then(
        () => 'stored',
        () => 'refused',
      );
    // A's duplicate row waits in the script until B's read sends it, and fails there.
    const outcomes = await Promise.all([
      settled(commit.store((writes) => Promise.resolve(eventWrites.insertMany(writes, [{ ...existing }])))),
      settled(commit.store((writes) => writes.read(writes.sql('events').where('id', existing.id).select('id')))),
    ]);
    // The transaction lost A's writes: it fails as a whole.
    expect(outcomes).toEqual(['refused', 'refused']);
  });

  it('a chained batch that fails rejects only its own waiters, and the writer is left clean', async () => {
    const commit = new GroupCommit(createWriter(db));
    const a = [row()];
    const b = [row(), { ...row(), id: a[0]?.id ?? '' }];
    let outcomesB: Promise<PromiseSettledResult<void>[]> | undefined;
    restore = await watchWriterScripts((sql) => {
      if (batchOf(sql, [a]) === 0 && !outcomesB) outcomesB = Promise.allSettled(b.map((r) => insert(commit, r)));
    });
    await Promise.all(a.map((r) => insert(commit, r)));
    expect((await outcomesB)?.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await db.knex('events').where({ id: b[0]?.id }).first()).toBeUndefined();
    const after = row();
    await insert(commit, after);
    expect(await db.knex('events').where({ id: after.id }).first()).toBeTruthy();
  });

  it('gives the connection back after at most 32 chained flushes', async () => {
    const commit = new GroupCommit(createWriter(db));
    const batches: EventInsert[][] = Array.from({ length: 40 }, () => [row()]);
    const waits: Promise<void>[] = [];
    restore = await watchWriterScripts((sql) => {
      const batch = batchOf(sql, batches);
      if (batch < 0) return;
      log.push(`sent ${batch}`);
      // Each batch arrives while the one before it commits: an unbroken stream of acknowledgements.
      const next = batches[batch + 1];
      if (next)
        waits.push(
          answered(
            String(batch + 1),
            next.map((r) => insert(commit, r)),
          ),
        );
    });
    waits.push(answered('0', batches[0]?.map((r) => insert(commit, r)) ?? []));
    while (waits.length < batches.length) await Promise.all(waits);
    await Promise.all(waits);
    const at = (entry: string) => log.indexOf(entry);
    // Chained: each batch sent before the one before it was answered …
    expect(at('sent 31')).toBeLessThan(at('answered 30'));
    // … until the 32nd flush; then the connection went back to the pool before the 33rd.
    expect(at('sent 32')).toBeGreaterThan(at('answered 31'));
    expect(at('sent 33')).toBeLessThan(at('answered 32'));
  });
});

describe('group commit of store jobs', () => {
  const stored = async (ids: string[]) =>
    (await db.knex('events').whereIn('id', ids).select<{ id: string }[]>('id')).map((r) => r.id).sort();

  it("sends each job's writes after it returns, and a job that throws first fails alone", async () => {
    const commit = new GroupCommit(createWriter(db));
    const [a, b, c] = [row(), row(), row()];
    const jobs = [
      commit.store(async (writes) => {
        eventWrites.insertMany(writes, [a]);
        // Not sent yet: the job's own reads do not see it.
        const seen = await writes.read<{ id: string }>(writes.sql('events').where('id', a.id).select('id'));
        return seen.length;
      }),
      commit.store((writes) => {
        eventWrites.insertMany(writes, [b]);
        return Promise.reject(new Error('refused'));
      }),
      commit.store(async (writes) => {
        // Sent by the job before: visible to the next job's reads in the same transaction.
        const seen = await writes.read<{ id: string }>(writes.sql('events').where('id', a.id).select('id'));
        eventWrites.insertMany(writes, [c]);
        return seen.length;
      }),
    ];
    const outcomes = await Promise.allSettled(jobs);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      0,
      'refused',
      1,
    ]);
    expect(await stored([a.id, b.id, c.id])).toEqual([a.id, c.id].sort());
    expect(commit.stats.jobs).toBe(2);
  });

  it('a write that fails in the database rejects that job and never stores it', async () => {
    const commit = new GroupCommit(createWriter(db));
    const existing = row();
    await insert(commit, existing);
    const [a, c] = [row(), row()];
    const outcomes = await Promise.allSettled([
      commit.store((writes) => Promise.resolve(eventWrites.insertMany(writes, [a]))),
      commit.store((writes) => Promise.resolve(eventWrites.insertMany(writes, [{ ...existing }]))),
      commit.store((writes) => Promise.resolve(eventWrites.insertMany(writes, [c]))),
    ]);
    expect(outcomes[1]?.status).toBe('rejected');
    if (db.kind === 'sqlite') {
      // One script for the flush: its failure rolls the whole transaction back, and every job in
      // it is told so (the sync batcher then retries each item on its own).
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(await stored([a.id, c.id])).toEqual([]);
    } else {
      // PostgreSQL runs each job under its own savepoint.
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await stored([a.id, c.id])).toEqual([a.id, c.id].sort());
    }
    // The connection is left clean: the next flush commits.
    const next = row();
    await commit.store((writes) => Promise.resolve(eventWrites.insertMany(writes, [next])));
    expect(await stored([next.id])).toEqual([next.id]);
  });
});

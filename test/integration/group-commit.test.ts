import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { GroupCommit } from '../../server/ingest/group-commit';
import { eventWrites, type EventInsert } from '../../server/repositories/events.repo';
import { testDatabase } from '../helpers/test-gateway';

let dir: string;
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

/** SQLite returns the new id as a number, PostgreSQL as `{ id }`. */
const insertedId = (r: { id: number } | number): number => (typeof r === 'number' ? r : r.id);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-commit-'));
  db = await createDb(await testDatabase(dir));
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

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('group commit of acknowledgements', () => {
  it('stores every row of a concurrent batch exactly, in one flush per gathering', async () => {
    const commit = new GroupCommit(db);
    const rows = Array.from({ length: 40 }, (_, i) =>
      row({
        payload: JSON.stringify({ i, text: 'quote \' and "double" ✓' }),
        principal: i % 2 ? "user:o'brien" : 'anonymous',
      }),
    );
    await Promise.all(rows.map((r) => commit.insert(r)));
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

  it('rejects the whole batch when one row cannot be stored, and the next batch commits', async () => {
    const commit = new GroupCommit(db);
    const existing = row();
    await commit.insert(existing);
    const fresh = row();
    const results = await Promise.allSettled([commit.insert(fresh), commit.insert({ ...row(), id: existing.id })]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // Nobody was told "stored" for a row that is not there.
    expect(await db.knex('events').where({ id: fresh.id }).first()).toBeUndefined();
    // No transaction was left open on the shared connection: later writes and reads work.
    const after = row();
    await commit.insert(after);
    expect(await db.knex('events').where({ id: after.id }).first()).toBeTruthy();
  });

  it('stores idempotency keys with their events and keeps the first of a duplicate key', async () => {
    const commit = new GroupCommit(db);
    const key = (status: number) => ({
      route_id: routeId,
      principal: 'ip:10.0.0.1',
      idempotency_key: 'same-key',
      body_hash: 'h',
      status_code: status,
      response_body: `{"status":${status}}`,
      created_at: 1,
    });
    await Promise.all([commit.insert(row(), key(202)), commit.insert(row(), key(203))]);
    const keys = await db.knex('idempotency_keys').where({ idempotency_key: 'same-key' });
    expect(keys.map((k: { status_code: number }) => Number(k.status_code))).toEqual([202]);
  });
});

describe('group commit of store jobs', () => {
  const stored = async (ids: string[]) =>
    (await db.knex('events').whereIn('id', ids).select<{ id: string }[]>('id')).map((r) => r.id).sort();

  it("sends each job's writes after it returns, and a job that throws first fails alone", async () => {
    const commit = new GroupCommit(db);
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
    const commit = new GroupCommit(db);
    const existing = row();
    await commit.insert(existing);
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

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../server/db';
import { EVENT_ID, eventIdFloor } from '../../server/ids';
import { eventWrites, type EventSnapshotFilter } from '../../server/repositories/events.repo';
import { firstStatementPlan } from '../helpers/query-plan';

let dir: string;
let db: Db;

const T = 1_800_000_000_000;
/** An id at `ms` with a given tail, so the test chooses how id time and receive time relate. */
const idAt = (ms: number, tail: string) => `${eventIdFloor(ms).slice(0, 10)}${tail.padStart(16, '0')}`;
const row = (id: string, receivedAt: number) => ({
  id,
  route_name: 'all',
  endpoint_id: 1,
  endpoint_name: 'Plant',
  event_type: 'AllData',
  status: 'processed',
  received_at: receivedAt,
  principal: 'anonymous',
  source_ip: '127.0.0.1',
  request_id: 'r',
  payload: '{}',
});
const filter: EventSnapshotFilter = { endpointId: 1, eventType: 'AllData', children: false, facets: [], limit: 10 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-event-pages-'));
  db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') });
  // Older events, far more than a page: a `since` page must not walk them.
  const older = Array.from({ length: 2_000 }, (_, i) => row(idAt(T - 60_000 + i, String(i)), T - 60_000 + i));
  for (let i = 0; i < older.length; i += 200) await db.knex('events').insert(older.slice(i, i + 200));
  await db.knex('events').insert([
    row(idAt(T, '1'), T), // received at `since` exactly
    row(idAt(T - 3, '2'), T + 2), // stored before id and receive time shared one instant: id 3 ms behind
    row(idAt(T - 1, '3'), T - 1), // just before `since`
  ]);
});

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('stored-event snapshot pages', () => {
  it('bound a since page by id as well, without losing an event whose id trails its receive time', async () => {
    const page = await eventWrites.snapshotPage(db.knex, { ...filter, since: T });
    expect(page.map((event) => event.id)).toEqual([idAt(T, '1'), idAt(T - 3, '2')]);
  });

  it('read the page index from the since bound, not from the oldest event', async () => {
    const { statement: query, plan: detail } = await firstStatementPlan(db.knex, () =>
      eventWrites.snapshotPage(db.knex, { ...filter, since: T }),
    );
    expect(detail).toMatch(/USING INDEX events_page_idx \(endpoint_id=\? AND event_type=\? AND id>\?\)/);
    expect(detail).not.toContain('TEMP B-TREE');
    // The walk stops above the older events: the id bound is past the newest of them.
    const bound = query.bindings.find((value) => typeof value === 'string' && EVENT_ID.test(value));
    expect(bound).toBeDefined();
    expect(String(bound) > idAt(T - 60_000 + 1_999, '1999')).toBe(true);
  });
});

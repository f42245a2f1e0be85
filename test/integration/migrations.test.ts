import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../server/db';
import { MIGRATIONS } from '../../server/db/migration-source';
import { eventWrites } from '../../server/repositories/events.repo';
import { firstStatementPlan } from '../helpers/query-plan';

describe('migrations', () => {
  it('registers every file in migrations/, in order', () => {
    const files = readdirSync(join(import.meta.dirname, '../../migrations'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(MIGRATIONS.map((m) => m.name)).toEqual(files);
    for (const name of files) expect(name).toMatch(/^\d{14}_[a-z0-9_]+$/);
  });

  it('migrates a fresh database up, down and up again with the pragmas set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-migrate-'));
    const db = await createDb({ kind: 'sqlite', filename: join(dir, 'gateway.db') });
    try {
      const tables = async () =>
        (
          await db.knex.raw<{ name: string }[]>(
            "select name from sqlite_master where type = 'table' and name not like 'knex_%' and name not like 'sqlite_%'",
          )
        )
          .map((r) => r.name)
          .sort();
      const all = await tables();
      expect(all).toEqual(
        expect.arrayContaining([
          'endpoints',
          'routes',
          'users',
          'external_users',
          'access_tokens',
          'bearer_tokens',
          'events',
          'idempotency_keys',
          'audit_log',
          'settings',
        ]),
      );
      await db.rollbackAll();
      expect(await tables()).toEqual([]);
      await db.migrate();
      expect(await tables()).toEqual(all);
      expect(await db.knex.raw('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      expect(await db.knex.raw('PRAGMA synchronous')).toEqual([{ synchronous: 2 }]);
      expect(await db.knex.raw('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
      expect(await db.knex.raw('PRAGMA wal_autocheckpoint')).toEqual([{ wal_autocheckpoint: 10000 }]);
      const indexes = (
        await db.knex.raw<{ tbl_name: string }[]>("select name, tbl_name from sqlite_master where type = 'index'")
      ).map((r) => r.tbl_name);
      for (const table of ['access_tokens', 'bearer_tokens', 'routes', 'users', 'external_users'])
        expect(indexes).toContain(table);
      // Every ingested event pays for each index on events: only the used ones are there, and
      // submissions (parent_id NULL) stay out of the partial parent index its lookups still use.
      const eventIndexes = (await db.knex.raw<{ name: string; partial: number }[]>('PRAGMA index_list(events)'))
        .map((r) => `${r.name}${r.partial ? ' (partial)' : ''}`)
        .sort();
      expect(eventIndexes).toEqual([
        'events_page_idx',
        'events_parent_idx (partial)',
        'events_queued_order_idx (partial)',
        'events_received_idx',
        'sqlite_autoindex_events_1',
      ]);
      const plan = await db.knex.raw<{ detail: string }[]>(
        "EXPLAIN QUERY PLAN SELECT id FROM events WHERE parent_id IN ('a', 'b')",
      );
      expect(plan.map((r) => r.detail).join('\n')).toContain('USING INDEX events_parent_idx');
      // A snapshot page of stored events reads the index in page order and stops at the limit:
      // no sort of all the endpoint's events of that type.
      const { plan: pageDetail } = await firstStatementPlan(db.knex, () =>
        eventWrites.snapshotPage(db.knex, {
          endpointId: 1,
          eventType: 'AllData',
          children: false,
          facets: [],
          limit: 101,
        }),
      );
      expect(pageDetail).toContain('USING INDEX events_page_idx');
      expect(pageDetail).not.toContain('TEMP B-TREE');
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

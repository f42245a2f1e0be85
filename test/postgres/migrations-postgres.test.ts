import { describe, expect, inject, it } from 'vitest';
import { createDb } from '../../server/db';
import { MIGRATIONS } from '../../server/db/migration-source';
import { createDatabase } from '../helpers/postgres-cluster';

describe('migrations on PostgreSQL', () => {
  it('migrates up, down and up again, and instances starting at once migrate once', async () => {
    const url = await createDatabase(inject('postgresUrl'), `gw_migrate_${process.pid}`);
    // Four "instances" opening the same fresh database at the same moment: without a lock they
    // race to create Knex's bookkeeping tables and collide in the catalog.
    const [a, ...others] = await Promise.all([1, 2, 3, 4].map(() => createDb({ kind: 'postgres', url })));
    if (!a) throw new Error('no instance');
    try {
      const tables = async () =>
        (
          await a
            .knex('information_schema.tables')
            .where({ table_schema: 'public' })
            .whereNot('table_name', 'like', 'knex_%')
            .select<{ table_name: string }[]>('table_name')
        )
          .map((r) => r.table_name)
          .sort();
      const all = await tables();
      expect(all).toEqual(
        expect.arrayContaining([
          'events',
          'routes',
          'access_tokens',
          'bearer_tokens',
          'config_version',
          'tag_inventory',
        ]),
      );
      const applied = await a.knex('knex_migrations').count<{ n: number }[]>({ n: '*' });
      // Each migration applied once, not once per instance.
      expect(Number(applied[0]?.n)).toBe(MIGRATIONS.length);
      await a.rollbackAll();
      expect(await tables()).toEqual([]);
      await a.migrate();
      expect(await tables()).toEqual(all);
      // bigint columns come back as numbers, as on SQLite
      await a.knex('settings').insert({ key: 'probe', value: '1' });
      const row = await a.knex('config_version').first<{ version: unknown }>('version');
      expect(typeof row?.version).toBe('number');
    } finally {
      await Promise.all([a, ...others].map((db) => db.close()));
    }
  });

  it('names an unreachable database in one line', async () => {
    await expect(createDb({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' })).rejects.toThrow(
      /^cannot open the PostgreSQL database: .*ECONNREFUSED/,
    );
  });
});

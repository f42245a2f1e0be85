import type { Queryable } from './db-types';

/** Settings are stored as one JSON value per key; unset keys fall back to defaults in the service. */
export const settingsRepo = {
  async getAll(db: Queryable): Promise<Record<string, unknown>> {
    const rows: { key: string; value: string }[] = await db('settings').select('key', 'value');
    return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
  },

  async putMany(db: Queryable, values: Record<string, unknown>): Promise<void> {
    const rows = Object.entries(values).map(([key, value]) => ({ key, value: JSON.stringify(value) }));
    if (rows.length > 0) await db('settings').insert(rows).onConflict('key').merge();
  },

  async deleteAll(db: Queryable): Promise<void> {
    await db('settings').delete();
  },
};

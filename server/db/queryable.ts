import type { Knex } from 'knex';

/** A statement runs on the shared connection or inside a caller's transaction. */
export type Queryable = Knex | Knex.Transaction;

/** Which SQL dialect a connection or transaction speaks (for the few dialect-specific statements). */
export function dialectOf(db: Queryable): 'sqlite' | 'postgres' {
  return (db.client as { config: { client?: unknown } }).config.client === 'pg' ? 'postgres' : 'sqlite';
}

import type { Knex } from 'knex';

/** The part of Knex's client (typed `any` by Knex) that lends out a raw connection. */
interface ConnectionLender {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/** The node-sqlite3 `Database` method used here. */
export interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
}

/** Above this much SQL text a batch goes through Knex statement by statement instead. */
export const MAX_SCRIPT_CHARS = 32 * 1024 * 1024;

/** Runs a script of statements (no bindings, no results) in one trip to SQLite's thread. */
export const execScript = (connection: SqliteConnection, sql: string): Promise<void> =>
  new Promise<void>((resolve, reject) => connection.exec(sql, (error) => (error ? reject(error) : resolve())));

/**
 * Lends `use` the raw SQLite connection behind `db`: the pool's (taken from the pool for the
 * duration) or, inside a Knex transaction, the transaction's own (Knex's transaction client hands
 * that out and its release is a no-op), so a script sent this way is part of the transaction.
 */
export async function withSqliteConnection<T>(
  db: Knex | Knex.Transaction,
  use: (connection: SqliteConnection) => Promise<T>,
): Promise<T> {
  const lender = db.client as ConnectionLender;
  const connection = (await lender.acquireConnection()) as SqliteConnection;
  try {
    return await use(connection);
  } finally {
    await lender.releaseConnection(connection);
  }
}

import type { Knex } from 'knex';

/** The part of Knex's client (typed `any` by Knex) that lends out a raw connection. */
interface ConnectionLender {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
  /** Knex's tarn pool (absent on a transaction's client). */
  pool?: { numPendingAcquires(): number } | null;
}

/** Whether anyone is waiting for a connection of `db`'s pool (a connection lent out is wanted back). */
export const poolHasWaiters = (db: Knex): boolean =>
  ((db.client as ConnectionLender).pool?.numPendingAcquires() ?? 0) > 0;

/** The node-sqlite3 `Database` methods used here. */
export interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
  run(sql: string, callback: (error: Error | null) => void): void;
  prepare(sql: string, callback: (error: Error | null) => void): PreparedStatement;
}

/** A node-sqlite3 `Statement`. */
interface PreparedStatement {
  all(params: readonly unknown[], callback: (error: Error | null, rows: unknown[]) => void): void;
  finalize(callback: () => void): void;
}

/** Above this much SQL text a batch goes through Knex statement by statement instead. */
export const MAX_SCRIPT_CHARS = 32 * 1024 * 1024;

/** Whoever waits for a connection's next trip (see `nextTrip`). */
const tripWatchers = new WeakMap<SqliteConnection, () => void>();

/**
 * Resolves as the next script or statement goes to `connection`'s thread (`execScript`,
 * `allPrepared` and script-transaction reads say so): for a caller that wants SQLite busy before
 * it does other work.
 */
export const nextTrip = (connection: SqliteConnection): Promise<void> =>
  new Promise<void>((resolve) => tripWatchers.set(connection, resolve));

/** Called as a trip goes out; tells whoever waits for it (see `nextTrip`). */
export function tripSent(connection: SqliteConnection): void {
  // Every read and write passes here, GETs on the read pool included: nobody waiting costs a lookup only.
  const watcher = tripWatchers.get(connection);
  if (!watcher) return;
  tripWatchers.delete(connection);
  watcher();
}

/** Runs a script of statements (no bindings, no results) in one trip to SQLite's thread. */
export const execScript = (connection: SqliteConnection, sql: string): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    connection.exec(sql, (error) => (error ? reject(error) : resolve()));
    tripSent(connection);
  });

/**
 * Lends `use` the driver's raw connection behind `db`: the pool's (taken from the pool for the
 * duration) or, inside a Knex transaction, the transaction's own (Knex's transaction client hands
 * that out and its release is a no-op), so what is sent this way is part of the transaction.
 */
export async function withRawConnection<C, T>(
  db: Knex | Knex.Transaction,
  use: (connection: C) => Promise<T>,
): Promise<T> {
  const lender = db.client as ConnectionLender;
  const connection = (await lender.acquireConnection()) as C;
  try {
    return await use(connection);
  } finally {
    await lender.releaseConnection(connection);
  }
}

export const withSqliteConnection = <T>(
  db: Knex | Knex.Transaction,
  use: (connection: SqliteConnection) => Promise<T>,
): Promise<T> => withRawConnection(db, use);

/** Prepared statements kept per connection (see `allPrepared`). */
const prepared = new WeakMap<SqliteConnection, Map<string, Promise<PreparedStatement>>>();

/**
 * Runs a fixed statement (its text does not depend on the values) with `params` and returns its
 * rows. The statement is prepared once per connection and reused: one trip to SQLite's thread per
 * call instead of two (prepare, then step). Kept statements must be finalized before the
 * connection closes (`finalizePrepared`), or SQLite refuses to close it.
 */
export async function allPrepared<Row>(
  connection: SqliteConnection,
  sql: string,
  params: readonly unknown[],
): Promise<Row[]> {
  let statements = prepared.get(connection);
  if (!statements) prepared.set(connection, (statements = new Map<string, Promise<PreparedStatement>>()));
  let statement = statements.get(sql);
  if (!statement) {
    statement = new Promise<PreparedStatement>((resolve, reject) => {
      const made = connection.prepare(sql, (error) => (error ? reject(error) : resolve(made)));
    });
    statements.set(sql, statement);
    // A statement that does not prepare is not kept: the next call reports its error afresh.
    statement.catch(() => statements.delete(sql));
  }
  const ready = await statement;
  return new Promise<Row[]>((resolve, reject) => {
    ready.all(params, (error, rows) => (error ? reject(error) : resolve(rows as Row[])));
    tripSent(connection);
  });
}

/** Finalizes the statements `allPrepared` kept for this connection. */
export async function finalizePrepared(connection: SqliteConnection): Promise<void> {
  const statements = prepared.get(connection);
  prepared.delete(connection);
  for (const statement of statements?.values() ?? []) {
    const ready = await statement.catch(() => null);
    if (ready) await new Promise<void>((resolve) => ready.finalize(() => resolve()));
  }
}

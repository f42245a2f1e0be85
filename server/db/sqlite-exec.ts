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
  /** Without `params`: the statement runs again with the values bound last. */
  all(params: readonly unknown[], callback: (error: Error | null, rows: unknown[]) => void): void;
  all(callback: (error: Error | null, rows: unknown[]) => void): void;
  finalize(callback: () => void): void;
}

/**
 * A statement kept by `allPrepared`, with the values it was last given. Binding values again
 * costs more than the binding: SQLite marks a statement whose plan read a bound value (any
 * `LIMIT ?` does) as expired on every bind, even of the same value, and compiles it again on the
 * next step. So the same values are not bound again (figures: docs/performance.md, P20;
 * record docs/decisions/0020-kept-statement-not-bound-again.md).
 */
class KeptStatement {
  /** The last call that bound values (calls on one statement run in call order). */
  private lastBinding: { values: readonly unknown[]; failed: boolean } | undefined = undefined;

  constructor(readonly statement: PreparedStatement) {}

  all(params: readonly unknown[], callback: (error: Error | null, rows: unknown[]) => void): void {
    const relied = this.lastBinding;
    if (relied && !relied.failed && sameValues(relied.values, params)) {
      this.statement.all((error, rows) => {
        // The binding this call relied on failed (it ran first): the values may not all be bound.
        if (relied.failed) this.bind(params, callback);
        else callback(error, rows);
      });
      return;
    }
    this.bind(params, callback);
  }

  private bind(params: readonly unknown[], callback: (error: Error | null, rows: unknown[]) => void): void {
    const binding = { values: [...params], failed: false };
    this.lastBinding = binding;
    this.statement.all(params, (error, rows) => {
      if (error) binding.failed = true;
      callback(error, rows);
    });
  }
}

/** Only values that cannot change in place count as the same (a Buffer could be refilled). */
const sameValues = (a: readonly unknown[], b: readonly unknown[]): boolean =>
  a.length === b.length &&
  a.every((value, index) => (typeof value !== 'object' || value === null) && Object.is(value, b[index]));

/** Above this much SQL text a batch goes through Knex statement by statement instead. */
export const MAX_SCRIPT_CHARS = 32 * 1024 * 1024;

/**
 * Everything the gateway keeps per SQLite connection, in one object: made when the pool opens
 * the connection (`create-db.ts`, which knows whether it is read-only), dropped with it.
 */
export class SqliteConnectionState {
  /** Whoever waits for the connection's next trip (see `nextTrip`). */
  tripWatcher: (() => void) | null = null;
  /** Statements prepared once and reused (see `allPrepared`); finalized before the connection closes. */
  readonly prepared = new Map<string, Promise<KeptStatement>>();
  /** The `data_version` this connection last confirmed (see `SqliteScriptTransaction`). */
  confirmedVersion: number | undefined = undefined;
  /**
   * Answers kept while the database is unchanged, most recently used last (see
   * `readUnlessUnchanged`). Only on read-only connections: `data_version` moves when *another*
   * connection commits, so on one that writes it would miss its own changes.
   */
  readonly kept: Map<string, { version: number; value: unknown }> | null;

  constructor(readonly readOnly: boolean) {
    this.kept = readOnly ? new Map() : null;
  }
}

/** The raw connections are the driver's objects: their state is found through this one map. */
const states = new WeakMap<SqliteConnection, SqliteConnectionState>();

/** Gives a newly opened connection its state (a writer's unless `readOnly`). */
export function openState(connection: SqliteConnection, readOnly: boolean): SqliteConnectionState {
  const state = new SqliteConnectionState(readOnly);
  states.set(connection, state);
  return state;
}

/** A connection's state; one the pool did not open (a test's own) gets a writer's. */
export const stateOf = (connection: SqliteConnection): SqliteConnectionState =>
  states.get(connection) ?? openState(connection, false);

/**
 * Resolves as the next script or statement goes to `connection`'s thread (`execScript`,
 * `allPrepared` and script-transaction reads say so): for a caller that wants SQLite busy before
 * it does other work.
 */
export const nextTrip = (connection: SqliteConnection): Promise<void> =>
  new Promise<void>((resolve) => (stateOf(connection).tripWatcher = resolve));

/** Called as a trip goes out; tells whoever waits for it (see `nextTrip`). */
export function tripSent(connection: SqliteConnection): void {
  // Every read and write passes here, GETs on the read pool included: nobody waiting costs a lookup only.
  const state = stateOf(connection);
  const watcher = state.tripWatcher;
  if (!watcher) return;
  state.tripWatcher = null;
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
  const statements = stateOf(connection).prepared;
  let statement = statements.get(sql);
  if (!statement) {
    statement = new Promise<KeptStatement>((resolve, reject) => {
      const made = connection.prepare(sql, (error) => (error ? reject(error) : resolve(new KeptStatement(made))));
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
  const statements = stateOf(connection).prepared;
  const all = [...statements.values()];
  statements.clear();
  for (const statement of all) {
    const ready = await statement.catch(() => null);
    if (ready) await new Promise<void>((resolve) => ready.statement.finalize(() => resolve()));
  }
}

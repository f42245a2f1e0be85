import type { Knex } from 'knex';
import { dialectOf, type Queryable } from './queryable';
import { postgresLiteral, sqliteLiteral, type OnConflict, type SqlValue } from './sql-literal';
import { execScript, withRawConnection, withSqliteConnection } from './sqlite-exec';
import type { SqliteScriptTransaction } from './sqlite-transaction';
import { knexStatements, scriptOf, type Write, type WriteQuery } from './write-script';

export type { OnConflict, RowInsert, Write, WriteQuery, WriteRow } from './write-script';

/**
 * The reads and writes of one unit of group-transaction work (the side effects and rows of a
 * flush's sync events, or of the worker's batch). Statements are built with `sql` and never run
 * directly: reads go through `read` at once, writes are added and sent together by `send()`.
 * Reads see everything sent before; they do not see writes added but not yet sent, so a step
 * that must read what it wrote sends first.
 *
 * Why: on SQLite a statement through node-sqlite3 is two trips to the driver's thread (prepare,
 * then step), and under load each trip's callback waits behind the HTTP work on the main thread.
 * A sync UHFTagRead flush wrote with three or four statements; sent as one script it is one trip. Row inserts are
 * rendered straight to `INSERT … VALUES` with literals (`sqliteLiteral`, which cannot carry SQL
 * of their own): Knex's multi-row form spent almost as much main-thread time building and
 * inlining as the whole VALUES script took, and far more in all (figures: docs/performance.md,
 * P02). PostgreSQL takes the same kind of script (its own literals), in
 * one round trip.
 *
 * A batch works on a Knex transaction (`new WriteBatch(trx)`), or on SQLite on a script
 * transaction (`WriteBatch.onScript`), where `send()` only queues the writes: the transaction
 * runs them before its next read or with its COMMIT, in the same trip.
 */
export class WriteBatch {
  private writes: Write[] = [];
  private script: SqliteScriptTransaction | null = null;
  private settles: ((committed: boolean) => void)[] = [];

  /** Builds the statements for `read` and `add`. Never run one through it directly. */
  readonly sql: Queryable;

  constructor(db: Queryable) {
    this.sql = db;
  }

  /** A batch on an open SQLite script transaction: reads run on it, sent writes join its next trip. */
  static onScript(transaction: SqliteScriptTransaction): WriteBatch {
    const batch = new WriteBatch(transaction.sql);
    batch.script = transaction;
    return batch;
  }

  get dialect(): 'sqlite' | 'postgres' {
    return dialectOf(this.sql);
  }

  /**
   * Runs a fixed SQL statement (`?` placeholders; its text must not depend on the values, so
   * build lists with `json_each(?)` rather than one placeholder per item) and returns its rows.
   * On a script transaction it is prepared once per connection: one trip instead of two.
   */
  async readSql<Row>(sql: string, bindings: readonly unknown[]): Promise<Row[]> {
    if (this.script) return this.script.readPrepared<Row>(sql, bindings);
    const result = (await this.sql.raw(sql, [...bindings] as Knex.RawBinding[])) as Row[] | { rows: Row[] };
    return Array.isArray(result) ? result : result.rows;
  }

  /** Runs a query built with `sql` and returns its rows. */
  async read<Row>(query: WriteQuery): Promise<Row[]> {
    if (this.script) return this.script.read<Row>(query);
    return (await query) as Row[];
  }

  /** A statement built with Knex (an UPDATE, say), run as it is. */
  add(...queries: WriteQuery[]): void {
    for (const query of queries) this.writes.push({ query });
  }

  /**
   * `settle` is told once whether this batch's writes committed: after the COMMIT of the
   * transaction that carried them, or when that transaction (or the job's savepoint) rolled back,
   * or the job failed before they were sent. State kept outside the database (an in-memory
   * count) follows the writes through it: a job done again after a rollback must not count twice.
   * Only the writer that runs the batch's transaction tells (`settled`); `settle` must not throw.
   */
  whenSettled(settle: (committed: boolean) => void): void {
    this.settles.push(settle);
  }

  /** The writer: the transaction that carried this batch's writes ended (see `whenSettled`). */
  settled(committed: boolean): void {
    const settles = this.settles;
    this.settles = [];
    for (const settle of settles) settle(committed);
  }

  /** Inserts rows (every row need not name every column: a missing one is NULL). */
  insertRows<Row extends { [K in keyof Row]: SqlValue }>(
    table: string,
    rows: readonly Row[],
    onConflict?: OnConflict,
  ): void {
    if (rows.length > 0) this.writes.push({ table, rows, onConflict });
  }

  /**
   * Runs the writes added so far, in the order added: inside the batch's transaction, or, for a
   * batch on the pool, as a transaction of their own. Where every value has a literal they go as
   * one script in one trip (PostgreSQL's simple query protocol takes several statements too);
   * otherwise through Knex, one statement after another.
   */
  async send(): Promise<void> {
    const writes = this.writes;
    this.writes = [];
    if (writes.length === 0) return;
    if (this.script) return this.script.queue(writes);
    const alone = !(this.sql as Partial<Knex.Transaction>).isTransaction;
    const sqlite = this.dialect === 'sqlite';
    const script = scriptOf(writes, sqlite ? sqliteLiteral : postgresLiteral);
    if (script !== null && sqlite) {
      await withSqliteConnection(this.sql, (connection) => {
        const run = (sql: string) => execScript(connection, sql);
        return alone ? inOneTrip(run, 'BEGIN IMMEDIATE;', script) : run(script);
      });
    } else if (script !== null) {
      // Set for the transaction only: the literals rely on it (it is PostgreSQL's default anyway).
      const head = 'SET LOCAL standard_conforming_strings = on;';
      await withRawConnection(this.sql, (connection: PostgresConnection) => {
        const run = (sql: string) => connection.query(sql);
        return alone ? inOneTrip(run, `BEGIN;${head}`, script) : run(head + script);
      });
    } else if (alone) {
      // Statements built on the pool must run on the transaction's connection, not wait for one.
      await this.sql.transaction(async (trx) => {
        for (const query of knexStatements(trx, writes)) await query.transacting(trx);
      });
    } else {
      for (const query of knexStatements(this.sql, writes)) await query;
    }
  }
}

/** The node-postgres `Client` method used here. */
interface PostgresConnection {
  query(text: string): Promise<unknown>;
}

/**
 * `begin`, `script` and COMMIT in one trip (`run` sends text to SQLite's exec or PostgreSQL's
 * simple query protocol); on failure, ROLLBACK before the connection goes back to the pool.
 */
async function inOneTrip(run: (sql: string) => Promise<unknown>, begin: string, script: string): Promise<void> {
  try {
    await run(`${begin}${script}COMMIT;`);
  } catch (error) {
    await run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

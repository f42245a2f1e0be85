import knexFactory, { type Knex } from 'knex';
import { allPrepared, execScript, withSqliteConnection, type SqliteConnection } from './sqlite-exec';
import { knexStatements, sqliteScript, type Write, type WriteQuery } from './write-batch';

let builder: Knex | undefined;

/**
 * Builds SQLite statements but has no connection: a statement run through it by mistake fails at
 * once, where one run through the pool would wait for the connection a script transaction holds.
 */
function sqliteBuilder(): Knex {
  builder ??= knexFactory({ client: 'sqlite3', useNullAsDefault: true });
  return builder;
}

/**
 * A write transaction on SQLite's raw connection in as few trips to the driver's thread as the
 * work allows. Writes are queued and sent as one script right before the next read, or together
 * with the COMMIT; the BEGIN IMMEDIATE rides in the first script. A flush that only writes is one
 * trip, one that reads first is four (BEGIN, the read's prepare and step, the writes with COMMIT),
 * three with a prepared read (`readPrepared`), where a Knex transaction took seven (BEGIN and
 * COMMIT are each a prepare and a step too) and
 * under load every trip waits for a turn of the main thread.
 *
 * Reads run inside the transaction (after BEGIN IMMEDIATE holds the write lock), so what they see
 * cannot change before the writes land, even with another process on the same file.
 */
export class SqliteScriptTransaction {
  private pending: Write[] = [];
  private begun = false;
  /** Writes queued so far, sent or not. */
  queued = 0;

  constructor(private readonly connection: SqliteConnection) {}

  /** Builds statements for this transaction's reads and writes (see `sqliteBuilder`). */
  get sql(): Knex {
    return sqliteBuilder();
  }

  queue(writes: readonly Write[]): void {
    this.pending.push(...writes);
    this.queued += writes.length;
  }

  async read<Row>(query: WriteQuery): Promise<Row[]> {
    await this.sendPending('');
    return (await query.connection(this.connection)) as Row[];
  }

  /** Like `read`, for a fixed statement: prepared once per connection, so one trip instead of two. */
  async readPrepared<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    await this.sendPending('');
    return allPrepared<Row>(this.connection, sql, params);
  }

  async commit(): Promise<void> {
    await this.sendPending('COMMIT;');
  }

  /** BEGIN (the first time), the queued writes and `tail`: one script, or statement by statement. */
  private async sendPending(tail: string): Promise<void> {
    const head = this.begun ? '' : 'BEGIN IMMEDIATE;';
    const writes = this.pending;
    this.pending = [];
    const script = sqliteScript(writes);
    if (script !== null) {
      if (head || script || tail) await execScript(this.connection, head + script + tail);
      this.begun = true;
      return;
    }
    // A value without a literal (or a huge batch): the same writes through Knex, one at a time.
    if (head) await execScript(this.connection, head);
    this.begun = true;
    for (const query of knexStatements(this.sql, writes)) await query.connection(this.connection);
    if (tail) await execScript(this.connection, tail);
  }
}

/**
 * Runs `use` in a script transaction on the pool's SQLite connection and commits; if `use` or the
 * commit fails, rolls back (before the connection goes back to the pool) and rethrows.
 */
export function inScriptTransaction<T>(
  db: Knex,
  use: (transaction: SqliteScriptTransaction) => Promise<T>,
): Promise<T> {
  return withSqliteConnection(db, async (connection) => {
    const transaction = new SqliteScriptTransaction(connection);
    try {
      const value = await use(transaction);
      await transaction.commit();
      return value;
    } catch (error) {
      // Nothing may stay open on the shared connection; "no transaction is active" is fine here.
      await execScript(connection, 'ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

import knexFactory, { type Knex } from 'knex';
import { allPrepared, execScript, stateOf, tripSent, withSqliteConnection, type SqliteConnection } from './sqlite-exec';
import { knexStatements, sqliteScript, type Write, type WriteQuery } from './write-script';
import { sqlProfile, statementKind, type SqlProfile } from './sql-profile';

let builder: Knex | undefined;

/**
 * Builds SQLite statements but has no connection: a statement run through it by mistake fails at
 * once, where one run through the pool would wait for the connection a script transaction holds.
 */
function sqliteBuilder(): Knex {
  builder ??= knexFactory({ client: 'sqlite3', useNullAsDefault: true });
  return builder;
}

const GUARD_CONSTRAINT = 'unchanged_since_read';

/** Fails the script (and so the transaction) if another connection committed since `version`. */
const guardScript = (version: number): string =>
  `CREATE TEMP TABLE IF NOT EXISTS read_guard (ok INTEGER CONSTRAINT ${GUARD_CONSTRAINT} CHECK (ok = 1));` +
  `INSERT INTO temp.read_guard (ok) SELECT data_version = ${version} FROM pragma_data_version;` +
  'DELETE FROM temp.read_guard;';

/** Another connection wrote between this transaction's reads and its writes: nothing was written. */
export class ConcurrentWrite extends Error {
  constructor(options: { cause: unknown }) {
    super('another connection wrote to the database while this transaction was reading; nothing was written', options);
    this.name = 'ConcurrentWrite';
  }
}

/**
 * A write transaction on SQLite's raw connection in as few trips to the driver's thread as the
 * work allows. Writes are queued and sent as one script right before the next read, or together
 * with the COMMIT; the BEGIN IMMEDIATE rides in the first script. A flush that only writes is one
 * trip; UHFTagRead's (one prepared read, then writes) is two, where a Knex transaction took seven
 * (BEGIN and COMMIT are each a prepare and a step too) and under load every trip waits for a turn
 * of the main thread, so even a BEGIN costs many times what it costs idle (figures:
 * docs/performance.md, P03).
 *
 * Reads before the first write run before the BEGIN, so the script that writes must prove nothing
 * changed in between: it starts with a guard that fails (CHECK constraint) unless the
 * connection's `PRAGMA data_version` (which moves only when another connection commits) is still
 * the one confirmed before those reads. A failed guard rolls everything back, and the next
 * transaction confirms the version afresh. With this process the only writer (the normal case)
 * the guard always passes.
 */
export class SqliteScriptTransaction {
  private pending: Write[] = [];
  private begun = false;
  /** Set when reads ran before the BEGIN: the version the write script must still find. */
  private readSince: number | undefined;
  /** Writes queued so far, sent or not. */
  queued = 0;
  /**
   * Set when a trip carrying queued writes failed: those writes are gone (whichever job's read
   * or commit sent them), so nothing after it may run or commit as if they were stored.
   */
  broken: { error: unknown } | null = null;

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
    await this.beforeRead();
    const rows = query.connection(this.connection).then((result) => result as Row[]);
    tripSent(this.connection);
    return sqlProfile ? sqlProfile.time(`read ${statementKind(query.toSQL().sql)}`, () => rows) : rows;
  }

  /** Like `read`, for a fixed statement: prepared once per connection, so one trip instead of two. */
  async readPrepared<Row>(sql: string, params: readonly unknown[]): Promise<Row[]> {
    await this.beforeRead();
    const rows = allPrepared<Row>(this.connection, sql, params);
    return sqlProfile ? sqlProfile.time(`read ${statementKind(sql)}`, () => rows) : rows;
  }

  async commit(): Promise<void> {
    if (this.broken) throw this.broken.error;
    // Only reads, no transaction begun: nothing to commit.
    if (!this.begun && this.pending.length === 0) return;
    await this.sendPending('COMMIT;');
  }

  /**
   * Queued writes run before a read (they begin the transaction). Before any write, the read runs
   * outside one, after the connection's data version is known (one trip, once per connection).
   */
  private async beforeRead(): Promise<void> {
    if (this.broken) throw this.broken.error;
    if (this.begun || this.pending.length > 0) return this.sendPending('');
    if (this.readSince !== undefined) return;
    const state = stateOf(this.connection);
    let version = state.confirmedVersion;
    if (version === undefined) {
      const [row] = await allPrepared<{ v: number }>(
        this.connection,
        'SELECT data_version AS v FROM pragma_data_version',
        [],
      );
      version = row?.v ?? 0;
      state.confirmedVersion = version;
    }
    this.readSince = version;
  }

  /** Forgets the confirmed version after a failed guard, so the next transaction reads it again. */
  guardFailed(error: unknown): boolean {
    if (!(error instanceof Error) || !error.message.includes(GUARD_CONSTRAINT)) return false;
    stateOf(this.connection).confirmedVersion = undefined;
    return true;
  }

  /** `sendWrites`, remembering a failure: the writes it took are lost with it. */
  private async sendPending(tail: string): Promise<void> {
    try {
      await this.sendWrites(tail);
    } catch (error) {
      this.broken = { error };
      throw error;
    }
  }

  /** BEGIN (the first time, guarded after reads), the queued writes and `tail`: one script, or statement by statement. */
  private async sendWrites(tail: string): Promise<void> {
    const head = this.begun ? '' : `BEGIN IMMEDIATE;${this.readSince === undefined ? '' : guardScript(this.readSince)}`;
    const writes = this.pending;
    this.pending = [];
    if (sqlProfile) return this.sendProfiled(sqlProfile, head, writes, tail);
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

  /** `sendWrites` under the SQL profile: each write a trip of its own, timed by kind. */
  private async sendProfiled(profile: SqlProfile, head: string, writes: readonly Write[], tail: string): Promise<void> {
    if (head) await profile.time('begin', () => execScript(this.connection, head));
    this.begun = true;
    for (const write of writes) {
      const script = sqliteScript([write]);
      if (script === null) {
        for (const query of knexStatements(this.sql, [write])) await query.connection(this.connection);
        continue;
      }
      if (script) await profile.time(statementKind(script), () => execScript(this.connection, script));
    }
    if (tail) await profile.time(tail.replace(/;$/, '').toLowerCase(), () => execScript(this.connection, tail));
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
  return withSqliteConnection(db, (connection) => scriptTransactionOn(connection, use));
}

/** `inScriptTransaction` on a connection the caller already holds. */
export async function scriptTransactionOn<T>(
  connection: SqliteConnection,
  use: (transaction: SqliteScriptTransaction) => Promise<T>,
): Promise<T> {
  const transaction = new SqliteScriptTransaction(connection);
  try {
    const value = await use(transaction);
    await transaction.commit();
    return value;
  } catch (error) {
    // Nothing may stay open on the shared connection; "no transaction is active" is fine here.
    await execScript(connection, 'ROLLBACK').catch(() => undefined);
    throw transaction.guardFailed(error) ? new ConcurrentWrite({ cause: error }) : error;
  }
}

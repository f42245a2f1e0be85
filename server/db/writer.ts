import type { Knex } from 'knex';
import type { Db } from './create-db';
import { nextTrip, poolHasWaiters, withSqliteConnection, type SqliteConnection } from './sqlite-exec';
import { scriptTransactionOn } from './sqlite-transaction';
import { WriteBatch } from './write-batch';

/** One job's part of a transaction: it reads and adds writes through its batch, and returns its value. */
export type WriteJob = (writes: WriteBatch) => Promise<unknown>;

export type JobOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A transaction sent: committed with each job's outcome, or failed (rolled back) as a whole. */
export type SentTransaction = { committed: true; outcomes: JobOutcome[] } | { committed: false; error: unknown };

/** The writer while it is held: transactions sent one after another on it. */
export interface WriterSession {
  /**
   * Sends `jobs` as one transaction and resolves after its COMMIT (or its failure). A job that
   * throws fails alone where the database allows it (a savepoint on PostgreSQL; on SQLite, a job
   * that threw before adding writes); otherwise the whole transaction fails.
   */
  send(jobs: readonly WriteJob[]): Promise<SentTransaction>;
  /** Writes that need no read, as one transaction: one trip to the database on either kind. */
  sendWrites(add: (writes: WriteBatch) => void): Promise<SentTransaction>;
  /** Resolves when the next trip to the database goes out (so the caller can overlap work with it). */
  nextTrip(): Promise<void>;
}

/**
 * The one owner of the data plane's writes: it knows how a database runs a transaction, and
 * nothing about what is written (the group commit gathers the jobs, the repositories write).
 * One transaction engine per database: SQLite script transactions on its one writer connection,
 * Knex transactions on PostgreSQL.
 */
export interface Writer {
  /**
   * Runs `use` with the writer held: on SQLite its one connection, so that transactions can
   * follow each other without going back to the pool; on PostgreSQL nothing is held.
   */
  hold<T>(use: (session: WriterSession) => Promise<T>): Promise<T>;
  /** Whether anyone else waits for the writer: a held run of transactions gives it up then. */
  othersWaiting(): boolean;
  /**
   * Whether its transactions run one at a time (SQLite's one writer connection): work waiting
   * together then shares a transaction, and its disk flush, rather than queue for one each.
   */
  readonly serial: boolean;
}

export function createWriter(db: Db): Writer {
  return db.kind === 'sqlite' ? new SqliteWriter(db.knex) : new PostgresWriter(db.knex);
}

/** SQLite: one writer connection; each transaction one script (BEGIN, writes, COMMIT) plus a trip per read. */
class SqliteWriter implements Writer {
  readonly serial = true;

  constructor(private readonly knex: Knex) {}

  hold<T>(use: (session: WriterSession) => Promise<T>): Promise<T> {
    return withSqliteConnection(this.knex, (connection) => use(new SqliteSession(connection)));
  }

  othersWaiting(): boolean {
    return poolHasWaiters(this.knex);
  }
}

class SqliteSession implements WriterSession {
  constructor(private readonly connection: SqliteConnection) {}

  nextTrip(): Promise<void> {
    return nextTrip(this.connection);
  }

  sendWrites(add: (writes: WriteBatch) => void): Promise<SentTransaction> {
    return this.send([(writes) => Promise.resolve(add(writes))]);
  }

  async send(jobs: readonly WriteJob[]): Promise<SentTransaction> {
    const outcomes: JobOutcome[] = [];
    const batches: WriteBatch[] = [];
    try {
      await scriptTransactionOn(this.connection, async (transaction) => {
        for (const job of jobs) {
          const writes = WriteBatch.onScript(transaction);
          batches.push(writes);
          const queuedBefore = transaction.queued;
          try {
            const value = await job(writes);
            await writes.send();
            outcomes.push({ ok: true, value });
          } catch (error) {
            // Writes of this job already in the script cannot be taken out, and a failed trip
            // lost the writes it carried, whichever jobs added them: the transaction fails.
            if (jobs.length === 1 || transaction.queued !== queuedBefore || transaction.broken) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      settle(batches, null);
      return { committed: false, error };
    }
    settle(batches, outcomes);
    return { committed: true, outcomes };
  }
}

/**
 * Tells each job's batch whether its writes committed (`WriteBatch.whenSettled`), before anyone
 * waiting on the transaction is answered: those of jobs that succeeded in a transaction that
 * committed (`outcomes`, in the jobs' order), none when it failed (`null`).
 */
function settle(batches: readonly (WriteBatch | undefined)[], outcomes: readonly JobOutcome[] | null): void {
  batches.forEach((batch, i) => batch?.settled(outcomes?.[i]?.ok === true));
}

/** PostgreSQL: transactions run side by side on pooled connections; nothing to hold or chain. */
class PostgresWriter implements Writer, WriterSession {
  readonly serial = false;

  constructor(private readonly knex: Knex) {}

  hold<T>(use: (session: WriterSession) => Promise<T>): Promise<T> {
    return use(this);
  }

  othersWaiting(): boolean {
    return true;
  }

  nextTrip(): Promise<void> {
    return Promise.resolve();
  }

  /** A batch on the pool sends itself as a transaction of its own: BEGIN, the script and COMMIT in one trip. */
  async sendWrites(add: (writes: WriteBatch) => void): Promise<SentTransaction> {
    const writes = new WriteBatch(this.knex);
    try {
      add(writes);
      await writes.send();
    } catch (error) {
      writes.settled(false);
      return { committed: false, error };
    }
    writes.settled(true);
    return { committed: true, outcomes: [{ ok: true, value: undefined }] };
  }

  /** One Knex transaction: each job under its own savepoint, unless it is alone. */
  async send(jobs: readonly WriteJob[]): Promise<SentTransaction> {
    const alone = jobs.length === 1;
    const outcomes: JobOutcome[] = [];
    // Each job's batch, by the job's index (a savepoint that could not be opened made none).
    const batches: (WriteBatch | undefined)[] = [];
    const run = async (trx: Knex.Transaction, job: WriteJob, index: number) => {
      const writes = new WriteBatch(trx);
      batches[index] = writes;
      const value = await job(writes);
      await writes.send();
      return value;
    };
    try {
      await this.knex.transaction(async (trx) => {
        for (const [index, job] of jobs.entries()) {
          try {
            const value = alone
              ? await run(trx, job, index)
              : await trx.transaction((savepoint) => run(savepoint, job, index));
            outcomes.push({ ok: true, value });
          } catch (error) {
            if (alone) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      settle(batches, null);
      return { committed: false, error };
    }
    settle(batches, outcomes);
    return { committed: true, outcomes };
  }
}

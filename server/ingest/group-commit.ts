import type { Knex } from 'knex';
import type { Db } from '../db';
import { nextTrip, poolHasWaiters, withSqliteConnection, type SqliteConnection } from '../db/sqlite-exec';
import { scriptTransactionOn } from '../db/sqlite-transaction';
import { isDatabaseUnavailable } from '../db/unavailable';
import { WriteBatch } from '../db/write-batch';
import { WRITER_QUEUE_WAIT_MS, WriterUnreachableError } from '../db/writer-limits';
import { eventWrites, type EventInsert } from '../repositories/events.repo';
import { idempotencyRepo, type IdempotencyInsert } from '../repositories/idempotency.repo';
import { FLUSH_LIMITS, type FlushLimits } from './ingest-load';

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** When the job was queued: it is given up if it waits WRITER_QUEUE_WAIT_MS for a flush to take it. */
  queuedAt?: number;
}

type InsertJob = { kind: 'insert'; row: EventInsert; idempotency?: IdempotencyInsert } & Waiter;
type WorkJob = { kind: 'work'; run: (trx: Knex.Transaction) => Promise<unknown> } & Waiter;
type StoreJob = { kind: 'store'; store: (writes: WriteBatch) => Promise<unknown> } & Waiter;
type Job = InsertJob | WorkJob | StoreJob;
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const isInsert = (job: Job): job is InsertJob => job.kind === 'insert';
const isStore = (job: Job): job is StoreJob => job.kind === 'store';

/** A batch sent on a held connection, committed or failed: whether it committed, and how to tell its waiters. */
interface Sent {
  ok: boolean;
  answer(): void;
}

/** Adds the event rows of insert jobs, and the idempotency keys of those that carry one. */
function addRows(writes: WriteBatch, inserts: InsertJob[]): void {
  eventWrites.insertMany(
    writes,
    inserts.map((job) => job.row),
  );
  idempotencyRepo.insertMany(
    writes,
    inserts.flatMap((job) => (job.idempotency ? [job.idempotency] : [])),
  );
}

/** A commit's result, as a value: a chain awaits it without a rejection going unhandled meanwhile. */
const settled = (commit: Promise<void>): Promise<{ error: unknown } | null> =>
  commit.then(
    () => null,
    (error: unknown) => ({ error }),
  );

/** A store job as a Knex job (PostgreSQL): the batch on the job's transaction, sent at its end. */
const asWorkJob = (job: StoreJob): WorkJob => ({
  kind: 'work',
  run: async (trx) => {
    const writes = new WriteBatch(trx);
    const value = await job.store(writes);
    await writes.send();
    return value;
  },
  resolve: (value) => job.resolve(value),
  reject: (error) => job.reject(error),
});

/** The write path's last outcomes, recorded as they happen (for `/_health`). */
export interface WriterState {
  lastCommitAt: number | null;
  lastErrorAt: number | null;
  /** The last failed commit's error code (SQLITE_FULL, SQLITE_BUSY, ECONNREFUSED, …). */
  lastError: string | null;
  /** When a job was last given up for waiting too long for a flush (the writer stalls). */
  lastGivenUpAt: number | null;
  /** When the flush now running started (null when none runs). */
  flushingSince: number | null;
}

export interface CommitStats {
  /** Transactions committed. */
  flushes: number;
  /** Event rows written by `insert` jobs. */
  events: number;
  /** All jobs (inserts and work) that committed. */
  jobs: number;
}

/** Counters of several group commits together. */
export const sumStats = (...all: CommitStats[]): CommitStats => ({
  flushes: all.reduce((sum, stats) => sum + stats.flushes, 0),
  events: all.reduce((sum, stats) => sum + stats.events, 0),
  jobs: all.reduce((sum, stats) => sum + stats.jobs, 0),
});

/**
 * Group commit: every write of the data plane (async acknowledgements, sync processing, the
 * worker's results) joins the next transaction. While one transaction is committing, new jobs
 * gather; when it returns, they all go in the next one: one multi-row INSERT and one disk flush
 * for however many requests arrived meanwhile. Under light load a job waits for nothing but its
 * own commit; under heavy load the batches grow by themselves. A job's promise settles only after
 * the COMMIT has returned, which is what makes a 202 durable.
 */
export class GroupCommit {
  private pending: Job[] = [];
  private flushing: Promise<void> | null = null;
  private scheduled = false;
  private expiry: NodeJS.Timeout | null = null;
  readonly stats: CommitStats = { flushes: 0, events: 0, jobs: 0 };
  /** What the write path last saw, for `/_health`: read without waiting on the writer. */
  readonly state: WriterState = {
    lastCommitAt: null,
    lastErrorAt: null,
    lastError: null,
    lastGivenUpAt: null,
    flushingSince: null,
  };

  constructor(
    private readonly db: Db,
    private readonly limits: FlushLimits = FLUSH_LIMITS,
    private readonly reachMs = WRITER_QUEUE_WAIT_MS,
  ) {}

  /** Jobs waiting for a flush to take them (not yet sent to the database). */
  get waiting(): number {
    return this.pending.length;
  }

  /** When the oldest waiting job was queued (null when none waits). */
  get oldestWaitingSince(): number | null {
    return this.pending[0]?.queuedAt ?? null;
  }

  /** Writes an event row (and its idempotency record); resolves once durably committed. */
  insert(row: EventInsert, idempotency?: IdempotencyInsert): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.enqueue({ kind: 'insert', row, idempotency, resolve: () => resolve(), reject });
    });
  }

  /**
   * Runs `work` inside the next group transaction, under a savepoint: if it throws, only its own
   * writes roll back and only its promise rejects. Resolves with its result after the commit.
   */
  run<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.enqueue({ kind: 'work', run: work, resolve: (value) => resolve(value as T), reject });
    });
  }

  /**
   * Runs `work` in the next group transaction with a `WriteBatch` to read through and add writes
   * to; its writes are sent when it returns. Resolves with its result after the commit, and only
   * its own promise rejects if it throws. On SQLite these jobs share a script transaction (see
   * `SqliteScriptTransaction`: a flush of them is one trip plus one per read, where `run` costs
   * seven for UHFTagRead); on PostgreSQL they are `run` jobs.
   */
  store<T>(work: (writes: WriteBatch) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.enqueue({ kind: 'store', store: work, resolve: (value) => resolve(value as T), reject });
    });
  }

  /** Waits until everything queued so far has been committed (or failed). */
  async drain(): Promise<void> {
    while (this.flushing || this.pending.length > 0) {
      if (!this.flushing) this.startFlush();
      await this.flushing;
    }
  }

  private enqueue(job: Job): void {
    job.queuedAt = Date.now();
    this.pending.push(job);
    this.armExpiry();
    if (this.flushing || this.scheduled) return;
    // Yield once so requests parsed in the same turn of the event loop share the transaction.
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.flushing) this.startFlush();
    });
  }

  /**
   * A job that no flush has taken within `reachMs` (the writer is stalled: the database's write
   * lock held elsewhere, a disk that does not return) is refused at once with
   * `WriterUnreachableError` (503 with Retry-After) instead of waiting for ever. Nothing of it
   * was sent, so nothing of it can commit later. Jobs wait in order, so the oldest are in front.
   */
  private armExpiry(): void {
    const oldest = this.pending[0]?.queuedAt;
    if (this.expiry || oldest === undefined) return;
    this.expiry = setTimeout(
      () => {
        this.expiry = null;
        const now = Date.now();
        while (this.pending.length > 0 && now - (this.pending[0].queuedAt ?? now) >= this.reachMs) {
          const job = this.pending.shift()!;
          this.state.lastGivenUpAt = now;
          job.reject(new WriterUnreachableError(now - (job.queuedAt ?? now)));
        }
        this.armExpiry();
      },
      Math.max(0, oldest + this.reachMs - Date.now()),
    );
    this.expiry.unref();
  }

  private startFlush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending.splice(0, this.limits.jobs);
    this.state.flushingSince = Date.now();
    this.flushing = this.flush(batch).finally(() => {
      this.flushing = null;
      this.state.flushingSince = null;
      if (this.pending.length > 0) this.startFlush();
    });
  }

  private async flush(batch: Job[]): Promise<void> {
    const inserts = batch.filter(isInsert);
    const works = batch.filter((job): job is WorkJob => job.kind === 'work');
    const stores = batch.filter(isStore);
    if (this.db.kind !== 'sqlite') works.push(...stores.map(asWorkJob));
    // The acknowledgements commit first, in one trip of their own (one script: BEGIN, the rows,
    // COMMIT): they are not held back by the processing that shares this flush.
    if (this.db.kind === 'sqlite') {
      if (inserts.length > 0) await this.chain(inserts, isInsert, (c, jobs) => this.sendAcknowledgements(c, jobs));
      if (stores.length > 0) await this.chain(stores, isStore, (c, jobs) => this.sendStores(c, jobs));
    } else if (inserts.length > 0) await this.commitAcknowledgements(inserts);
    if (works.length > 0) await this.commitWithKnex(works);
  }

  /** Insert jobs alone, as a transaction of their own (PostgreSQL). */
  private async commitAcknowledgements(inserts: InsertJob[]): Promise<void> {
    const writes = new WriteBatch(this.db.knex);
    addRows(writes, inserts);
    this.answerAcknowledgements(inserts, await settled(writes.send()));
  }

  /**
   * Batches of one kind on SQLite's writer, chained: when a batch has committed and jobs of the
   * same kind alone are waiting, the next batch goes to SQLite on the same connection *before*
   * the committed batch's waiters are answered. SQLite's thread then works on batch k+1 while the
   * main thread writes batch k's responses; unchained, it idled until those responses were
   * written and the pool had lent the connection out again, while the main thread idled in turn
   * as the batch ran. A store batch first runs its jobs up to their first read, so the answers
   * wait until that read is on its way (`nextTrip`). Figures: docs/decisions.md.
   *
   * The chain ends, and the connection goes back to the pool, as soon as anything else waits:
   * a job of another kind among the next jobs (the next flush takes it, as before), anyone
   * waiting for the writer's pool (an admin write, the worker's claim), or after
   * `limits.chained` flushes; and after a batch that failed.
   */
  private async chain<J extends Job>(
    first: J[],
    isKind: (job: Job) => job is J,
    send: (connection: SqliteConnection, jobs: J[]) => Promise<Sent>,
  ): Promise<void> {
    let unanswered: J[] | null = first;
    try {
      await withSqliteConnection(this.db.knex, async (connection) => {
        let sent = send(connection, first);
        for (let flushes = 1; ; flushes++) {
          const done = await sent;
          const next = done.ok && flushes < this.limits.chained ? this.takeNext(isKind) : null;
          if (next) {
            const onItsWay = nextTrip(connection);
            sent = send(connection, next);
            // A store batch runs its jobs up to their first read before anything goes out.
            await Promise.race([onItsWay, sent]);
          }
          unanswered = next;
          done.answer();
          if (!next) return;
        }
      });
    } catch (error) {
      // Only when no connection could be had: nothing of `unanswered` was sent.
      this.failed(error);
      for (const job of unanswered ?? []) job.reject(error);
    }
  }

  /** The next batch to chain: jobs of one kind only, and nobody else waiting for the connection. */
  private takeNext<J extends Job>(isKind: (job: Job) => job is J): J[] | null {
    if (this.pending.length === 0 || poolHasWaiters(this.db.knex)) return null;
    const head = this.pending.slice(0, this.limits.jobs);
    const jobs = head.filter(isKind);
    if (jobs.length !== head.length) return null;
    this.pending.splice(0, jobs.length);
    return jobs;
  }

  /** Acknowledgements as one script transaction (BEGIN, the rows, COMMIT: one trip). */
  private async sendAcknowledgements(connection: SqliteConnection, inserts: InsertJob[]): Promise<Sent> {
    const failed = await settled(
      scriptTransactionOn(connection, (transaction) => {
        const writes = WriteBatch.onScript(transaction);
        addRows(writes, inserts);
        return writes.send();
      }),
    );
    return { ok: failed === null, answer: () => this.answerAcknowledgements(inserts, failed) };
  }

  private answerAcknowledgements(inserts: InsertJob[], failed: { error: unknown } | null): void {
    if (failed) {
      this.failed(failed.error);
      for (const job of inserts) job.reject(failed.error);
      return;
    }
    this.committed(inserts.length, inserts.length);
    for (const job of inserts) job.resolve(undefined);
  }

  /**
   * Store jobs in one script transaction. A job that throws before any of its writes were queued
   * fails alone; one that fails later (or a failed script) rolls back the whole transaction and
   * every job in it rejects, as a failed flush does.
   */
  private async sendStores(connection: SqliteConnection, jobs: StoreJob[]): Promise<Sent> {
    const outcomes = new Map<StoreJob, Outcome>();
    try {
      await scriptTransactionOn(connection, async (transaction) => {
        for (const job of jobs) {
          const writes = WriteBatch.onScript(transaction);
          const queuedBefore = transaction.queued;
          try {
            const value = await job.store(writes);
            await writes.send();
            outcomes.set(job, { ok: true, value });
          } catch (error) {
            if (jobs.length === 1 || transaction.queued !== queuedBefore) throw error;
            outcomes.set(job, { ok: false, error });
          }
        }
      });
    } catch (error) {
      this.failed(error);
      return { ok: false, answer: () => jobs.forEach((job) => job.reject(error)) };
    }
    return { ok: true, answer: () => this.settle(jobs, outcomes) };
  }

  /** One Knex transaction: each work job under its own savepoint. */
  private async commitWithKnex(works: WorkJob[]): Promise<void> {
    const outcomes = new Map<WorkJob, Outcome>();
    // A job alone in its transaction needs no savepoint: its failure fails nobody else.
    const alone = works.length === 1;
    try {
      await this.db.knex.transaction(async (trx) => {
        for (const job of works) {
          try {
            const value = alone ? await job.run(trx) : await trx.transaction((savepoint) => job.run(savepoint));
            outcomes.set(job, { ok: true, value });
          } catch (error) {
            if (alone) throw error;
            outcomes.set(job, { ok: false, error });
          }
        }
      });
    } catch (error) {
      // The transaction did not commit: nobody in it may be told otherwise.
      this.failed(error);
      for (const job of works) job.reject(error);
      return;
    }
    this.settle(works, outcomes);
  }

  /** After a commit: counts it, then tells each job its outcome. */
  private settle<J extends Waiter>(jobs: J[], outcomes: Map<J, Outcome>): void {
    this.committed(0, jobs.filter((job) => outcomes.get(job)?.ok).length);
    for (const job of jobs) {
      const outcome = outcomes.get(job);
      if (outcome?.ok) job.resolve(outcome.value);
      else job.reject(outcome?.error);
    }
  }

  /** Storage trouble (not a job's own refusal) is remembered for `/_health`. */
  private failed(error: unknown): void {
    if (!isDatabaseUnavailable(error)) return;
    this.state.lastErrorAt = Date.now();
    const code = (error as { code?: unknown }).code;
    this.state.lastError = typeof code === 'string' ? code : (error as Error).name;
  }

  private committed(events: number, jobs: number): void {
    this.state.lastCommitAt = Date.now();
    this.stats.flushes += 1;
    this.stats.events += events;
    this.stats.jobs += jobs;
  }
}

import type { RowInsert, WriteBatch } from '../../db/write-batch';
import { isDatabaseUnavailable } from '../../db/unavailable';
import type { JobOutcome, Writer, WriterSession, WriteJob } from '../../db/writer';
import { WRITER_QUEUE_WAIT_MS, WriterUnreachableError } from '../../db/writer-limits';
import { FLUSH_LIMITS, type FlushLimits } from './ingest-load';

interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** When the job was queued: it is given up if it waits WRITER_QUEUE_WAIT_MS for a flush to take it. */
  queuedAt?: number;
}

/** An acknowledgement adds rows only; a store job reads and writes through its batch. */
type AckJob = { kind: 'ack'; rows: readonly RowInsert[] } & Waiter;
type StoreJob = { kind: 'store'; store: (writes: WriteBatch) => Promise<unknown> } & Waiter;
type Job = AckJob | StoreJob;

const isAck = (job: Job): job is AckJob => job.kind === 'ack';
const isStore = (job: Job): job is StoreJob => job.kind === 'store';

/** The acknowledgements of one transaction: each table's rows as one multi-row INSERT. */
function addAcknowledgements(writes: WriteBatch, jobs: readonly AckJob[]): void {
  const byTable = new Map<
    string,
    { table: string; rows: RowInsert['rows'][number][]; onConflict?: RowInsert['onConflict'] }
  >();
  for (const job of jobs)
    for (const insert of job.rows) {
      const key = `${insert.table}\u0000${JSON.stringify(insert.onConflict ?? null)}`;
      const gathered = byTable.get(key);
      if (gathered) gathered.rows.push(...insert.rows);
      else byTable.set(key, { ...insert, rows: [...insert.rows] });
    }
  for (const { table, rows, onConflict } of byTable.values()) writes.insertRows(table, rows, onConflict);
}

/** A transaction's outcome for each of its jobs, in the jobs' order; or its failure as a whole. */
type Sent = { committed: true; outcomes: JobOutcome[] } | { committed: false; error: unknown };

/**
 * Sends `jobs` as one transaction: each store job, then the acknowledgements' rows as one write.
 * The acknowledgements come last so that their rows ride in the script that commits: the store
 * jobs' reads run first (before the transaction's first write, as for store jobs alone), and the
 * transaction takes no trip more than its store jobs need. Acknowledgements alone are one trip
 * (`sendWrites`). When acknowledgements shared the transaction with store jobs and it failed for
 * anything but an unavailable database, the acknowledgements go again on their own: processing
 * that fails must not refuse an intake that would have committed alone. The store jobs are
 * refused with the error (the batchers then retry each item on its own).
 */
async function sendJobs(session: WriterSession, jobs: readonly Job[]): Promise<Sent> {
  const acks = jobs.filter(isAck);
  const stores = jobs.filter(isStore).map((job) => job.store);
  const acknowledge = (writes: WriteBatch) => addAcknowledgements(writes, acks);
  if (stores.length === 0) return spread(jobs, await session.sendWrites(acknowledge));
  const work: WriteJob[] = acks.length > 0 ? [...stores, (writes) => Promise.resolve(acknowledge(writes))] : stores;
  const sent = await session.send(work);
  if (sent.committed || acks.length === 0 || isDatabaseUnavailable(sent.error)) return spread(jobs, sent);
  const alone = await session.sendWrites(acknowledge);
  if (!alone.committed) return alone;
  const refused: JobOutcome = { ok: false, error: sent.error };
  return { committed: true, outcomes: jobs.map((job) => (isAck(job) ? (alone.outcomes[0] ?? refused) : refused)) };
}

/** A transaction's outcomes (each store job's, then the acknowledgements' one write) spread over `jobs`. */
function spread(jobs: readonly Job[], sent: Sent): Sent {
  if (!sent.committed) return sent;
  const stores = jobs.filter(isStore).length;
  const missing: JobOutcome = { ok: false, error: new Error('the transaction returned no outcome for this job') };
  let store = 0;
  const outcomes = jobs.map((job) => (isAck(job) ? sent.outcomes[stores] : sent.outcomes[store++]) ?? missing);
  return { committed: true, outcomes };
}

/**
 * The group commits the processing paths write through: `work` takes processing, `acks` the rows
 * written as events arrive. On SQLite both are the one group commit; on PostgreSQL the
 * acknowledgements have their own, so a 202 never waits behind a processing flush.
 */
export interface CommitLanes {
  work: GroupCommit;
  acks: GroupCommit;
}

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
  /** Acknowledgements committed (one event row each). */
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
 *
 * It only gathers and answers: how a transaction runs on each database is the `Writer`'s, and
 * what is written is the jobs'. How much a flush and a chain of flushes take is `IngestLoad`'s.
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

  private readonly limits: FlushLimits;
  private readonly reachMs: number;
  /** The clock every instant above is read from (the gateway's, injected like everywhere else). */
  private readonly now: () => number;

  constructor(
    private readonly writer: Writer,
    options: { limits?: FlushLimits; reachMs?: number; now?: () => number } = {},
  ) {
    this.limits = options.limits ?? FLUSH_LIMITS;
    this.reachMs = options.reachMs ?? WRITER_QUEUE_WAIT_MS;
    this.now = options.now ?? Date.now;
  }

  /** Jobs waiting for a flush to take them (not yet sent to the database). */
  get waiting(): number {
    return this.pending.length;
  }

  /** When the oldest waiting job was queued (null when none waits). */
  get oldestWaitingSince(): number | null {
    return this.pending[0]?.queuedAt ?? null;
  }

  /**
   * Writes one acknowledgement's rows (an event row and its idempotency key, say); resolves once
   * durably committed. The rows of all acknowledgements in a flush go in one INSERT per table
   * (see `flush` for the transaction they share).
   */
  acknowledge(rows: readonly RowInsert[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.enqueue({ kind: 'ack', rows, resolve: () => resolve(), reject });
    });
  }

  /**
   * Runs `work` in the next group transaction with a `WriteBatch` to read through and add writes
   * to; its writes are sent when it returns. Resolves with its result after the commit. If it
   * throws, it fails alone where the database allows (see `WriterSession.send`).
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
    job.queuedAt = this.now();
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
        const now = this.now();
        while (this.pending.length > 0 && now - (this.pending[0].queuedAt ?? now) >= this.reachMs) {
          const job = this.pending.shift()!;
          this.state.lastGivenUpAt = now;
          job.reject(new WriterUnreachableError(now - (job.queuedAt ?? now)));
        }
        this.armExpiry();
      },
      Math.max(0, oldest + this.reachMs - this.now()),
    );
    this.expiry.unref();
  }

  private startFlush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending.splice(0, this.limits.jobs);
    this.state.flushingSince = this.now();
    this.flushing = this.flush(batch).finally(() => {
      this.flushing = null;
      this.state.flushingSince = null;
      if (this.pending.length > 0) this.startFlush();
    });
  }

  /**
   * Where transactions run one at a time (SQLite), the flush's acknowledgements and processing
   * share one transaction and one disk flush. Where they run side by side (PostgreSQL), the
   * acknowledgements commit first, in a transaction of their own, so processing does not hold
   * them back.
   */
  private async flush(batch: Job[]): Promise<void> {
    if (this.writer.serial) {
      await this.chain(batch);
      return;
    }
    const acks = batch.filter(isAck);
    const stores = batch.filter(isStore);
    const unavailable = acks.length > 0 ? await this.chain(acks) : null;
    // The writer just could not be reached (its lock held elsewhere, the database gone): the rest
    // of this flush would only wait as long again, past the bound a request may wait (SPEC §13).
    // Nothing of it was sent, so nothing of it can commit.
    if (unavailable) for (const job of stores) job.reject(unavailable.error);
    else if (stores.length > 0) await this.chain(stores);
  }

  /**
   * Batches on the held writer, chained: when a batch has committed and jobs are waiting, the
   * next batch goes to the database *before* the committed batch's waiters are answered. SQLite's
   * thread then works on batch k+1 while the main thread writes batch k's responses; unchained,
   * it idled until those responses were written and the pool had lent the connection out again,
   * while the main thread idled in turn as the batch ran. A store batch first runs its jobs up to
   * their first read, so the answers wait until that read is on its way (`nextTrip`). Figures:
   * docs/performance.md, P04.
   *
   * The chain ends, and the writer is given back, as soon as anyone else waits for the writer
   * (an admin write), after `limits.chained` flushes, and after a batch that failed. PostgreSQL
   * holds nothing (`othersWaiting` is always true there), so it never chains. Returns the error
   * when the last transaction found the database unavailable.
   */
  private async chain(first: Job[]): Promise<{ error: unknown } | null> {
    let unanswered: Job[] | null = first;
    let unavailable: { error: unknown } | null = null;
    try {
      await this.writer.hold(async (session) => {
        let jobs = first;
        let sent = sendJobs(session, jobs);
        for (let flushes = 1; ; flushes++) {
          const done = await sent;
          const next = done.committed && flushes < this.limits.chained ? this.takeNext() : null;
          if (next) {
            const onItsWay = session.nextTrip();
            sent = sendJobs(session, next);
            await Promise.race([onItsWay, sent]);
          }
          unanswered = next;
          this.answer(jobs, done);
          if (!done.committed && isDatabaseUnavailable(done.error)) unavailable = { error: done.error };
          if (!next) return;
          jobs = next;
        }
      });
    } catch (error) {
      // Only when the writer could not be had: nothing of `unanswered` was sent.
      this.failed(error);
      for (const job of unanswered ?? []) job.reject(error);
      if (isDatabaseUnavailable(error)) unavailable = { error };
    }
    return unavailable;
  }

  /** The next batch to chain, unless somebody else waits for the writer. */
  private takeNext(): Job[] | null {
    if (this.pending.length === 0 || this.writer.othersWaiting()) return null;
    return this.pending.splice(0, this.limits.jobs);
  }

  /** After a transaction: counts it, then tells each job its outcome. */
  private answer(jobs: readonly Job[], sent: Sent): void {
    if (!sent.committed) {
      // The transaction did not commit: nobody in it may be told otherwise.
      this.failed(sent.error);
      for (const job of jobs) job.reject(sent.error);
      return;
    }
    this.committed(jobs.filter(isAck).length, sent.outcomes.filter((outcome) => outcome.ok).length);
    jobs.forEach((job, i) => {
      const outcome = sent.outcomes[i];
      if (outcome?.ok) job.resolve(outcome.value);
      else job.reject(outcome?.error);
    });
  }

  /** Storage trouble (not a job's own refusal) is remembered for `/_health`. */
  private failed(error: unknown): void {
    if (!isDatabaseUnavailable(error)) return;
    this.state.lastErrorAt = this.now();
    const code = (error as { code?: unknown }).code;
    this.state.lastError = typeof code === 'string' ? code : (error as Error).name;
  }

  private committed(events: number, jobs: number): void {
    this.state.lastCommitAt = this.now();
    this.stats.flushes += 1;
    this.stats.events += events;
    this.stats.jobs += jobs;
  }
}

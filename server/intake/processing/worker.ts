import { Alarm } from '../../alarm';
import type { Db } from '../../db';
import { isDatabaseUnavailable, isStorageError } from '../../db/unavailable';
import type { Logger } from '../../logger';
import { eventWrites, eventsRepo, type ClaimedBatch, type ClaimedRow } from '../../repositories/events.repo';
import type { IngestLoad } from '../commit/ingest-load';
import { LeaseLost, type QueuedPath } from './queued-path';
import type { QueueDepth } from '../commit/queue-depth';
import { storedOutcome } from './stored-outcome';

const MAX_ATTEMPTS = 8;
const IDLE_POLL_MS = 1000;
/** How long a claimed event stays with its worker; after that another instance may take it. */
export const LEASE_MS = 15_000;

/** 1 s, 2 s, 4 s … capped at a minute: transient storage trouble gets time to clear. */
export const retryDelayMs = (attempt: number): number => Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));

/**
 * Processes queued events in the background: at-least-once (a crash before the commit leaves the
 * event queued and it is processed again at the next start), each event ending in exactly one
 * state. Storage errors are retried with backoff; after the last attempt the event is `failed`.
 */
export class Worker {
  private running = false;
  private loop: Promise<void> | null = null;
  /** New work arrived: ends the idle wait, or is kept for it while a pass runs. */
  private readonly arrivals = new Alarm();
  /** Events of the current batch that met an unavailable database (left queued, not retried one by one). */
  private unavailableIn = 0;
  /** Batches in a row that met an unavailable database: the worker's backoff. */
  private outage = 0;
  /** Ends a `pause` early: only `stop` does, new work does not. */
  private readonly stopping = new Alarm();

  constructor(
    private readonly deps: {
      db: Db;
      /** Processes each claimed event. */
      queued: QueuedPath;
      depth: QueueDepth;
      /** The load policy: batch size, and the processing rate it measures from each batch. */
      load: IngestLoad;
      logger: Logger;
      now: () => number;
      /** The route's current `epcisLenient` (routes can change between receive and processing). */
      lenientFor: (routeId: number | null) => Promise<boolean>;
      /** This instance's name on leases. */
      owner: string;
    },
  ) {}

  /** Seeds the queue depth; with `process` false the queue is only counted, never worked. */
  async start(process = true): Promise<void> {
    this.deps.depth.reset(await eventsRepo.countQueued(this.deps.db.knex));
    if (!process) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Whether this instance works the queue (`start(false)` only counts it). */
  get processing(): boolean {
    return this.running;
  }

  /** New work arrived: skip the idle wait. */
  notify(): void {
    this.arrivals.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.arrivals.wake();
    this.stopping.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let more: boolean;
      // Full batches back to back while work is queued, whatever else is arriving (IngestLoad).
      const limit = this.deps.load.workerBatch;
      const startedAt = performance.now();
      try {
        // What arrived until now this claim sees: only later arrivals end the idle wait.
        this.arrivals.clear();
        const { rows, cut } = await this.claim(limit);
        // Work is left when the claim was full, by count or by bytes.
        more = rows.length === limit || cut;
        // All of the batch goes to the group commit at once, so it shares transactions.
        this.unavailableIn = 0;
        await Promise.all(rows.map((row) => this.processOne(row)));
        // The rate is events per second: a batch cut by bytes (large events) would understate it.
        this.deps.load.recordBatch(rows.length, performance.now() - startedAt, rows.length === limit);
      } catch (error) {
        // A failed pass waits like an empty one rather than claiming the same events at once.
        more = false;
        this.deps.logger.warn('worker pass failed', { error: error instanceof Error ? error.message : String(error) });
      }
      if (this.unavailableIn > 0) {
        // The database cannot be written: the events stay queued as they are, and the worker
        // waits, backing off, instead of queueing behind the writer (or holding it) once per event.
        this.outage += 1;
        await this.pause(retryDelayMs(this.outage));
        continue;
      }
      this.outage = 0;
      if (!more && this.running) {
        await this.idle();
        // The queue ran dry: let the next batch gather rather than take each event as it lands.
        await this.pause(this.deps.load.workerGatherMs);
      }
    }
  }

  /**
   * The next batch of due events. On PostgreSQL several instances share the queue, so each event
   * is leased (a write, rows skipped when another instance holds them). On SQLite this process is
   * the database's only writer and works one batch at a time, so reading the batch on a reader
   * connection is the claim: the writer is spared a transaction (and a disk flush) per batch, and
   * the batch's own transaction still confirms each event is queued before it is stored.
   */
  private claim(limit: number): Promise<ClaimedBatch> {
    const { db, now, owner, load } = this.deps;
    const claim = { now: now(), limit, maxBytes: load.workerBatchBytes };
    const held = (id: string) => this.deps.queued.heldPayload(id);
    if (db.kind === 'sqlite') return eventsRepo.dueQueued(db.reads, claim, held);
    return eventWrites.claimDue(db.knex, { ...claim, owner, leaseMs: LEASE_MS, skipLocked: true }, held);
  }

  private async processOne(row: ClaimedRow): Promise<void> {
    try {
      await this.deps.queued.process(row, await this.deps.lenientFor(row.route_id), this.deps.owner);
      this.deps.load.released();
    } catch (error) {
      if (error instanceof LeaseLost) return;
      if (isDatabaseUnavailable(error)) {
        this.unavailableIn += 1;
        return;
      }
      const attempts = row.attempts + 1;
      const message = error instanceof Error ? error.message : String(error);
      if (!isStorageError(error)) {
        // Not storage trouble: the same event would fail the same way every time (SPEC §13).
        const errors = [{ path: '', message: `The payload could not be processed: ${message}` }];
        await eventWrites.setOutcome(this.deps.db.knex, row.id, storedOutcome.rejected(this.deps.now(), errors));
        this.deps.load.released();
      } else if (attempts >= MAX_ATTEMPTS) {
        const reason = `Processing failed after ${attempts} attempts: ${message}`;
        await eventWrites.setOutcome(this.deps.db.knex, row.id, storedOutcome.failed(this.deps.now(), reason));
        this.deps.load.released();
      } else {
        // Released with a later due time; the lease fields are cleared by scheduleRetry.
        await eventWrites.scheduleRetry(this.deps.db.knex, row.id, attempts, this.deps.now() + retryDelayMs(attempts));
      }
      this.deps.logger.warn('event processing failed', { eventId: row.id, attempts, error: message });
    }
  }

  private async pause(ms: number): Promise<void> {
    if (!this.running || ms <= 0) return;
    await this.stopping.wait(ms);
  }

  private async idle(): Promise<void> {
    const next = await eventWrites.earliestRetry(this.deps.db.knex).catch(() => null);
    const wait = next === null ? IDLE_POLL_MS : Math.max(10, Math.min(IDLE_POLL_MS, next - this.deps.now()));
    await this.arrivals.wait(wait);
  }
}

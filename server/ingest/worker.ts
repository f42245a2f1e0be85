import type { Db } from '../db';
import { isStorageError } from '../db/unavailable';
import type { Logger } from '../logger';
import { eventWrites, eventsRepo, type EventRow } from '../repositories/events.repo';
import { LeaseLost, type Pipeline } from './pipeline';

const MAX_ATTEMPTS = 8;
const IDLE_POLL_MS = 1000;
/** How long a claimed event stays with its worker; after that another instance may take it. */
export const LEASE_MS = 15_000;

/** 1 s, 2 s, 4 s … capped at a minute: transient storage trouble gets time to clear. */
export const retryDelayMs = (attempt: number): number => Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));

/**
 * Counts what is acknowledged (or being committed) and not yet final, so a full queue can be
 * refused with 503 before anything is written. Seeded from the database at start, kept exact
 * in memory afterwards, and re-read now and then as a safety net.
 */
export class QueueDepth {
  private value = 0;

  get current(): number {
    return this.value;
  }

  /** Reserves a slot if the queue has room; false means answer 503. */
  tryReserve(limit: number): boolean {
    if (this.value + 1 > limit) return false;
    this.value += 1;
    return true;
  }

  release(count = 1): void {
    this.value = Math.max(0, this.value - count);
  }

  reset(value: number): void {
    this.value = value;
  }
}

/**
 * Processes queued events in the background: at-least-once (a crash before the commit leaves the
 * event queued and it is processed again at the next start), each event ending in exactly one
 * state. Storage errors are retried with backoff; after the last attempt the event is `failed`.
 */
export class Worker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private nudged = false;

  constructor(
    private readonly deps: {
      db: Db;
      pipeline: Pipeline;
      depth: QueueDepth;
      logger: Logger;
      now: () => number;
      /** The route's current `epcisLenient` (routes can change between receive and processing). */
      lenientFor: (routeId: number | null) => boolean;
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

  /** New work arrived: skip the idle wait. */
  notify(): void {
    this.nudged = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let rows: EventRow[] = [];
      // Small claims while requests are arriving: the claim holds the connection they wait on.
      const limit = this.deps.pipeline.queuedBatchSize();
      try {
        this.nudged = false;
        rows = await eventWrites.claimDue(this.deps.db.knex, {
          now: this.deps.now(),
          limit,
          owner: this.deps.owner,
          leaseMs: LEASE_MS,
          skipLocked: this.deps.db.kind === 'postgres',
        });
        // All of the batch goes to the group commit at once, so it shares transactions.
        await Promise.all(rows.map((row) => this.processOne(row)));
      } catch (error) {
        this.deps.logger.warn('worker pass failed', { error: error instanceof Error ? error.message : String(error) });
      }
      if (rows.length < limit && !this.nudged && this.running) await this.idle();
    }
  }

  private async processOne(row: EventRow): Promise<void> {
    try {
      await this.deps.pipeline.processQueued(row, this.deps.lenientFor(row.route_id), this.deps.owner);
      this.deps.depth.release();
    } catch (error) {
      if (error instanceof LeaseLost) return;
      const attempts = row.attempts + 1;
      const message = error instanceof Error ? error.message : String(error);
      if (!isStorageError(error)) {
        // Not storage trouble: the same event would fail the same way every time (SPEC §13).
        await eventWrites.setOutcome(this.deps.db.knex, row.id, {
          status: 'rejected',
          processed_at: this.deps.now(),
          result: null,
          errors: JSON.stringify([{ path: '', message: `The payload could not be processed: ${message}` }]),
          warnings: null,
        });
        this.deps.depth.release();
      } else if (attempts >= MAX_ATTEMPTS) {
        await eventWrites.setOutcome(this.deps.db.knex, row.id, {
          status: 'failed',
          processed_at: this.deps.now(),
          result: null,
          errors: JSON.stringify([{ path: '', message: `Processing failed after ${attempts} attempts: ${message}` }]),
          warnings: null,
        });
        this.deps.depth.release();
      } else {
        // Released with a later due time; the lease fields are cleared by scheduleRetry.
        await eventWrites.scheduleRetry(this.deps.db.knex, row.id, attempts, this.deps.now() + retryDelayMs(attempts));
      }
      this.deps.logger.warn('event processing failed', { eventId: row.id, attempts, error: message });
    }
  }

  private async idle(): Promise<void> {
    const next = await eventWrites.earliestRetry(this.deps.db.knex).catch(() => null);
    const wait = next === null ? IDLE_POLL_MS : Math.max(10, Math.min(IDLE_POLL_MS, next - this.deps.now()));
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }
}

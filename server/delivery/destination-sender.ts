import { randomUUID } from 'node:crypto';
import { Alarm } from '../alarm';
import type { Db } from '../db';
import type { WriteBatch } from '../db/write-batch';
import type { Logger } from '../logger';
import type { DestinationRecord } from '../repositories/destinations.repo';
import type { SecretBox } from '../secret-box';
import { outboxRepo, type AttemptFailure, type DeliveryBatch, type OutboxItem } from '../repositories/outbox.repo';
import { batchBody, HttpDelivery, type AttemptResult } from './http-delivery';
import type { DeliveryLedger, LastError } from './ledger';
import { backoffMs } from './retry-policy';

/** With nothing to send, look for new items this often (items of other instances, missed wake-ups). */
const IDLE_POLL_MS = 1000;
/** Another instance holds the destination: ask again after this long. */
const LEASE_RETRY_MS = 2000;
/**
 * While batches go back to back without a head read, the head is still read at least this often:
 * dead letters sent back on another instance are picked up within it (this instance's at once).
 */
const HEAD_REREAD_MS = 1000;
/** The lease outlives the longest attempt by this much. */
const LEASE_MARGIN_MS = 30_000;

/**
 * Runs work in one of the gateway's write transactions (the group commit's `store`): the
 * outbox's writes share flushes with everything else written, and wait their turn like them.
 */
export type StoreInTransaction = <T>(work: (writes: WriteBatch) => Promise<T>) => Promise<T>;

/** The lease was taken over by another instance mid-step: not a failure of this destination. */
class LeaseLost extends Error {}

/** At most this much of a failure's own text goes into the destination's `lastError`. */
const MAX_FAILURE_CHARS = 300;

/**
 * A failure of the loop itself (not of the receiver) as the destination's `lastError` says it:
 * the driver's code and its own words, without the statement Knex puts in front of them (it can
 * carry bound values, the items' data).
 */
export function loopFailure(at: number, error: unknown): LastError {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  const cut = text.lastIndexOf(' - ');
  let said = (cut >= 0 ? text.slice(cut + 3) : text).trim();
  if (typeof code === 'string' && !said.startsWith(code)) said = `${code}: ${said}`;
  if (said.length > MAX_FAILURE_CHARS) said = `${said.slice(0, MAX_FAILURE_CHARS - 1)}…`;
  return { at, status: null, message: `Delivery stopped inside the gateway: ${said}` };
}

/** A batch as the sender holds it between attempts. */
type Batch = Omit<DeliveryBatch, 'id'>;

export interface SenderDeps {
  db: Db;
  store: StoreInTransaction;
  ledger: DeliveryLedger;
  logger: Logger;
  now: () => number;
  /** This instance's name on leases; null on SQLite, whose one process is the only sender. */
  leaseOwner: string | null;
  /** This instance's id, sent as `X-Gateway-Id` with every delivery. */
  gatewayId: string;
  /** Opens the destination's stored credential. */
  secrets: SecretBox;
}

/**
 * One destination's delivery loop (SPEC §11): its batches go out one at a time, in outbox order;
 * the head batch is retried with backoff until it is delivered or dead-lettered, and only then
 * does the next one go. A slow or failing receiver holds up this loop alone: every destination
 * has its own, and intake never waits for any of them.
 */
export class DestinationSender {
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly alarm = new Alarm();
  private readonly stopping = new AbortController();
  private http: HttpDelivery;
  /** The body of the batch being sent, kept from its cut (or first read) so no attempt reads its items again. */
  private cached: { batchId: string; body: string; items: number } | null = null;
  /**
   * The batch cut in the transaction that recorded the last delivery, when it was the only open
   * batch then: the head, unless dead letters were sent back since (`headMoved`).
   */
  private soleCut: Batch | null = null;
  private headMoved = false;
  private headReadAt = 0;

  constructor(
    private config: DestinationRecord,
    private readonly deps: SenderDeps,
  ) {
    this.http = new HttpDelivery(config, deps.gatewayId, deps.secrets);
  }

  /** The destination's name, as configured now. */
  get name(): string {
    return this.config.name;
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** The destination was edited: new settings from the next attempt on (an unchanged one keeps its connections). */
  reconfigure(config: DestinationRecord): void {
    if (JSON.stringify(config) === JSON.stringify(this.config)) return;
    const old = this.http;
    this.config = config;
    this.http = new HttpDelivery(config, this.deps.gatewayId, this.deps.secrets);
    void old.close();
    this.alarm.wake();
  }

  /** New items or a config change: look again now. */
  wake(): void {
    this.alarm.wake();
  }

  /** Dead letters were sent back ahead of everything: the next step reads the head. */
  retried(): void {
    this.headMoved = true;
    this.alarm.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    this.alarm.wake();
    await this.loop;
    await this.http.close();
    if (this.deps.leaseOwner)
      await outboxRepo.releaseLease(this.deps.db.knex, this.config.id, this.deps.leaseOwner).catch(() => undefined);
  }

  private async run(): Promise<void> {
    const { ledger, logger, now } = this.deps;
    let trouble = 0;
    while (this.running) {
      let waitMs: number;
      try {
        waitMs = await this.step();
        trouble = 0;
        ledger.loopRan(this.config.id);
      } catch (error) {
        // The database, not the receiver: try again, backing off, without counting an attempt.
        trouble += 1;
        waitMs = backoffMs(trouble);
        logger.warn('delivery loop failed', {
          destination: this.config.name,
          error: error instanceof Error ? error.message : String(error),
        });
        // Another instance took the lease: that one sends now, nothing is wrong.
        if (!(error instanceof LeaseLost)) {
          ledger.loopFailed(this.config.id, loopFailure(now(), error));
          await this.yieldLease();
        }
      }
      if (waitMs > 0 && this.running) await this.alarm.wait(waitMs);
    }
  }

  /**
   * After a failure of its own (its database connection, a credential its key cannot open), an
   * instance lets the lease go so that another one may send meanwhile; what it cut is read again.
   */
  private async yieldLease(): Promise<void> {
    this.soleCut = null;
    const { leaseOwner, db } = this.deps;
    if (leaseOwner) await outboxRepo.releaseLease(db.knex, this.config.id, leaseOwner).catch(() => undefined);
  }

  /** One step: send the head batch if it is due; answers how long to wait before the next step. */
  private async step(): Promise<number> {
    const { db, now } = this.deps;
    if (!this.config.active) return 60_000;
    if (!(await this.holdLease())) {
      // Another instance sends now: what this one cut last may be gone by the time it is back.
      this.soleCut = null;
      return LEASE_RETRY_MS;
    }
    const batch = this.takeSoleCut() ?? (await this.readHead(db)) ?? (await this.cutNext());
    if (typeof batch === 'number') return batch;
    const due = batch.nextAttemptAt - now();
    if (due > 0) return due;
    await this.attempt(batch);
    return 0;
  }

  /**
   * The batch cut with the last delivery, if it is certainly the head: it was the only open
   * batch when cut, no dead letter was sent back since, and the head was read within
   * `HEAD_REREAD_MS`. Otherwise null, and the head is read (a technician may have sent dead
   * letters back ahead of it).
   */
  private takeSoleCut(): Batch | null {
    const cut = this.soleCut;
    this.soleCut = null;
    return cut && !this.headMoved && this.deps.now() - this.headReadAt < HEAD_REREAD_MS ? cut : null;
  }

  /** No batch is open: cut one from the waiting items (in a write transaction of its own), or say how long to wait. */
  private async cutNext(): Promise<Batch | number> {
    const cut = await this.deps.store((writes) => this.cut(writes, null));
    // A dead letter sent back since the head was read is open beside the new batch: read the head again.
    if (typeof cut === 'number') return cut;
    return cut.sole ? cut.batch : 0;
  }

  private readHead(db: Db): Promise<Batch | null> {
    this.headReadAt = this.deps.now();
    this.headMoved = false;
    return outboxRepo.headBatch(db.reads, this.config.id);
  }

  /** PostgreSQL: one instance at a time sends this destination's batches, so their order holds. */
  private async holdLease(): Promise<boolean> {
    const { leaseOwner, db, now } = this.deps;
    if (!leaseOwner) return true;
    const at = now();
    return outboxRepo.lease(db.knex, {
      destinationId: this.config.id,
      owner: leaseOwner,
      until: this.leaseUntil(at),
      now: at,
    });
  }

  /** A lease taken or renewed at `at` outlives the longest attempt that may start under it. */
  private leaseUntil(at: number): number {
    return at + this.config.timeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * Cuts the next batch from the items waiting, inside `writes`' transaction: at once when a
   * full batch waits, else once the oldest has waited `batchMaxWaitMs`. Answers the batch, or how
   * long to wait. `sole`: no other batch was open besides `delivered` (the one this transaction
   * records as done), so the new batch is the head once it commits.
   */
  private async cut(writes: WriteBatch, delivered: Batch | null): Promise<{ batch: Batch; sole: boolean } | number> {
    await this.fence(writes);
    const now = this.deps.now();
    const { batchMaxEvents, batchMaxWaitMs } = this.config;
    const next = { limit: batchMaxEvents, readyBefore: now - batchMaxWaitMs, excluding: delivered?.batchId ?? null };
    const found = await outboxRepo.waiting(writes, this.config.id, next);
    if (!found.ready) {
      const oldest = found.oldestProcessedAt;
      return oldest === null ? IDLE_POLL_MS : Math.min(Math.max(1, oldest + batchMaxWaitMs - now), IDLE_POLL_MS);
    }
    const { items: waiting, othersOpen } = found;
    const seqs = waiting.map((item) => item.seq);
    const batch = outboxRepo.cutBatch(writes, { batchId: randomUUID(), destinationId: this.config.id, seqs });
    // Sent as cut: its first attempt needs no read (a rolled-back cut leaves an unused entry).
    this.keep(batch.batchId, waiting);
    return { batch, sole: !othersOpen };
  }

  /**
   * PostgreSQL: the cut's read and its UPDATE see the same items only while no other instance
   * cuts at the same time, so the transaction holds the lease row (and renews it) first; a lease
   * taken over meanwhile fails it, and the new holder goes on from the head.
   */
  private async fence(writes: WriteBatch): Promise<void> {
    const { leaseOwner, now } = this.deps;
    if (!leaseOwner) return;
    const until = this.leaseUntil(now());
    if (!(await outboxRepo.fenceLease(writes, { destinationId: this.config.id, owner: leaseOwner, until })))
      throw new LeaseLost(`the delivery lease on destination ${this.config.name} was taken over`);
  }

  private async body(batch: Batch): Promise<{ body: string; items: number }> {
    if (this.cached?.batchId === batch.batchId) return this.cached;
    return this.keep(batch.batchId, await outboxRepo.batchItems(this.deps.db.reads, batch.batchId));
  }

  /** The batch's body, built once from its items and kept for every attempt at it. */
  private keep(batchId: string, items: readonly OutboxItem[]): { body: string; items: number } {
    this.cached = { batchId, body: batchBody(batchId, items), items: items.length };
    return this.cached;
  }

  private async attempt(batch: Batch): Promise<void> {
    const { now, ledger } = this.deps;
    const { body, items } = await this.body(batch);
    if (items === 0) {
      // Its items were discarded or taken by another batch (a lease that ran out): nothing to send.
      await this.write((writes) => outboxRepo.delivered(writes, batch));
      return;
    }
    const attempt = batch.attempts + 1;
    const startedAt = now();
    const result = await this.http.post(batch.batchId, body, attempt, startedAt, this.stopping.signal);
    // Stopped mid-attempt: nothing is recorded; the batch goes again (same key) at the next start.
    if (!this.running) return;
    if (result.ok) {
      // Done, and the next batch cut in the same transaction: one write per batch delivered.
      const cut = await this.deps.store(async (writes) => {
        outboxRepo.delivered(writes, batch);
        return this.cut(writes, batch);
      });
      this.soleCut = typeof cut !== 'number' && cut.sole ? cut.batch : null;
      ledger.delivered(this.config.id, items);
      return;
    }
    await this.recordFailure(batch, result, attempt, startedAt, items);
  }

  private async recordFailure(
    batch: Batch,
    result: Extract<AttemptResult, { ok: false }>,
    attempt: number,
    startedAt: number,
    items: number,
  ): Promise<void> {
    const { now, ledger } = this.deps;
    const at = now();
    const firstAttemptAt = batch.firstAttemptAt ?? startedAt;
    const failure: AttemptFailure = {
      attempts: attempt,
      firstAttemptAt,
      lastAttemptAt: startedAt,
      nextAttemptAt: at + (result.retryAfterMs ?? backoffMs(attempt)),
      lastStatus: result.status,
      lastError: result.message,
    };
    ledger.failed(this.config.id, result.reason, { at, status: result.status, message: result.message });
    const expired = at - firstAttemptAt >= this.config.maxRetryAgeSeconds * 1000;
    if (result.retry && !expired) {
      await this.write((writes) => outboxRepo.failed(writes, batch, failure));
      return;
    }
    const reason = result.retry ? 'max_retry_age' : 'http_status';
    await this.write((writes) => outboxRepo.deadLettered(writes, batch, { ...failure, reason, failedAt: at }));
    this.cached = null;
    ledger.deadLettered(this.config.id, items, reason, true);
    this.deps.logger.warn('delivery dead-lettered', {
      destination: this.config.name,
      batchId: batch.batchId,
      items,
      reason,
      lastError: result.message,
    });
  }

  /** Writes that need no read, in one of the gateway's write transactions. */
  private write(add: (writes: WriteBatch) => void): Promise<void> {
    return this.deps.store((writes) => Promise.resolve(add(writes)));
  }
}

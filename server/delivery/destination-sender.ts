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
/** The lease outlives the longest attempt by this much. */
const LEASE_MARGIN_MS = 30_000;
/**
 * While batches are sent, up to this many are kept cut ahead (fewer when `batchMaxEvents` is
 * large: about `AHEAD_ITEMS` items), so the next one goes as soon as the one in flight is answered.
 */
const AHEAD_BATCHES = 4;
const AHEAD_ITEMS = 2000;
/**
 * At most this many batches are sent and not yet recorded, the one in flight included: after a
 * crash they go again, so this bounds what a receiver sees twice.
 */
const MAX_UNRECORDED = AHEAD_BATCHES;

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

/** A batch with its request body, built once (at its cut, or its first read) for every attempt at it. */
interface Held {
  batch: Batch;
  body: string;
  items: number;
}

/** What a write of the loop found: the batches it cut, or how long until a partial batch is due. */
interface WriteOutcome {
  cut: Held[];
  /** No open batch was there besides those the sender held: what it cut follows them. */
  complete: boolean;
  waitMs: number;
}

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
 *
 * The database work runs beside the sending: while a batch is in flight, one write records the
 * batches delivered before it and cuts the next ones (full batches only while others wait to
 * go), so the next batch goes as soon as the one in flight is answered. A delivered batch is
 * recorded by the write that runs while its successor is in flight: after a crash in between,
 * both are sent again, in order, with their own keys.
 */
export class DestinationSender {
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly alarm = new Alarm();
  private readonly stopping = new AbortController();
  private http: HttpDelivery;
  /** The batch being sent (or retried at its time): the head, with its body. */
  private head: Held | null = null;
  /** Batches cut after the head, in order: they follow it (see `complete`). */
  private ahead: Held[] = [];
  /**
   * The sender holds every open batch (the head, `ahead`, `delivered`): a batch it cuts now comes
   * after them. False at the start, after a failure of the loop, and when a write found an open
   * batch it did not know (a dead letter sent back): the head is read from the database then.
   */
  private complete = false;
  /** Delivered (2xx) and not yet recorded: the next write deletes them. */
  private delivered: Held[] = [];
  /** Delivered batches the running write records (not yet committed). */
  private recording = 0;
  /** The write running beside the sending, if any (one at a time). */
  private writing: Promise<void> | null = null;
  private writeFailure: { error: unknown } | null = null;
  /** Counts the times what the sender held was thrown away: a write begun before one keeps nothing it cut. */
  private epoch = 0;
  /** How long the last write said to wait for a partial batch. */
  private idleWaitMs = IDLE_POLL_MS;
  /** A batch is in flight: new items are cut behind it as they come (`topUp`). */
  private sending = false;
  private lastWriteCut = false;

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

  /** New items or a config change: look again now (and while a batch is in flight, cut behind it). */
  wake(): void {
    this.alarm.wake();
    this.topUp(false);
  }

  /** Dead letters were sent back ahead of everything: the next step reads the head. */
  retried(): void {
    this.forget();
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
        // What the sender held is read again; what it delivered and did not record goes again.
        await this.dropAll();
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
    // Stopped: what was delivered meanwhile is recorded, so a restart does not send it again.
    await this.flush().catch(() => undefined);
  }

  /** After the running write, forgets everything held, delivered but unrecorded batches too (sent again). */
  private async dropAll(): Promise<void> {
    await this.writing;
    this.writeFailure = null;
    this.delivered = [];
    this.forget();
  }

  /** Forgets the batches held beyond the database's word: the next step reads the head. */
  private forget(): void {
    this.epoch += 1;
    this.head = null;
    this.ahead = [];
    this.complete = false;
  }

  /**
   * After a failure of its own (its database connection, a credential its key cannot open), an
   * instance lets the lease go so that another one may send meanwhile; what it cut is read again.
   */
  private async yieldLease(): Promise<void> {
    const { leaseOwner, db } = this.deps;
    if (leaseOwner) await outboxRepo.releaseLease(db.knex, this.config.id, leaseOwner).catch(() => undefined);
  }

  /** One step: send the head batch if it is due; answers how long to wait before the next step. */
  private async step(): Promise<number> {
    const { now } = this.deps;
    this.raiseWriteFailure();
    if (!this.config.active) {
      await this.flush();
      return 60_000;
    }
    if (!(await this.holdLease())) {
      // Another instance sends now, from the head: what this one holds may be gone by the time
      // it is back, and what it delivered and did not record, that one sends again.
      await this.dropAll();
      return LEASE_RETRY_MS;
    }
    const held = await this.next();
    if (typeof held === 'number') return held;
    const due = held.batch.nextAttemptAt - now();
    if (due > 0) {
      await this.flush();
      return due;
    }
    if (held.items === 0) {
      // Its items were discarded or taken by another batch (a lease that ran out): nothing to send.
      this.head = null;
      this.delivered.push(held);
      return 0;
    }
    // Too much delivered unrecorded: the records first (what a crash would send again stays bounded).
    if (this.delivered.length + this.recording >= MAX_UNRECORDED) await this.flush();
    // The write beside this attempt records what went before and cuts what comes after.
    this.startWrite(false);
    await this.attempt(held);
    return 0;
  }

  /** The batch to send now, or how long to wait for one. */
  private async next(): Promise<Held | number> {
    if (!this.head) this.head = this.ahead.shift() ?? null;
    if (this.head) return this.head;
    // Nothing held: what the running write cuts comes next; what was delivered is recorded first.
    await this.flush();
    this.head = this.ahead.shift() ?? null;
    if (this.head) return this.head;
    if (!this.complete) {
      this.head = await this.readHead();
      if (this.head) return this.head;
    }
    // Nothing open: cut from what waits, as much as is ready (a partial batch once it is due).
    this.startWrite(true);
    await this.flush();
    this.head = this.ahead.shift() ?? null;
    return this.head ?? (this.complete ? this.idleWaitMs : 0);
  }

  /** Throws the failure of a write that ran beside the sending (once). */
  private raiseWriteFailure(): void {
    const failure = this.writeFailure;
    this.writeFailure = null;
    if (failure) throw failure.error;
  }

  /** Waits for the running write, then records what was delivered; throws a write's failure. */
  private async flush(): Promise<void> {
    await this.writing;
    this.raiseWriteFailure();
    if (this.delivered.length === 0) return;
    this.startWrite(false);
    await this.writing;
    this.raiseWriteFailure();
  }

  /**
   * Starts a write unless one runs: it records the batches delivered so far and cuts batches to
   * keep `ahead` full. `idle`: nothing else is open, so a partial batch is cut once it is due;
   * otherwise only full ones (the batches grow to `batchMaxEvents` while a backlog waits).
   */
  private startWrite(idle: boolean): void {
    if (this.writing) return;
    const recorded = this.delivered.splice(0);
    this.recording = recorded.length;
    const known = [this.head, ...this.ahead, ...recorded].flatMap((held) => (held ? [held.batch.batchId] : []));
    const room = Math.max(1, Math.floor(AHEAD_ITEMS / this.config.batchMaxEvents));
    // Stopping, or enough cut ahead: this write only records.
    const wanted = !this.running ? 0 : idle ? room : this.aheadTarget() - this.ahead.length;
    this.lastWriteCut = false;
    const epoch = this.epoch;
    this.writing = this.deps
      .store(async (writes) => {
        await this.fence(writes);
        outboxRepo.delivered(
          writes,
          recorded.map((held) => held.batch.batchId),
        );
        return wanted > 0 ? this.cut(writes, { known, wanted, idle }) : null;
      })
      .then(
        (outcome) => {
          for (const held of recorded) if (held.items > 0) this.deps.ledger.delivered(this.config.id, held.items);
          if (!outcome || epoch !== this.epoch) return;
          this.lastWriteCut = outcome.cut.length > 0;
          this.idleWaitMs = outcome.waitMs;
          this.complete = outcome.complete;
          // A batch open that the sender did not know (a dead letter sent back) may come first.
          if (outcome.complete) this.ahead.push(...outcome.cut);
          else this.ahead = [];
        },
        (error: unknown) => {
          this.writeFailure = { error };
        },
      )
      .finally(() => {
        this.writing = null;
        this.recording = 0;
        // More waiting than this write could cut: the next one at once, while the batch is in flight.
        this.topUp(true);
      });
  }

  /** Batches kept cut ahead of the one in flight. */
  private aheadTarget(): number {
    return Math.min(AHEAD_BATCHES, Math.max(1, Math.floor(AHEAD_ITEMS / this.config.batchMaxEvents)));
  }

  /**
   * While a batch is in flight and no write runs: a write when batches were delivered, or when
   * a full batch more than the sender holds waits (as the backlog counts) and `ahead` has room.
   * `chained`: called as a write ended; only one that cut something is followed at once.
   */
  private topUp(chained: boolean): void {
    if (!this.sending || this.writing || !this.running || this.writeFailure) return;
    if (chained && !this.lastWriteCut) return;
    if (this.delivered.length === 0) {
      if (this.ahead.length >= this.aheadTarget()) return;
      const held = [this.head, ...this.ahead].reduce((sum, one) => sum + (one?.items ?? 0), 0);
      if (this.deps.ledger.backlog(this.config.id) - held < this.config.batchMaxEvents) return;
    }
    this.startWrite(false);
  }

  private async readHead(): Promise<Held | null> {
    const batch = await outboxRepo.headBatch(this.deps.db.reads, this.config.id);
    if (!batch) return null;
    const items = await outboxRepo.batchItems(this.deps.db.reads, batch.batchId);
    return { batch, body: batchBody(batch.batchId, items), items: items.length };
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
   * Cuts up to `wanted` batches from the items waiting, inside `writes`' transaction: full ones
   * (`batchMaxEvents` items), and when `idle` a partial one once its oldest item has waited
   * `batchMaxWaitMs`. `complete`: no open batch was there besides `known`, so the new batches
   * come after them.
   */
  private async cut(
    writes: WriteBatch,
    next: { known: readonly string[]; wanted: number; idle: boolean },
  ): Promise<WriteOutcome> {
    const now = this.deps.now();
    const { batchMaxEvents, batchMaxWaitMs } = this.config;
    const found = await outboxRepo.waiting(writes, this.config.id, {
      limit: next.wanted * batchMaxEvents,
      full: batchMaxEvents,
      // Not idle: only full batches are cut, whatever their age.
      readyBefore: next.idle ? now - batchMaxWaitMs : -1,
      known: next.known,
    });
    const complete = !found.othersOpen;
    if (!found.ready) {
      const oldest = found.oldestProcessedAt;
      const waitMs =
        oldest === null ? IDLE_POLL_MS : Math.min(Math.max(1, oldest + batchMaxWaitMs - now), IDLE_POLL_MS);
      return { cut: [], complete, waitMs };
    }
    const chunks: OutboxItem[][] = [];
    for (let start = 0; start < found.items.length && chunks.length < next.wanted; start += batchMaxEvents)
      chunks.push(found.items.slice(start, start + batchMaxEvents));
    // A partial batch goes only alone, and only when idle: while others go, it may still fill.
    const last = chunks[chunks.length - 1];
    if (last && last.length < batchMaxEvents && (chunks.length > 1 || !next.idle)) chunks.pop();
    const batches = chunks.map((items) => ({ batchId: randomUUID(), items }));
    const cut = outboxRepo.cutBatches(
      writes,
      this.config.id,
      batches.map(({ batchId, items }) => ({ batchId, seqs: items.map((item) => item.seq) })),
    );
    // Sent as cut: their first attempts need no read (a rolled-back cut is never kept: see `startWrite`).
    return {
      cut: cut.map((batch, index) => {
        const items = batches[index]?.items ?? [];
        return { batch, body: batchBody(batch.batchId, items), items: items.length };
      }),
      complete,
      waitMs: 0,
    };
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

  private async attempt(held: Held): Promise<void> {
    const { now } = this.deps;
    const { batch, body, items } = held;
    const attempt = batch.attempts + 1;
    const startedAt = now();
    const epoch = this.epoch;
    this.sending = true;
    let result: AttemptResult;
    try {
      result = await this.http.post(batch.batchId, body, attempt, startedAt, this.stopping.signal);
    } finally {
      this.sending = false;
    }
    // Stopped mid-attempt: nothing is recorded; the batch goes again (same key) at the next start.
    if (!this.running) return;
    if (result.ok) {
      // Recorded by the next write, which runs while the next batch is in flight.
      if (this.head === held) this.head = null;
      this.delivered.push(held);
      return;
    }
    // The failure is recorded after what was delivered before it.
    await this.flush();
    await this.recordFailure(held, result, attempt, startedAt, items, epoch);
  }

  private async recordFailure(
    held: Held,
    result: Extract<AttemptResult, { ok: false }>,
    attempt: number,
    startedAt: number,
    items: number,
    epoch: number,
  ): Promise<void> {
    const { now, ledger } = this.deps;
    const { batch } = held;
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
    // Counted once recorded: the status then shows the error with the batch's attempts.
    const failed = () =>
      ledger.failed(this.config.id, result.reason, { at, status: result.status, message: result.message });
    const expired = at - firstAttemptAt >= this.config.maxRetryAgeSeconds * 1000;
    if (result.retry && !expired) {
      await this.write((writes) => outboxRepo.failed(writes, batch, failure));
      failed();
      // Tried again at its time, unless dead letters were sent back meanwhile (then the head is read).
      if (this.epoch === epoch && this.head === held) this.head = { ...held, batch: { ...batch, ...failure } };
      return;
    }
    const reason = result.retry ? 'max_retry_age' : 'http_status';
    await this.write((writes) => outboxRepo.deadLettered(writes, batch, { ...failure, reason, failedAt: at }));
    failed();
    if (this.head === held) this.head = null;
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

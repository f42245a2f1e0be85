import { randomUUID } from 'node:crypto';
import type { DestinationStatus, DestinationSummary, DestinationTestResult } from '../contract/dto';
import type { Db } from '../db';
import type { ConfigChanges } from '../db/config-changes';
import type { Logger } from '../logger';
import { destinationsRepo, type DestinationRecord } from '../repositories/destinations.repo';
import { outboxRepo } from '../repositories/outbox.repo';
import type { SecretBox } from '../secret-box';
import type { DeliveryControl } from '../services/destinations.service';
import { iso } from '../time';
import { DestinationSender, loopFailure, type StoreInTransaction } from './destination-sender';
import { HttpDelivery, testBatchBody } from './http-delivery';
import type { DeliveryLedger, FailureReason, LastError } from './ledger';

/** How often the in-memory backlogs are counted again from the database. */
const RECOUNT_MS = 30_000;
/** A head batch failing for this long (or this many attempts) makes the destination `failing`, not `retrying`. */
const FAILING_AFTER_MS = 60_000;
const FAILING_AFTER_ATTEMPTS = 5;

/** One destination's line in `/_metrics`. */
export interface DestinationMetrics {
  name: string;
  backlog: number;
  deadLetters: number;
  deliveredTotal: number;
  failures: ReadonlyMap<FailureReason, number>;
}

/**
 * Runs one `DestinationSender` per destination, following configuration changes (a new
 * destination starts, an edited one is reconfigured, a deleted one stops), and answers each
 * destination's status from the database and the ledger.
 */
export class DeliveryEngine implements DeliveryControl {
  private readonly senders = new Map<number, DestinationSender>();
  /** Destination id → name, for the health answer (kept by `recount`). */
  private names = new Map<number, string>();
  private running = false;
  private syncing: Promise<void> = Promise.resolve();
  private recountTimer: NodeJS.Timeout | null = null;
  /** The last sync could not read the destinations: those without a running loop are `failing` with it. */
  private loadError: LastError | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: {
      db: Db;
      /** The group commit's `store`: the outbox's writes go where every other write goes. */
      store: StoreInTransaction;
      changes: ConfigChanges;
      ledger: DeliveryLedger;
      logger: Logger;
      now: () => number;
      /** The lease owner name on PostgreSQL (several instances share the outbox), and every delivery's `X-Gateway-Id`. */
      instanceId: string;
      maxOutboxItems: () => number;
      /** Opens the destinations' stored credentials. */
      secrets: SecretBox;
    },
  ) {}

  /** Counts the backlogs; with `send`, also starts delivering (an ingest-only instance only counts). */
  async start(send: boolean): Promise<void> {
    await this.recount();
    this.recountTimer = setInterval(() => void this.recount().catch(() => undefined), RECOUNT_MS);
    this.recountTimer.unref();
    this.unsubscribe = this.deps.changes.subscribe((resources) => {
      if (!resources.has('destinations')) return;
      this.sync();
      void this.recount().catch(() => undefined);
    });
    if (!send) return;
    this.running = true;
    this.sync();
    await this.syncing;
  }

  /** Items were committed for these destinations. */
  notify(destinationIds: Iterable<number>): void {
    for (const id of destinationIds) this.senders.get(id)?.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    if (this.recountTimer) clearInterval(this.recountTimer);
    await this.syncing;
    await Promise.all([...this.senders.values()].map((sender) => sender.stop()));
    this.senders.clear();
  }

  private async recount(): Promise<void> {
    const mark = this.deps.ledger.recountMark();
    const [backlogs, deadLetters, records] = await Promise.all([
      outboxRepo.backlogs(this.deps.db.reads),
      outboxRepo.deadLetterCounts(this.deps.db.reads),
      destinationsRepo.list(this.deps.db.reads),
    ]);
    this.deps.ledger.recount(backlogs, deadLetters, mark);
    this.names = new Map(records.map((record) => [record.id, record.name]));
  }

  /** Makes the running senders match the stored destinations (changes are applied one sync at a time). */
  private sync(): void {
    this.syncing = this.syncing.then(async () => {
      if (!this.running) return;
      try {
        const configs = await destinationsRepo.list(this.deps.db.knex);
        const ids = new Set(configs.map((config) => config.id));
        for (const [id, sender] of this.senders)
          if (!ids.has(id)) {
            this.senders.delete(id);
            this.deps.ledger.forget(id);
            await sender.stop();
          }
        for (const config of configs) {
          const sender = this.senders.get(config.id);
          if (sender) sender.reconfigure(config);
          else this.startSender(config);
        }
        this.loadError = null;
      } catch (error) {
        this.deps.logger.warn('destinations could not be loaded', {
          error: error instanceof Error ? error.message : String(error),
        });
        this.loadError = loopFailure(this.deps.now(), error);
      }
    });
  }

  private startSender(config: DestinationRecord): void {
    const { db, store, ledger, logger, now, instanceId, secrets } = this.deps;
    const sender = new DestinationSender(config, {
      db,
      store,
      ledger,
      logger,
      now,
      leaseOwner: db.kind === 'postgres' ? instanceId : null,
      gatewayId: instanceId,
      secrets,
    });
    this.senders.set(config.id, sender);
    sender.start();
  }

  retried(destinationId: number, moved: { batches: number; items: number }): void {
    this.deps.ledger.retried(destinationId, moved.items, moved.batches);
    this.senders.get(destinationId)?.retried();
  }

  discarded(destinationId: number, batches: number): void {
    this.deps.ledger.discarded(destinationId, batches);
  }

  /**
   * "Retry now": the batch waiting for its backoff is due at once, and this instance's sender
   * looks at the head again now. On PostgreSQL the instance holding the lease may be another one:
   * it sees the new time at its next step (at the latest when the old one comes).
   */
  async retryNow(destinationId: number): Promise<void> {
    const at = this.deps.now();
    await this.deps.store((writes) => Promise.resolve(outboxRepo.dueNow(writes, destinationId, at)));
    this.senders.get(destinationId)?.retried();
  }

  /**
   * A test batch (issue 40): one marked item, signed and sent as a delivery is, on a connection
   * pool of its own that is closed after; the outbox, the ledger and the state are not touched.
   */
  async sendTest(destination: DestinationRecord): Promise<DestinationTestResult> {
    const { now, instanceId, secrets } = this.deps;
    const batchId = `test-${randomUUID()}`;
    const sentAt = now();
    const http = new HttpDelivery(destination, instanceId, secrets);
    try {
      const sent = await http
        .test(batchId, testBatchBody(batchId, randomUUID(), sentAt), sentAt)
        // A stored credential this gateway's key cannot open: the gateway's trouble, said as the loop says it.
        .catch((error: unknown) => ({
          result: { ok: false as const, status: null, message: loopFailure(sentAt, error).message },
          answer: null,
        }));
      const { result, answer } = sent;
      return {
        ok: result.ok,
        status: result.status,
        message: result.ok ? `HTTP ${result.status}` : result.message,
        answer,
        batchId,
        sentAt: iso(sentAt),
        durationMs: Math.max(0, Math.round(now() - sentAt)),
      };
    } finally {
      await http.close();
    }
  }

  async statusOf(destination: DestinationRecord): Promise<DestinationStatus> {
    const { db, ledger, now } = this.deps;
    const id = destination.id;
    const backlog = ledger.backlog(id);
    const [oldest, head] = await Promise.all([
      backlog > 0 ? outboxRepo.oldestPending(db.reads, id) : Promise.resolve(null),
      outboxRepo.headBatch(db.reads, id),
    ]);
    const stored =
      head && head.lastAttemptAt !== null && head.lastError !== null
        ? { at: head.lastAttemptAt, status: head.lastStatus, message: head.lastError }
        : null;
    // The gateway's own trouble first: while the loop fails, the receiver's last word is old news.
    const loopError = ledger.loopError(id) ?? (this.running && !this.senders.has(id) ? this.loadError : null);
    const lastError = loopError ?? ledger.lastError(id) ?? stored;
    let state: DestinationStatus['state'] = 'healthy';
    if (!destination.active) state = 'paused';
    else if (loopError) state = 'failing';
    else if (head && head.attempts > 0) {
      const failingFor = now() - (head.firstAttemptAt ?? now());
      state = failingFor >= FAILING_AFTER_MS || head.attempts >= FAILING_AFTER_ATTEMPTS ? 'failing' : 'retrying';
    } else if (ledger.lastOutcome(id) === 'dead') state = 'failing';
    return {
      state,
      backlog,
      oldestPendingAt: oldest === null ? null : iso(oldest),
      deliveredLastMinute: ledger.deliveredLastMinute(id),
      lastError: lastError ? { at: iso(lastError.at), status: lastError.status, message: lastError.message } : null,
      // Only a batch that failed waits for a time of its own; a paused destination sends nothing.
      nextAttemptAt: destination.active && head && head.attempts > 0 ? iso(head.nextAttemptAt) : null,
    };
  }

  /** `/status`'s lines. */
  async summaries(): Promise<DestinationSummary[]> {
    const [records, routeCounts] = await Promise.all([
      destinationsRepo.list(this.deps.db.reads),
      destinationsRepo.routeCounts(this.deps.db.reads),
    ]);
    return Promise.all(
      records.map(async (record) => {
        const status = await this.statusOf(record);
        return {
          id: record.id,
          name: record.name,
          state: status.state,
          backlog: status.backlog,
          oldestPendingAt: status.oldestPendingAt,
          lastError: status.lastError,
          routeCount: routeCounts.get(record.id) ?? 0,
        };
      }),
    );
  }

  /** Names of the destinations whose outbox is at its bound (for `/_health`), as of the last sync. */
  fullOutboxes(): string[] {
    const max = this.deps.maxOutboxItems();
    return [...this.names].filter(([id]) => this.deps.ledger.backlog(id) >= max).map(([, name]) => name);
  }

  /**
   * `/_health`'s words for each destination whose delivery fails inside the gateway (not at the
   * receiver): this instance's loops, as of their last step, and those it could not start.
   */
  failingLoops(): string[] {
    const failing: string[] = [];
    for (const [id, sender] of this.senders) {
      const error = this.deps.ledger.loopError(id);
      if (error) failing.push(`Destination "${sender.name}": ${error.message}`);
    }
    if (this.running && this.loadError)
      for (const [id, name] of this.names)
        if (!this.senders.has(id)) failing.push(`Destination "${name}": ${this.loadError.message}`);
    return failing;
  }

  /** Per destination, what `/_metrics` shows: this instance's counters, the shared backlog. */
  async metrics(): Promise<DestinationMetrics[]> {
    const { ledger } = this.deps;
    const records = await destinationsRepo.list(this.deps.db.reads);
    return records.map((record) => ({
      name: record.name,
      backlog: ledger.backlog(record.id),
      deadLetters: ledger.deadLetters(record.id),
      deliveredTotal: ledger.deliveredTotal(record.id),
      failures: ledger.failures(record.id),
    }));
  }
}

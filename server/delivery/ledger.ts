import type { DeadLetterReason } from '../contract/dto';

/** Why an attempt failed, as `gateway_destination_failures_total` labels it. */
export type FailureReason = 'timeout' | 'connection' | 'tls' | 'http_status';

export interface LastError {
  at: number;
  status: number | null;
  message: string;
}

interface Entry {
  /** Items waiting (dead letters not counted): committed ones only. */
  backlog: number;
  /** Bumped by every change to `backlog` or `deadLetters`: a recount read meanwhile is stale here. */
  version: number;
  /** Items this instance is adding in transactions not yet ended: held against the outbox bound. */
  adding: number;
  /** Dead-lettered batches. */
  deadLetters: number;
  deliveredTotal: number;
  /** [time, items] of each delivered batch in the last minute. */
  recent: [number, number][];
  failures: Map<FailureReason, number>;
  lastError: LastError | null;
  /** The latest batch's fate: a dead letter leaves the destination `failing` until one is delivered. */
  lastOutcome: 'delivered' | 'failed' | 'dead' | null;
  /**
   * The delivery loop itself fails (the database refuses a read or a write, a secret cannot be
   * opened), not the receiver: the destination is `failing` with this error until a step goes through.
   */
  loopError: LastError | null;
}

const blank = (): Entry => ({
  backlog: 0,
  version: 0,
  adding: 0,
  deadLetters: 0,
  deliveredTotal: 0,
  recent: [],
  failures: new Map(),
  lastError: null,
  lastOutcome: null,
  loopError: null,
});

/**
 * What this instance knows of each destination's delivery, in memory: the backlog of committed
 * items (seeded from the database and re-counted now and then, so other instances cannot make it
 * drift for long), counters for `/_metrics`, and the last error. Read by the status, the health
 * answer, the metrics and the outbox's bound; written by the outbox and the senders.
 */
/** Each destination's count version when a recount's reads began (`DeliveryLedger.recountMark`). */
export type RecountMark = ReadonlyMap<number, number>;

export class DeliveryLedger {
  private readonly entries = new Map<number, Entry>();

  constructor(private readonly now: () => number) {}

  private entry(destinationId: number): Entry {
    let entry = this.entries.get(destinationId);
    if (!entry) {
      entry = blank();
      this.entries.set(destinationId, entry);
    }
    return entry;
  }

  /** Taken before a recount's reads: which counts were as they are now when the reads began. */
  recountMark(): RecountMark {
    return new Map([...this.entries].map(([id, entry]) => [id, entry.version]));
  }

  /**
   * Counts read from the database (after `mark` was taken) replace the running ones (items still
   * being added are not in them), but only where nothing changed while they were read. A count
   * read while items were being credited or delivered may or may not hold them, so applying it
   * could count them twice, or leave out what a sender took meanwhile: a backlog 70 too high
   * after a receiver came back, until the next recount 30 s later. The next recount tries again.
   */
  recount(backlogs: ReadonlyMap<number, number>, deadLetters: ReadonlyMap<number, number>, mark: RecountMark): void {
    const unchanged = (id: number) => (this.entries.get(id)?.version ?? 0) === (mark.get(id) ?? 0);
    for (const id of new Set([...this.entries.keys(), ...backlogs.keys(), ...deadLetters.keys()])) {
      if (!unchanged(id)) continue;
      const entry = this.entry(id);
      entry.backlog = backlogs.get(id) ?? 0;
      entry.deadLetters = deadLetters.get(id) ?? 0;
    }
  }

  forget(destinationId: number): void {
    this.entries.delete(destinationId);
  }

  backlog(destinationId: number): number {
    return Math.max(0, this.entries.get(destinationId)?.backlog ?? 0);
  }

  deadLetters(destinationId: number): number {
    return this.entries.get(destinationId)?.deadLetters ?? 0;
  }

  /** What the outbox bound is checked against: the backlog and the items of transactions still open. */
  held(destinationId: number): number {
    const entry = this.entries.get(destinationId);
    return entry ? Math.max(0, entry.backlog) + entry.adding : 0;
  }

  /** Items are being written to the outbox; `added` says, once, whether they committed. */
  adding(destinationId: number, items: number): void {
    this.entry(destinationId).adding += items;
  }

  /** The transaction carrying `items` (announced by `adding`) ended: committed, they join the backlog. */
  added(destinationId: number, items: number, committed: boolean): void {
    const entry = this.entry(destinationId);
    entry.adding = Math.max(0, entry.adding - items);
    if (!committed) return;
    entry.backlog += items;
    entry.version++;
  }

  delivered(destinationId: number, items: number): void {
    const entry = this.entry(destinationId);
    const at = this.now();
    // Not clamped: a sender can deliver committed items before their commit is credited (`added`
    // runs after the COMMIT returns); the count is read clamped instead, so the order nets out.
    entry.backlog -= items;
    entry.version++;
    entry.deliveredTotal += items;
    entry.recent.push([at, items]);
    entry.lastOutcome = 'delivered';
    this.trim(entry, at);
  }

  failed(destinationId: number, reason: FailureReason, error: LastError): void {
    const entry = this.entry(destinationId);
    entry.failures.set(reason, (entry.failures.get(reason) ?? 0) + 1);
    entry.lastError = error;
    entry.lastOutcome = 'failed';
  }

  /** A batch of `items` became a dead letter (`fromBacklog`: it had been waiting, not written dead). */
  deadLettered(destinationId: number, items: number, reason: DeadLetterReason, fromBacklog: boolean): void {
    const entry = this.entry(destinationId);
    if (fromBacklog) entry.backlog -= items;
    entry.deadLetters += 1;
    entry.version++;
    if (reason !== 'outbox_full') entry.lastOutcome = 'dead';
  }

  retried(destinationId: number, items: number, batches: number): void {
    const entry = this.entry(destinationId);
    entry.backlog += items;
    entry.deadLetters = Math.max(0, entry.deadLetters - batches);
    entry.version++;
  }

  discarded(destinationId: number, batches: number): void {
    const entry = this.entry(destinationId);
    entry.deadLetters = Math.max(0, entry.deadLetters - batches);
    entry.version++;
  }

  /** A step of the destination's loop failed inside the gateway. */
  loopFailed(destinationId: number, error: LastError): void {
    this.entry(destinationId).loopError = error;
  }

  /** A step of the destination's loop went through. */
  loopRan(destinationId: number): void {
    const entry = this.entries.get(destinationId);
    if (entry) entry.loopError = null;
  }

  loopError(destinationId: number): LastError | null {
    return this.entries.get(destinationId)?.loopError ?? null;
  }

  deliveredLastMinute(destinationId: number): number {
    const entry = this.entries.get(destinationId);
    if (!entry) return 0;
    this.trim(entry, this.now());
    return entry.recent.reduce((sum, [, items]) => sum + items, 0);
  }

  deliveredTotal(destinationId: number): number {
    return this.entries.get(destinationId)?.deliveredTotal ?? 0;
  }

  failures(destinationId: number): ReadonlyMap<FailureReason, number> {
    return this.entries.get(destinationId)?.failures ?? new Map();
  }

  lastError(destinationId: number): LastError | null {
    return this.entries.get(destinationId)?.lastError ?? null;
  }

  lastOutcome(destinationId: number): Entry['lastOutcome'] {
    return this.entries.get(destinationId)?.lastOutcome ?? null;
  }

  private trim(entry: Entry, at: number): void {
    while (entry.recent.length > 0 && (entry.recent[0]?.[0] ?? at) <= at - 60_000) entry.recent.shift();
  }
}

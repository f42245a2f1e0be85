import type { QueueDepth } from './queue-depth';

/** How much one group-commit flush, and one chain of them on SQLite's writer, may take. */
export interface FlushLimits {
  /** Jobs one flush takes at most; the rest go in the next flush. */
  readonly jobs: number;
  /** Flushes chained on SQLite's writer before the connection goes back to its pool. */
  readonly chained: number;
}

export const FLUSH_LIMITS: FlushLimits = { jobs: 1000, chained: 32 };

/**
 * The ingest load policy, in one place: how intake (202s), sync stores (200s) and queued
 * processing share SQLite's one writer and Node's one main thread. Every part that used to carry
 * a knob of its own (the group commit's batch and chain lengths, the sync batcher, the worker's
 * claims) reads it here. The reasoning is docs/decisions/0010-queued-processing-always-runs.md,
 * the measured figures docs/performance.md (P10).
 *
 * The rule: queued processing always runs. The worker claims full batches back to back whenever
 * the queue holds work, and its transactions take their turn in the group commit beside the
 * acknowledgements; nothing holds it back because requests are arriving. Intake is what yields:
 * an async event is refused (503 + Retry-After) once the queue holds more than
 * `QUEUE_SECONDS` of processing at the rate the worker is measured to achieve under the current
 * load, or `maxQueueDepth`, whichever is lower. The queue stays bounded in time, not only in
 * size, and the events behind the GET snapshots are never more than a few seconds old.
 */
export class IngestLoad {
  readonly flush: FlushLimits = FLUSH_LIMITS;
  /** Sync events stored together in one job of a flush. */
  readonly syncPerFlush = 1000;
  /** Queued events the worker claims, validates and stores together. */
  readonly workerBatch = 200;
  /**
   * Payload bytes one claim may bring (at least one event): 200 events at the largest body limit
   * would be 20 GB to load and parse at once; UHFTagRead batches are a few hundred bytes each.
   */
  readonly workerBatchBytes = 16 * 1024 * 1024;
  /**
   * After a batch that emptied the queue, the worker waits this long before it claims again, so
   * events arriving one by one are processed in batches (each batch is a transaction and a disk
   * flush) at the cost of this much latency for an async event.
   */
  readonly workerGatherMs = 20;

  /** Measured processing throughput (events/s) while the queue had a backlog; null until measured. */
  private rate: number | null = null;

  constructor(
    private readonly depth: QueueDepth,
    private readonly maxQueueDepth: () => number,
  ) {}

  /** Events the worker finishes per second under the current load, or null before a full batch was timed. */
  get processingRate(): number | null {
    return this.rate;
  }

  /**
   * Where intake sheds: `QUEUE_SECONDS` of measured processing, never under `QUEUE_FLOOR` (a burst
   * of a few thousand events is always taken), never over `maxQueueDepth` (the configured cap).
   */
  queueBound(): number {
    const cap = this.maxQueueDepth();
    if (this.rate === null) return cap;
    return Math.min(cap, Math.max(QUEUE_FLOOR, Math.round(this.rate * QUEUE_SECONDS)));
  }

  /**
   * Intake of one async event: reserves its place in the queue, or answers how many seconds to
   * tell the client to wait (the time the worker needs to work the queue off at its measured rate).
   */
  admitQueued(): { admitted: true } | { admitted: false; retryAfterSeconds: number } {
    if (this.depth.tryReserve(this.queueBound())) return { admitted: true };
    const seconds = this.rate ? Math.ceil(this.depth.current / this.rate) : DEFAULT_RETRY_AFTER_S;
    return { admitted: false, retryAfterSeconds: Math.min(MAX_RETRY_AFTER_S, Math.max(1, seconds)) };
  }

  /**
   * Async events processed in the transaction that acknowledges them (issue 37), at most this
   * many at once. Beyond it a burst is queued (a 202 after a short ack flush) and worked off by the
   * worker: processing thousands at once would hold each answer behind all of them, past the
   * writer's wait limit (an MQTT burst of 50 publishers × 64 messages in flight did).
   */
  readonly atOnceLimit = 200;
  private atOnce = 0;

  /**
   * Whether an async event may be processed at once: nothing acknowledged waits for the worker
   * (so no earlier event is overtaken) and fewer than `atOnceLimit` are being processed so. True
   * takes a place; give it back with `releasedAtOnce`.
   */
  admitAtOnce(): boolean {
    if (this.depth.current > 0 || this.atOnce >= this.atOnceLimit) return false;
    this.atOnce += 1;
    return true;
  }

  releasedAtOnce(): void {
    this.atOnce = Math.max(0, this.atOnce - 1);
  }

  /** A queued event reached its final state (or was never written): its place is free again. */
  released(count = 1): void {
    this.depth.release(count);
  }

  /**
   * The worker finished a batch of `events` in `ms` (claim to commit). Only full batches tell the
   * processing capacity: a smaller one means the queue ran dry, not that the worker was slow.
   */
  recordBatch(events: number, ms: number, full: boolean): void {
    if (!full || events <= 0 || ms <= 0) return;
    const sample = (events * 1000) / ms;
    this.rate = this.rate === null ? sample : this.rate + RATE_SMOOTHING * (sample - this.rate);
  }
}

/** How much processing the queue may hold: a few seconds keeps the GET snapshots current. */
export const QUEUE_SECONDS = 2;
/** The bound never goes below this, so an ordinary burst is never refused for a slow sample. */
export const QUEUE_FLOOR = 10_000;
/** Weight of the newest batch in the measured rate: follows a change of load within ~10 batches. */
const RATE_SMOOTHING = 0.2;
const DEFAULT_RETRY_AFTER_S = 5;
const MAX_RETRY_AFTER_S = 30;

import type { Logger } from '../logger';
import type { Db } from '../db';
import { eventPruning } from '../repositories/events.repo';
import { readerWrites } from '../repositories/readers.repo';
import type { SettingsService } from '../services/settings.service';
import type { SessionsService } from '../auth/sessions.service';
import type { GroupCommit } from './commit/group-commit';
import type { Idempotency } from './idempotency';

const BATCH = 500;
const DAY_MS = 86_400_000;
/** Readers' per-minute counts are kept this long (SPEC §16: the history reaches back 1440 minutes). */
const READER_MINUTES_KEPT = 1440;
/** A reader shows its newest 20 alarms; older ones go. */
const READER_ALARMS_KEPT = 20;

/**
 * Background pruning: events older than `retentionDays`, and the oldest beyond
 * `retentionMaxEvents`, go in batches of a few hundred. Each batch is one job of the group commit,
 * so ingestion transactions interleave with pruning instead of waiting behind one long delete.
 * Also drops expired idempotency keys and bearer sessions, readers' per-minute counts older than
 * 24 h and their alarms beyond the newest 20.
 */
export class Housekeeping {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      db: Db;
      commit: GroupCommit;
      settings: SettingsService;
      sessions: SessionsService;
      idempotency: Idempotency;
      logger: Logger;
      now: () => number;
    },
    private readonly intervalMs = 10 * 60_000,
  ) {}

  start(): void {
    // First pass soon after start, then on the interval; never keeps the process alive.
    this.timer = setTimeout(() => this.tick(), 30_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private tick(): void {
    this.running = this.runOnce()
      .then(() => undefined)
      .catch((error: unknown) =>
        this.deps.logger.warn('housekeeping failed', { error: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => {
        this.running = null;
        if (this.timer) {
          this.timer = setTimeout(() => this.tick(), this.intervalMs);
          this.timer.unref();
        }
      });
  }

  /** One full pass; returns the number of submissions pruned. */
  async runOnce(): Promise<number> {
    const { retentionDays, retentionMaxEvents } = this.deps.settings.current();
    let pruned = await this.pruneWhile(() =>
      eventPruning.oldestFinal(this.deps.db.knex, BATCH, this.deps.now() - retentionDays * DAY_MS),
    );
    let excess = (await eventPruning.countSubmissions(this.deps.db.knex)) - retentionMaxEvents;
    while (excess > 0) {
      const ids = await eventPruning.oldestFinal(this.deps.db.knex, Math.min(BATCH, excess));
      if (ids.length === 0) break;
      await this.deps.commit.store((writes) => eventPruning.deleteWithDependents(writes, ids));
      pruned += ids.length;
      excess -= ids.length;
    }
    const beforeMinute = Math.floor(this.deps.now() / 60_000) - READER_MINUTES_KEPT;
    await this.deps.commit.store((writes) => {
      readerWrites.prune(writes, beforeMinute, READER_ALARMS_KEPT);
      return Promise.resolve();
    });
    await this.deps.idempotency.purgeExpired();
    await this.deps.sessions.pruneExpired();
    if (pruned > 0) this.deps.logger.info('pruned events', { count: pruned });
    return pruned;
  }

  private async pruneWhile(nextBatch: () => Promise<string[]>): Promise<number> {
    let total = 0;
    for (;;) {
      const ids = await nextBatch();
      if (ids.length === 0) return total;
      await this.deps.commit.store((writes) => eventPruning.deleteWithDependents(writes, ids));
      total += ids.length;
      if (ids.length < BATCH) return total;
    }
  }
}

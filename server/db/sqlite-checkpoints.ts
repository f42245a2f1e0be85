import type { Knex } from 'knex';
import type { Logger } from '../logger';

/**
 * How often the WAL's committed pages are copied back to the database file beside the writer.
 * Each run copies what was committed since the last: under a full load of batched reads a
 * second's worth is a few thousand pages, so the writer's own checkpoint (`wal_autocheckpoint`,
 * create-db.ts) finds them copied and only has to restart the WAL.
 */
export const CHECKPOINT_EVERY_MS = 1_000;

/**
 * SQLite's checkpoints, taken off the writer (decision 0410). Left to itself, the connection whose
 * COMMIT takes the WAL past `wal_autocheckpoint` pages copies them all back inside that COMMIT:
 * under batched reads that is ~10,000 pages every few seconds, and every request waiting for that
 * flush waits the copy out too. Here a connection of its own runs a PASSIVE checkpoint every
 * second on another SQLite thread; PASSIVE takes no write lock, so the writer's commits go on
 * meanwhile. The writer's own checkpoint stays as the catch-up (a PASSIVE checkpoint beside a
 * writer that never pauses may never see the WAL whole, and only a complete checkpoint lets
 * the next transaction start the WAL over) and as the safety net should this one stop.
 */
export class BackgroundCheckpoints {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;

  constructor(
    private readonly connection: Knex,
    private readonly logger: Logger | undefined,
    private readonly everyMs = CHECKPOINT_EVERY_MS,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.once(), this.everyMs);
    // A gateway that is stopping must not be kept alive by its checkpoints.
    this.timer.unref();
  }

  /** One PASSIVE checkpoint, unless one is still running. */
  once(): Promise<void> {
    this.running ??= this.connection
      .raw('PRAGMA wal_checkpoint(PASSIVE)')
      .then(
        () => undefined,
        // Busy (another checkpoint holds SQLite's checkpoint lock) or the disk: the writer's own
        // checkpoint still runs, so a missed one costs latency, never data.
        (error: unknown) =>
          this.logger?.warn('background checkpoint failed', {
            error: error instanceof Error ? error.message : String(error),
          }),
      )
      .finally(() => (this.running = null));
    return this.running;
  }

  /** Stops the timer and waits for a checkpoint in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}

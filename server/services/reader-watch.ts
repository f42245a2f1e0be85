import type { Db } from '../db';
import type { Logger } from '../logger';
import { readersRepo } from '../repositories/readers.repo';
import { readerState } from './readers.service';

/** A reader that turned silent or came back. */
export interface ReaderStateChange {
  readerId: string;
  name: string | null;
  state: 'online' | 'silent';
}

/** How often states are compared: a reader turns silent within this much of its threshold. */
const WATCH_INTERVAL_MS = 5_000;

/**
 * Turning silent and coming back (SPEC §16): `state` is computed from `lastSeenAt` whenever it is
 * read, so nothing has to happen for a reader to show as silent; this watch compares the states
 * every few seconds to log each change (warn / info) and to tell listeners (the desktop app's
 * notification and tray). The first look only learns the states: a gateway that starts after a
 * night off does not report every reader as newly silent.
 */
export class ReaderWatch {
  private readonly states = new Map<string, 'online' | 'silent'>();
  private readonly listeners = new Set<(change: ReaderStateChange) => void>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private primed = false;

  constructor(
    private readonly deps: {
      db: Db;
      logger: Logger;
      now: () => number;
      silentAfterSeconds: () => number;
    },
  ) {}

  /** Called with every change; returns the unsubscribe function. */
  onChange(listener: (change: ReaderStateChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Readers silent at the last look. */
  silentCount(): number {
    let count = 0;
    for (const state of this.states.values()) if (state === 'silent') count++;
    return count;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), WATCH_INTERVAL_MS);
    this.timer.unref();
    void this.check();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look: compares every reader's state with the last one (one at a time). */
  check(): Promise<void> {
    this.running ??= this.look().finally(() => (this.running = null));
    return this.running;
  }

  private async look(): Promise<void> {
    let readers: Awaited<ReturnType<typeof readersRepo.lastSeen>>;
    try {
      readers = await readersRepo.lastSeen(this.deps.db.reads);
    } catch (error) {
      this.deps.logger.warn('reader states could not be read', { error });
      return;
    }
    const at = this.deps.now();
    const fallback = this.deps.silentAfterSeconds();
    const seen = new Set<string>();
    for (const reader of readers) {
      seen.add(reader.readerId);
      const state = readerState(reader.lastSeenAt, reader.silentAfterSeconds ?? fallback, at);
      const before = this.states.get(reader.readerId);
      this.states.set(reader.readerId, state);
      // A reader heard for the first time has not changed: it has just arrived.
      if (!this.primed || before === undefined || before === state) continue;
      const label = reader.name ? `${reader.name} (${reader.readerId})` : reader.readerId;
      if (state === 'silent') this.deps.logger.warn(`reader ${label} turned silent`, { readerId: reader.readerId });
      else this.deps.logger.info(`reader ${label} is back`, { readerId: reader.readerId });
      for (const listener of this.listeners) listener({ readerId: reader.readerId, name: reader.name, state });
    }
    for (const readerId of this.states.keys()) if (!seen.has(readerId)) this.states.delete(readerId);
    this.primed = true;
  }
}

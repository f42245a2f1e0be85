import type { SqlUtf8 } from '../../db/sql-literal';

/** What the held bodies may take at most, together. Beyond it the oldest is let go. */
export const HELD_PAYLOAD_BYTES = 256 * 1024 * 1024;
/** A body not claimed within this long (another instance took it, say) is let go. */
const HELD_MS = 10 * 60_000;

/**
 * The bytes of large bodies the queued path has just stored, held for the worker of this process
 * (issue 38.3, decision 0424). Reading a 100 MiB payload back out of SQLite hands the main thread
 * one copy of all of it in one callback, most of a second on a machine where fresh memory is slow
 * to touch; and read in pieces, SQLite loads the whole value once per piece. The worker takes the
 * bytes from here when it claims the event, and reads the database only when they are not here
 * (after a restart, or once let go). Only what was committed is held, and only until claimed.
 */
export class LargePayloads {
  private readonly held = new Map<string, { payload: SqlUtf8; at: number }>();
  private bytes = 0;

  constructor(
    private readonly now: () => number,
    private readonly maxBytes = HELD_PAYLOAD_BYTES,
  ) {}

  /** Holds the stored payload of event `id` for the worker. */
  hold(id: string, payload: SqlUtf8): void {
    if (payload.length > this.maxBytes) return;
    this.letGo(this.now() - HELD_MS);
    this.held.set(id, { payload, at: this.now() });
    this.bytes += payload.length;
    // Oldest first (a Map keeps insertion order) until the rest fit.
    for (const [oldest] of this.held) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest);
    }
  }

  /** The payload of event `id`, once: it is no longer held after this. */
  take(id: string): SqlUtf8 | undefined {
    const entry = this.held.get(id);
    if (entry) this.drop(id);
    return entry?.payload;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  private letGo(before: number): void {
    for (const [id, entry] of this.held) {
      if (entry.at >= before) break;
      this.drop(id);
    }
  }

  private drop(id: string): void {
    const entry = this.held.get(id);
    if (!entry) return;
    this.held.delete(id);
    this.bytes -= entry.payload.length;
  }
}

/** One key's reads: the one running, and the one that starts when it is done. */
interface Rounds {
  running: Promise<unknown>;
  next: Promise<unknown> | null;
}

/**
 * Identical reads that arrive together share one read. A read that arrives while none is running
 * for its key starts one; one that arrives while a read is running never joins it (that read may
 * have looked at the database before this caller's last write was answered) but waits for the
 * next, which starts once the running one is done, so after every caller it serves arrived. So a
 * caller always sees everything committed before it asked, and fifty concurrent polls of one page
 * cost two reads instead of fifty trips queued behind each other.
 *
 * The answer is shared by every caller of the round: it must not be mutated. A failed read fails
 * the callers of its round only.
 */
export class ReadRounds {
  private readonly byKey = new Map<string, Rounds>();

  read<T>(key: string, read: () => Promise<T>): Promise<T> {
    const rounds = this.byKey.get(key);
    if (!rounds) return this.start(key, read);
    if (!rounds.next) {
      const next = rounds.running.then(settled, settled).then(read);
      rounds.next = next;
    }
    return rounds.next as Promise<T>;
  }

  private start<T>(key: string, read: () => Promise<T>): Promise<T> {
    const rounds: Rounds = { running: startRead(read), next: null };
    this.byKey.set(key, rounds);
    const advance = (): void => {
      if (rounds.next) {
        rounds.running = rounds.next;
        rounds.next = null;
        rounds.running.then(advance, advance);
      } else {
        this.byKey.delete(key);
      }
    };
    rounds.running.then(advance, advance);
    return rounds.running as Promise<T>;
  }
}

const settled = (): void => undefined;

/** Starts `read` now; one that throws before it returns a promise fails its round like any other. */
function startRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return read();
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

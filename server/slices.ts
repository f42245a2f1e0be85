import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Main-thread time one slice of long work may take before it yields a turn of the event loop
 * (issue 38.3): a `/_health` request, or a slice of another large body, runs in between, so
 * however many large bodies are being handled nothing waits much longer than one slice each.
 */
export const SLICE_MS = 15;

/**
 * Cooperative slicing: a long loop asks `spent` now and then, and `await yieldTurn()` when it is
 * true. One per piece of work; it measures from its creation, then from each yield.
 */
export class Slices {
  private started = performance.now();

  get spent(): boolean {
    return performance.now() - this.started >= SLICE_MS;
  }

  async yieldTurn(): Promise<void> {
    await nextTurn();
    this.started = performance.now();
  }

  /** Calls `each` on every item, yielding whenever the slice is spent (looked at every `every` items). */
  async forEach<T>(items: readonly T[], each: (item: T, index: number) => void, every = 256): Promise<void> {
    for (let i = 0; i < items.length; i++) {
      if (i % every === 0 && this.spent) await this.yieldTurn();
      each(items[i], i);
    }
  }
}

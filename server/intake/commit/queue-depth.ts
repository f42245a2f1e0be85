/**
 * Counts what is acknowledged (or being committed) and not yet final, so a full queue can be
 * refused with 503 before anything is written. Seeded from the database at start, kept exact
 * in memory afterwards, and re-read now and then as a safety net.
 */
export class QueueDepth {
  private value = 0;

  get current(): number {
    return this.value;
  }

  /** Reserves a slot if the queue has room below `limit`; false means answer 503. */
  tryReserve(limit: number): boolean {
    if (this.value + 1 > limit) return false;
    this.value += 1;
    return true;
  }

  release(count = 1): void {
    this.value = Math.max(0, this.value - count);
  }

  reset(value: number): void {
    this.value = value;
  }
}

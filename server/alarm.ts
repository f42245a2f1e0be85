/**
 * A latched wake-up for a loop that sleeps between passes: `wait(ms)` ends after `ms` or at the
 * next `wake`, and a `wake` that comes while the loop is busy is kept for its next `wait`, so work
 * announced during a pass is never slept through.
 */
export class Alarm {
  private ring: (() => void) | null = null;
  private rung = false;

  wait(ms: number): Promise<void> {
    if (this.rung) {
      this.rung = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.ring = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.ring = done;
    });
  }

  wake(): void {
    if (this.ring) this.ring();
    else this.rung = true;
  }

  /** Forgets a kept wake: the pass about to start sees the work it announced anyway. */
  clear(): void {
    this.rung = false;
  }
}

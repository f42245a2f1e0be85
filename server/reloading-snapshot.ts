/**
 * An in-memory snapshot of database state that is rebuilt as a whole when told it is stale.
 * `invalidate()` marks it stale synchronously (so a change is visible to the very next caller,
 * who waits for the reload), an older load finishing late never replaces a newer one, and a load
 * that failed (database gone) is retried by the next caller, so the cache heals by itself.
 */
export class ReloadingSnapshot<T> {
  private current: Promise<T>;
  private ready: T | null = null;
  private generation = 0;
  private failed = false;

  constructor(private readonly loader: () => Promise<T>) {
    this.current = this.start();
  }

  /** The up-to-date snapshot; synchronous once loaded and unchanged. */
  get(): T | Promise<T> {
    if (this.failed) this.invalidate();
    return this.ready ?? this.current;
  }

  /**
   * Waits for a reload in progress (its outcome does not matter). Called before the database
   * closes: a reload racing the close would otherwise leave a pool request pending, holding the
   * process open until the pool's acquire timeout.
   */
  async settle(): Promise<void> {
    await this.current.catch(() => undefined);
  }

  invalidate(): void {
    this.ready = null;
    this.current = this.start();
  }

  private start(): Promise<T> {
    this.failed = false;
    const generation = ++this.generation;
    const loading = this.loader().then((value) => {
      if (generation === this.generation) this.ready = value;
      return value;
    });
    loading.catch(() => {
      if (generation === this.generation) this.failed = true;
    });
    return loading;
  }
}

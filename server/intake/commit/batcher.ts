import { isDatabaseUnavailable } from '../../db/unavailable';
import type { WriteBatch } from '../../db/write-batch';
import type { GroupCommit } from './group-commit';

/** How a batcher puts a job into the group commit: `GroupCommit.run` or `GroupCommit.store`. */
export type JobRunner<Tx> = <R>(work: (tx: Tx) => Promise<R>) => Promise<R>;

/** One item's result inside a batch: a per-item refusal (a lost lease) does not fail the others. */
export type ItemOutcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

interface Entry<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/**
 * Turns single-event work into one group-commit job per flush. Each job costs a savepoint (or a
 * script of its own) and its own statements, all serialized on SQLite's one connection, so N
 * requests doing the same kind of work as N jobs made the flush, and every 202/200 waiting on it, N times longer. Here the items
 * that arrive while a flush is committing join one job, which does them with set-based
 * statements (`many`) under a single savepoint.
 *
 * Failure isolation is kept: if a batch throws, its savepoint rolls back and every item is done
 * again in a job of its own (`many` of one item, like the single-event path was), so only a failing
 * item fails.
 */
export class CommitBatcher<I, O, Tx> {
  private pending: Entry<I, O>[] = [];
  private queued = false;

  constructor(
    private readonly runJob: JobRunner<Tx>,
    private readonly work: {
      /** Does the items inside one job (its own savepoint); outcomes in item order. */
      many: (tx: Tx, items: I[]) => Promise<ItemOutcome<O>[]>;
      /**
       * Items per job. The rest waits for the next flush: this bounds how much one flush (and
       * so every acknowledgement riding on it) can be delayed by this kind of work.
       */
      maxPerFlush: number;
      /**
       * Told when a batch of `items` rolled back for anything but unavailable storage, before
       * each item is done again on its own: nothing else says that a flush failed.
       */
      failed?: (error: unknown, items: number) => void;
    },
  ) {}

  /** One item in a job of its own: `many` of one, its refusal rolling back its savepoint. */
  private one(item: I): Promise<O> {
    return this.runJob(async (tx) => {
      const [outcome] = await this.work.many(tx, [item]);
      if (!outcome?.ok) throw outcome ? outcome.error : new Error('batch returned no outcome');
      return outcome.value;
    });
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.queued || this.pending.length === 0) return;
    this.queued = true;
    this.queueJob();
  }

  private queueJob(): void {
    let taken: Entry<I, O>[] | null = null;
    const take = (): Entry<I, O>[] => {
      const entries = this.pending.splice(0, this.work.maxPerFlush);
      this.queued = false;
      // Anything left over is queued now, which puts it in the next flush, not this one.
      this.schedule();
      return entries;
    };
    this.runJob((tx) => {
      // Taken when the job runs, not when it was queued: whatever arrived meanwhile joins.
      taken = take();
      return this.work.many(
        tx,
        taken.map((entry) => entry.item),
      );
    }).then(
      (outcomes) => {
        (taken ?? []).forEach((entry, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok) entry.resolve(outcome.value);
          else entry.reject(outcome ? outcome.error : new Error('batch returned no outcome'));
        });
      },
      (error: unknown) => {
        // Storage trouble (the writer not reached in time, a lock held elsewhere, a full disk)
        // is no item's own fault: done again one by one, each would only wait for it again.
        if (isDatabaseUnavailable(error)) {
          for (const entry of taken ?? take()) entry.reject(error);
          return;
        }
        // The batch rolled back (or its transaction never ran): each item on its own.
        const entries = taken ?? take();
        this.work.failed?.(error, entries.length);
        for (const entry of entries)
          this.one(entry.item).then(
            (value) => entry.resolve(value),
            (error: unknown) => entry.reject(error),
          );
      },
    );
  }
}

/** A batcher whose jobs are `commit`'s store jobs: each flush's items done by `many` in one job. */
export const storeBatcher = <I, O>(
  commit: GroupCommit,
  maxPerFlush: number,
  many: (writes: WriteBatch, items: I[]) => Promise<ItemOutcome<O>[]>,
  failed?: (error: unknown, items: number) => void,
): CommitBatcher<I, O, WriteBatch> => new CommitBatcher((work) => commit.store(work), { many, maxPerFlush, failed });

import { describe, expect, it } from 'vitest';
import { WriterUnreachableError } from '../../server/db/writer-limits';
import { CommitBatcher, type ItemOutcome } from '../../server/intake/commit/batcher';

/**
 * A batcher over a job runner that fails the first job it is given (as a flush that rolled back
 * does) and runs the rest: what a flush of several items does when it fails for the items' sake,
 * and when it fails for storage.
 */
function failingFirst(firstError: unknown) {
  let jobs = 0;
  const failures: { error: unknown; items: number }[] = [];
  const batcher = new CommitBatcher<number, number, null>(
    async (work) => {
      jobs += 1;
      if (jobs === 1) throw firstError;
      return work(null);
    },
    {
      many: (_tx, items): Promise<ItemOutcome<number>[]> =>
        Promise.resolve(items.map((item) => ({ ok: true as const, value: item * 10 }))),
      maxPerFlush: 100,
      failed: (error, items) => failures.push({ error, items }),
    },
  );
  return { batcher, failures, jobs: () => jobs };
}

describe('CommitBatcher when a batch fails', () => {
  it('says so once with the number of items, then stores each on its own', async () => {
    const rolledBack = new Error('the batch rolled back');
    const { batcher, failures, jobs } = failingFirst(rolledBack);
    const answers = await Promise.all([batcher.submit(1), batcher.submit(2), batcher.submit(3)]);
    expect(answers).toEqual([10, 20, 30]);
    expect(failures).toEqual([{ error: rolledBack, items: 3 }]);
    expect(jobs()).toBe(4); // the failed batch, then one job per item
  });

  it('says nothing and retries nothing when storage is unavailable: every item is refused with it', async () => {
    const unreachable = new WriterUnreachableError(2_000);
    const { batcher, failures, jobs } = failingFirst(unreachable);
    const settled = await Promise.allSettled([batcher.submit(1), batcher.submit(2)]);
    expect(settled.map((s) => (s.status === 'rejected' ? s.reason : s.value))).toEqual([unreachable, unreachable]);
    expect(failures).toEqual([]);
    expect(jobs()).toBe(1);
  });
});

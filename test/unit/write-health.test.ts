import { describe, expect, it } from 'vitest';
import { WRITER_QUEUE_WAIT_MS } from '../../server/db/writer-limits';
import type { GroupCommit, WriterState } from '../../server/intake/commit/group-commit';
import { writeHealth, type WriteHealthSources } from '../../server/intake/commit/write-health';

const NOW = Date.parse('2026-01-01T12:00:00Z');

/** A group commit as health reads it: what its write path recorded. */
const lane = (
  state: Partial<WriterState>,
  waiting: { count: number; since: number | null } = { count: 0, since: null },
) =>
  ({
    state: {
      lastCommitAt: null,
      lastErrorAt: null,
      lastError: null,
      lastGivenUpAt: null,
      flushingSince: null,
      ...state,
    },
    waiting: waiting.count,
    oldestWaitingSince: waiting.since,
  }) as unknown as GroupCommit;

const sources = (over: Partial<WriteHealthSources>): WriteHealthSources => ({
  lanes: [lane({ lastCommitAt: NOW - 1_000 })],
  queue: { depth: () => 3, limit: () => 100 },
  dataDir: process.cwd(),
  probe: () => Promise.resolve(),
  now: () => NOW,
  ...over,
});

const codes = async (over: Partial<WriteHealthSources>) =>
  (await writeHealth(sources(over))).reasons.map((r) => r.code);

describe('write-path health', () => {
  it('is ok when the last commit succeeded, with queue state and the data folder’s free space', async () => {
    const report = await writeHealth(sources({}));
    expect(report.ok).toBe(true);
    expect(report.queue).toMatchObject({ depth: 3, limit: 100, waitingForWriter: 0 });
    expect(report.disk.freeBytes).toBeGreaterThan(0);
  });

  it('says writes fail while the last commit failed (a full disk), and ok again after a commit', async () => {
    const full = await writeHealth(
      sources({ lanes: [lane({ lastCommitAt: NOW - 5_000, lastErrorAt: NOW - 1_000, lastError: 'SQLITE_FULL' })] }),
    );
    expect(full.ok).toBe(false);
    expect(full.reasons).toEqual([{ code: 'writes_failing', message: expect.stringContaining('SQLITE_FULL') }]);
    expect(full.writer.lastError).toBe('SQLITE_FULL');
    expect(await codes({ lanes: [lane({ lastCommitAt: NOW - 500, lastErrorAt: NOW - 1_000 })] })).toEqual([]);
  });

  it('says the writer stalls when a job waits past the bound, and the queue is full at its limit', async () => {
    expect(await codes({ lanes: [lane({}, { count: 4, since: NOW - WRITER_QUEUE_WAIT_MS - 1 })] })).toEqual([
      'writer_stalled',
    ]);
    expect(await codes({ lanes: [lane({ lastCommitAt: NOW - 3_000, lastGivenUpAt: NOW - 100 })] })).toEqual([
      'writer_stalled',
    ]);
    expect(await codes({ queue: { depth: () => 100, limit: () => 100 } })).toEqual(['queue_full']);
  });

  it('answers without waiting for a database that does not answer', async () => {
    const started = Date.now();
    const report = await writeHealth(sources({ probe: () => new Promise(() => undefined) }));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(report.reasons.map((r) => r.code)).toEqual(['database_unreachable']);
  });
});

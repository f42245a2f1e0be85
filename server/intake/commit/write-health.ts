import { statfs } from 'node:fs/promises';
import { WRITER_QUEUE_WAIT_MS } from '../../db/writer-limits';
import type { CommitStats, GroupCommit } from './group-commit';

/** `/_health` answers within 1 s (SPEC §13): each probe gets at most this long. */
export const HEALTH_PROBE_MS = 500;
/** A flush running this long has not returned although the lock wait is bounded: the disk stalls. */
export const WRITER_STALL_MS = 5_000;

/** Why the gateway is not fully able to take writes, or to pass them on. `code` is the stable part. */
export interface HealthReason {
  code: 'writes_failing' | 'writer_stalled' | 'queue_full' | 'database_unreachable' | 'outbox_full';
  message: string;
}

export interface WriteHealthSources {
  lanes: GroupCommit[];
  queue: { depth: () => number; limit: () => number };
  /** Folder whose free space is reported (the data folder); null when unknown. */
  dataDir: string | null;
  /** A cheap round trip to the database (`select 1`). */
  probe: () => Promise<unknown>;
  /** Names of the destinations whose outbox is at `maxOutboxItems` (new items become dead letters). */
  fullOutboxes?: () => string[];
  now?: () => number;
}

/** Settles with `fallback` when `work` takes longer than `ms`: health never waits on the writer. */
async function within<T>(ms: number, work: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const freeBytes = async (dir: string | null): Promise<number | null> => {
  if (!dir) return null;
  const stats = await statfs(dir).catch(() => null);
  return stats ? stats.bavail * stats.bsize : null;
};

/**
 * The write path's health, from what it recorded as it went (last commit, last storage error,
 * how long the oldest job has waited) plus two bounded probes (the database, free disk space).
 */
export async function writeHealth(sources: WriteHealthSources) {
  const now = (sources.now ?? Date.now)();
  const [reachable, free] = await Promise.all([
    within(
      HEALTH_PROBE_MS,
      sources.probe().then(
        () => true,
        () => false,
      ),
      false,
    ),
    within(HEALTH_PROBE_MS, freeBytes(sources.dataDir), null),
  ]);
  const reasons: HealthReason[] = [];
  if (!reachable) reasons.push({ code: 'database_unreachable', message: 'The database does not answer' });
  let lastCommitAt: number | null = null;
  let lastErrorAt: number | null = null;
  let lastError: string | null = null;
  let oldestWaitMs = 0;
  let flushingMs = 0;
  let waiting = 0;
  let stalled = false;
  for (const lane of sources.lanes) {
    const { state } = lane;
    lastCommitAt = Math.max(lastCommitAt ?? 0, state.lastCommitAt ?? 0) || null;
    if ((state.lastErrorAt ?? 0) > (lastErrorAt ?? 0)) ({ lastErrorAt, lastError } = state);
    // The last word of a lane is an error: its writes fail until a commit succeeds again.
    if (state.lastErrorAt !== null && state.lastErrorAt >= (state.lastCommitAt ?? 0)) {
      reasons.push({ code: 'writes_failing', message: `The last write failed (${state.lastError ?? 'error'})` });
    }
    // Jobs given up since the last commit: the writer has not taken anything since.
    if (state.lastGivenUpAt !== null && state.lastGivenUpAt >= (state.lastCommitAt ?? 0)) stalled = true;
    const since = lane.oldestWaitingSince;
    if (since !== null) oldestWaitMs = Math.max(oldestWaitMs, now - since);
    if (state.flushingSince !== null) flushingMs = Math.max(flushingMs, now - state.flushingSince);
    waiting += lane.waiting;
  }
  if (stalled || oldestWaitMs >= WRITER_QUEUE_WAIT_MS || flushingMs >= WRITER_STALL_MS) {
    reasons.push({ code: 'writer_stalled', message: 'Writes do not reach the database in time' });
  }
  const depth = sources.queue.depth();
  const limit = sources.queue.limit();
  if (depth >= limit) reasons.push({ code: 'queue_full', message: `The queue holds ${depth} of ${limit} events` });
  for (const name of sources.fullOutboxes?.() ?? [])
    reasons.push({
      code: 'outbox_full',
      message: `The outbox of destination "${name}" is full: new items become dead letters`,
    });
  const unique = reasons.filter(
    (reason, index) => reasons.findIndex((r) => r.code === reason.code && r.message === reason.message) === index,
  );
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  return {
    ok: unique.length === 0,
    reachable,
    reasons: unique,
    queue: { depth, limit, waitingForWriter: waiting, oldestWaitMs },
    writer: { lastCommitAt: iso(lastCommitAt), lastErrorAt: iso(lastErrorAt), lastError, flushingMs },
    disk: { freeBytes: free },
  };
}

/**
 * The `/_health` answer (SPEC §4, §13): `ok`, or `degraded` with its reasons, and what an
 * operator (or the bench) reads beside it: the write path, the queue, free disk space, and the
 * group commit's counters since start (counts only, no secrets; `npm run bench` reads them to
 * report durable events per disk flush).
 */
export async function healthAnswer(
  sources: WriteHealthSources & { version: string; databaseKind: string; commitStats: () => CommitStats },
): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const report = await writeHealth(sources);
  return {
    ok: report.ok,
    body: {
      status: report.ok ? 'ok' : 'degraded',
      ...(report.ok ? {} : { reasons: report.reasons }),
      version: sources.version,
      database: { kind: sources.databaseKind, reachable: report.reachable },
      queueDepth: report.queue.depth,
      queue: report.queue,
      writer: report.writer,
      disk: report.disk,
      commit: sources.commitStats(),
    },
  };
}

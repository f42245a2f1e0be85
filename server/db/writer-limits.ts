/**
 * How long a write may wait to reach the writer (SPEC §13: a request that cannot reach it within
 * 2 s gets 503 `overloaded` with Retry-After). Split in two, so the sum holds: the wait in the
 * gateway's own queue for a flush to take the job, then, as SQLite's busy_timeout, the wait of
 * that flush for the database's write lock that another process (or a checkpoint) holds.
 */
export const WRITER_REACH_MS = 2_000;
/** SQLite's busy_timeout: a flush waits this long for a write lock held elsewhere, then fails. */
export const WRITER_LOCK_WAIT_MS = WRITER_REACH_MS / 2;
/** A job no flush has taken within this long is given up (503) before anything of it is sent. */
export const WRITER_QUEUE_WAIT_MS = WRITER_REACH_MS - WRITER_LOCK_WAIT_MS;

/** A write that did not reach the writer in time: nothing of it was sent, so nothing committed. */
export class WriterUnreachableError extends Error {
  readonly code = 'WRITER_UNREACHABLE';
  constructor(waitedMs: number) {
    super(`The write waited ${waitedMs} ms for the writer and was given up`);
    this.name = 'WriterUnreachableError';
  }
}

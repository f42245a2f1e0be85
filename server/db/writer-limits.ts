/**
 * How long a write may wait to reach the writer (SPEC §13: a request that cannot reach it within
 * 2 s gets 503 `overloaded` with Retry-After). It bounds both the wait in the gateway's own
 * queue for the writer and, as SQLite's busy_timeout, the wait for the database's write lock
 * that another process (or a checkpoint) holds. One constant, enforced by whatever owns writes.
 */
export const WRITER_REACH_MS = 2_000;

/** A write that did not reach the writer in time: nothing of it was sent, so nothing committed. */
export class WriterUnreachableError extends Error {
  readonly code = 'WRITER_UNREACHABLE';
  constructor(waitedMs: number) {
    super(`The write waited ${waitedMs} ms for the writer and was given up`);
    this.name = 'WriterUnreachableError';
  }
}

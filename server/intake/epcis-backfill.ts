import type { Db } from '../db';
import type { WriteBatch } from '../db/write-batch';
import { queryFacts } from '../events/epcis';
import type { Logger } from '../logger';
import { epcisIndexRepo } from '../repositories/epcis-index.repo';
import { num } from '../repositories/db-types';
import type { GroupCommit } from './commit/group-commit';

/** Events per batch: one group-commit job each, so intake interleaves with the backfill. */
const BATCH = 500;

/**
 * Indexes the EPCIS events stored before the EPCIS repository's index existed (SPEC §17), in the
 * background after start: each endpoint's EpcisObject events without index rows, in id order, a
 * batch per group-commit job (read and written in one transaction, so retention cannot delete an
 * event between the two). Until it has passed, queries miss the old events and a capture does
 * not see their eventIDs (docs/decisions/0116-epcis-index-backfill-at-start.md). Once every old event is
 * indexed a pass reads only index pages and stores nothing.
 */
export class EpcisIndexBackfill {
  private running: Promise<number> | null = null;
  private stopping = false;

  constructor(private readonly deps: { db: Db; commit: GroupCommit; logger: Logger }) {}

  /** Starts one pass in the background; a failure is logged (the next start tries again). */
  start(): void {
    this.running = this.runOnce().catch((error: unknown) => {
      this.deps.logger.warn('EPCIS index backfill failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      return 0;
    });
  }

  /** Stops after the batch in hand. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** One full pass over every endpoint; returns the number of events indexed. */
  async runOnce(): Promise<number> {
    let indexed = 0;
    for (const endpointId of await epcisIndexRepo.endpointIds(this.deps.db.knex)) {
      let after = '';
      while (!this.stopping) {
        const batch = await this.deps.commit.store((writes) => this.indexBatch(writes, endpointId, after));
        indexed += batch.count;
        if (batch.last === null) break;
        after = batch.last;
      }
    }
    if (indexed > 0) this.deps.logger.info('EPCIS index backfilled', { events: indexed });
    return indexed;
  }

  private async indexBatch(writes: WriteBatch, endpointId: number, after: string) {
    const rows = await epcisIndexRepo.unindexed(writes, endpointId, after, BATCH);
    // Index rows in the order capture writes them: submission by submission, each one's events
    // in document order (their ids were drawn last event first). Only ties of record time see it.
    const ordered = [...rows].sort((a, b) =>
      a.parent_id === b.parent_id ? compare(b.id, a.id) : compare(a.parent_id, b.parent_id),
    );
    const entries = ordered.flatMap((row) => {
      const event = parseEvent(row.payload);
      return event ? [{ eventId: row.id, endpointId, recordTime: num(row.record_time), facts: queryFacts(event) }] : [];
    });
    epcisIndexRepo.insert(writes, entries);
    return { count: entries.length, last: rows.length < BATCH ? null : (rows[rows.length - 1]?.id ?? null) };
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A stored EPCIS event's JSON; null for a payload that is not an object (never written so). */
function parseEvent(payload: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(payload);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

import type { Knex } from 'knex';
import type { WriteBatch } from '../db/write-batch';
import type { EventOutcome } from '../repositories/events.repo';

/**
 * Set-based forms of `eventWrites.confirmLease` and `eventWrites.setOutcome` for the worker's
 * batches: one statement per batch instead of one per event. Measured under async load, the
 * per-row forms were ~95% of all statements in a flush (two UPDATEs per processed event), and
 * every 202 waiting on that flush waited for them. These belong in repositories/events.repo.ts
 * beside their single-row forms; they live here while that file is being reworked for PostgreSQL.
 * Both are plain SQL that SQLite (≥ 3.35, for RETURNING) and PostgreSQL run alike.
 */

/** Rows per statement: 100 ids × 5 CASE columns × 2 bindings stays far below either bound limit. */
const CHUNK = 100;

/**
 * Of these events, the ids still queued and (on PostgreSQL) leased to `owner`, read through the
 * batch's transaction. On PostgreSQL the rows are touched (as `confirmLease` does), which keeps
 * them locked until the commit. On SQLite the worker claims without leases (`Worker.claim`): a
 * plain read of the status is enough, and the script transaction's guard refuses the commit if
 * another connection wrote meanwhile.
 */
export async function confirmLeases(writes: WriteBatch, ids: string[], owner: string): Promise<Set<string>> {
  const held = new Set<string>();
  for (let start = 0; start < ids.length; start += CHUNK) {
    const queued = writes
      .sql('events')
      .whereIn('id', ids.slice(start, start + CHUNK))
      .where({ status: 'queued' });
    const query =
      writes.dialect === 'sqlite'
        ? queued.select('id')
        : queued.where({ lease_owner: owner }).update({ lease_owner: owner }).returning('id');
    for (const row of await writes.read<{ id: string }>(query)) held.add(row.id);
  }
  return held;
}

const FIELDS = ['status', 'data', 'result', 'errors', 'warnings'] as const;

/** Adds each event's final state and the release of its lease to `writes`: one UPDATE with a CASE per column. */
export function setOutcomes(
  writes: WriteBatch,
  outcomes: { id: string; outcome: EventOutcome }[],
  processedAt: number,
): void {
  const sql = writes.sql;
  for (let start = 0; start < outcomes.length; start += CHUNK) {
    const chunk = outcomes.slice(start, start + CHUNK);
    const cases: Record<string, Knex.Raw> = {};
    for (const field of FIELDS) {
      const bindings = chunk.flatMap(({ id, outcome }) => [id, outcome[field] ?? null]);
      cases[field] = sql.raw(`case ?? ${chunk.map(() => 'when ? then ?').join(' ')} end`, ['id', ...bindings]);
    }
    writes.add(
      sql('events')
        .whereIn(
          'id',
          chunk.map(({ id }) => id),
        )
        .update({ ...cases, processed_at: processedAt, lease_owner: null, lease_until: null }),
    );
  }
}

import { num, type Queryable } from './db-types';
import type { WriteBatch } from '../db/write-batch';

/** GhostData rows (SPEC §5), one per table row of a submission, for the GhostData GET snapshot. */
export interface GhostRowRecord {
  id: number;
  eventId: string;
  table: string;
  row: string;
  receivedAt: number;
}

export const ghostRowsRepo = {
  insertMany(
    writes: WriteBatch,
    eventId: string,
    endpointId: number,
    receivedAt: number,
    rows: { table: string; row: string }[],
  ): void {
    writes.insertRows(
      'ghost_rows',
      rows.map((r) => ({
        event_id: eventId,
        endpoint_id: endpointId,
        table_name: r.table,
        row: r.row,
        received_at: receivedAt,
      })),
    );
  },

  async page(
    db: Queryable,
    filter: { endpointId: number; table?: string; since?: number; until?: number; beforeId?: number; limit: number },
  ): Promise<GhostRowRecord[]> {
    const query = db('ghost_rows')
      .where('endpoint_id', filter.endpointId)
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .select('*');
    if (filter.table !== undefined) void query.where('table_name', filter.table);
    if (filter.since !== undefined) void query.where('received_at', '>=', filter.since);
    if (filter.until !== undefined) void query.where('received_at', '<=', filter.until);
    if (filter.beforeId !== undefined) void query.where('id', '<', filter.beforeId);
    const rows = (await query) as {
      id: unknown;
      event_id: string;
      table_name: string;
      row: string;
      received_at: unknown;
    }[];
    return rows.map((r) => ({
      id: num(r.id),
      eventId: r.event_id,
      table: r.table_name,
      row: r.row,
      receivedAt: num(r.received_at),
    }));
  },
};

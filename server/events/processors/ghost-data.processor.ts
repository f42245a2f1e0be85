import { ghostRowsRepo } from '../../repositories/ghost-rows.repo';
import { iso } from '../../time';
import { normalizeGhostData, type GhostRow } from '../ghost-data';
import { parseJsonBody } from '../json-body';
import type { EventProcessor } from '../processor';
import { textFilters } from './snapshot-support';

/** GhostData: the mobile client's tables, stored row by row so GET can filter by table. */
export const ghostDataProcessor: EventProcessor<GhostRow[]> = {
  eventType: 'GhostData',
  parseBody: parseJsonBody,
  validate: (json) => normalizeGhostData(json),
  store(tx, rows, event) {
    // Inserted last row first: the snapshot lists newest (highest id) first, so a submission's
    // rows then read in the order they were sent, after the newer submissions.
    ghostRowsRepo.insertMany(
      tx,
      event.id,
      event.endpointId,
      event.receivedAt,
      rows.map((r) => ({ table: r.table, row: JSON.stringify(r.row) })).reverse(),
    );
    return Promise.resolve({
      result: { tables: new Set(rows.map((r) => r.table)).size, rows: rows.length },
      data: null,
      // One delivery item per row, in the order sent (SPEC §11).
      deliveries: () => rows.map((r) => ({ data: JSON.stringify({ table: r.table, row: r.row }) })),
    });
  },
  // The last row's id.
  isCursor: (cursor) => /^\d{1,15}$/.test(cursor),
  filterNames: ['table'],
  parseFilters: (query) => textFilters(query, ['table']),
  async snapshot(db, query) {
    const beforeId = query.cursor === undefined ? undefined : Number(query.cursor);
    const rows = await ghostRowsRepo.page(db, {
      endpointId: query.endpointId,
      table: query.filters.table === undefined ? undefined : String(query.filters.table),
      since: query.since,
      until: query.until,
      beforeId,
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map((r) => ({
        eventId: r.eventId,
        receivedAt: iso(r.receivedAt),
        table: r.table,
        row: JSON.parse(r.row) as unknown,
      })),
      nextCursor: rows.length > query.limit && last ? String(last.id) : null,
    };
  },
};

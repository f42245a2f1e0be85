import { iso } from '../../time';
import { validateAllData } from '../all-data';
import { parseJsonBody } from '../json-body';
import type { EventProcessor } from '../processor';
import { eventSnapshotPage, isEventIdCursor, parseStored } from './snapshot-support';

/** AllData: any JSON object or array, stored exactly as received. */
export const allDataProcessor: EventProcessor<unknown> = {
  eventType: 'AllData',
  parseBody: parseJsonBody,
  validate: (json) => validateAllData(json),
  store: (_tx, prepared) =>
    Promise.resolve({ result: { items: Array.isArray(prepared) ? prepared.length : 1 }, data: null }),
  isCursor: isEventIdCursor,
  filterNames: [],
  parseFilters: () => ({ ok: true, filters: {} }),
  snapshot: (db, query) =>
    eventSnapshotPage(db, query, { eventType: 'AllData', children: false, facets: [] }, (row) => ({
      id: row.id,
      route: row.route_name,
      receivedAt: iso(row.received_at),
      principal: row.principal,
      payload: parseStored(row.payload),
    })),
};

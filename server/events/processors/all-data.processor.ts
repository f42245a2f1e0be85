import { iso } from '../../time';
import { NOT_A_DOCUMENT, validateAllData } from '../all-data';
import { parseJsonBody } from '../json-body';
import { countItems } from '../large-body';
import type { LargeJson } from '../large-json';
import { fail, ok, type Validation } from '../types';
import type { EventProcessor } from '../processor';
import { eventSnapshotPage, isEventIdCursor, parseStored } from './snapshot-support';

/** What AllData keeps of a valid payload until it is stored: the count its result reports (the payload is stored as received). */
interface AllDataItems {
  items: number;
}

/**
 * A large body (issue 38.3): checked a piece at a time and counted, never built as a tree, since
 * nothing but the count is used.
 */
async function validateLargeAllData(body: LargeJson): Promise<Validation<AllDataItems>> {
  const counted = await countItems(body);
  if (!counted.ok) return fail([{ path: '', message: `The body is not valid JSON: ${counted.message}` }]);
  return counted.items === null ? fail([{ path: '', message: NOT_A_DOCUMENT }]) : ok({ items: counted.items });
}

/** AllData: any JSON object or array, stored exactly as received. */
export const allDataProcessor: EventProcessor<AllDataItems> = {
  eventType: 'AllData',
  parseBody: parseJsonBody,
  validate(json) {
    const validation = validateAllData(json);
    return validation.ok ? ok({ items: Array.isArray(json) ? json.length : 1 }) : validation;
  },
  largeBody: { concatenated: false, validate: validateLargeAllData },
  store: (_tx, prepared) => Promise.resolve({ result: { items: prepared.items }, data: null }),
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

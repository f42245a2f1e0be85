import type { EventReads, InventoryPage } from '../contract/dto';
import { EVENT_READS_MAX, INVENTORY_QUERY, filtersOf } from '../contract/schemas';
import type { Db } from '../db';
import { notFound, validationFailed } from '../errors';
import { SerializedPage } from '../events/processor';
import { uhfTagReadProcessor } from '../events/processors/uhf.processor';
import { normalizeUhfBody } from '../events/uhf';
import { EVENT_ID } from '../ids';
import { endpointsRepo } from '../repositories/endpoints.repo';
import { eventsRepo } from '../repositories/events.repo';
import { iso } from '../time';
import { storedId } from '../validation';
import { readListQuery } from './paging';

/** The GET route's own filters (SPEC §5): the admin reads the inventory with exactly these. */
const FILTERS = uhfTagReadProcessor.filterNames;

/**
 * The live tag inventory for the admin (issue 40): the snapshot a UHFTagRead GET route answers,
 * for one endpoint, with that route's filters and paging; and the tag reads of one stored event,
 * decoded by the processor that stored it.
 */
export function createInventoryService(deps: { db: Db; settings: { current(): { timeZone: string } } }) {
  const { db } = deps;
  return {
    async listInventory(input: unknown): Promise<InventoryPage> {
      const { query, limit, cursor, errors } = readListQuery(input, {
        filters: filtersOf(INVENTORY_QUERY),
        isCursor: (text) => uhfTagReadProcessor.isCursor(text),
      });
      const endpointId = storedId(query.endpoint);
      if (endpointId === null) errors.push({ path: '/endpoint', message: 'endpoint must be an endpoint’s id' });
      // Over HTTP the filters come as text, over IPC as values: the route's parser reads text.
      const given: Record<string, string> = {};
      for (const name of FILTERS) {
        const value = query[name];
        if (value === undefined || value === null || value === '') continue;
        if (typeof value === 'string' || typeof value === 'number') given[name] = String(value);
        else errors.push({ path: `/${name}`, message: `${name} must be text` });
      }
      const filters = uhfTagReadProcessor.parseFilters(given, deps.settings.current().timeZone);
      if (!filters.ok) errors.push(...filters.errors);
      if (errors.length > 0 || endpointId === null || !filters.ok) throw validationFailed(errors);
      if (!(await endpointsRepo.findById(db.knex, endpointId))) throw notFound('Endpoint');
      const page = await uhfTagReadProcessor.snapshot(db.reads, {
        endpointId,
        limit,
        ...(cursor === undefined ? {} : { cursor }),
        filters: filters.filters,
      });
      return page instanceof SerializedPage ? (JSON.parse(page.json) as InventoryPage) : (page as InventoryPage);
    },

    async getEventReads(input: unknown): Promise<EventReads> {
      const id = (input as { id?: unknown } | null)?.id;
      const row = typeof id === 'string' && EVENT_ID.test(id) ? await eventsRepo.findById(db.knex, id) : null;
      if (!row) throw notFound('Event');
      if (row.event_type !== 'UHFTagRead')
        throw validationFailed([{ path: '/id', message: `Event ${row.id} is ${row.event_type}, not UHFTagRead` }]);
      const parsed = uhfTagReadProcessor.parseBody(row.payload);
      // The context the processor had: who sent it, the reader named beside it, when it came.
      const batch = parsed.ok
        ? normalizeUhfBody(parsed.json, {
            principal: row.principal,
            defaultReaderId: row.reader_id ?? row.principal,
            receivedAt: row.received_at,
            timeZone: deps.settings.current().timeZone,
          })
        : null;
      if (!batch?.ok) return { reads: [], total: 0, readable: false };
      const reads = batch.value.reads;
      return {
        reads: reads.slice(0, EVENT_READS_MAX).map((read) => ({
          epc: read.epc,
          epcUri: read.epcUri,
          tid: read.tid,
          readerId: read.readerId,
          antenna: read.antenna,
          rssi: read.rssi,
          readAt: iso(read.readAt),
        })),
        total: reads.length,
        readable: true,
      };
    },
  };
}

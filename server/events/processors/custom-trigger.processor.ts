import { facetsRepo } from '../../repositories/facets.repo';
import { iso } from '../../time';
import { normalizeCustomTrigger, type TriggerEvent } from '../custom-trigger';
import { parseJsonBody } from '../json-body';
import type { EventProcessor } from '../processor';
import { eventSnapshotPage, isEventIdCursor, parseStored, textFilters } from './snapshot-support';

/** CustomTrigger: a named command with parameters; the trigger name is indexed for the GET filter. */
export const customTriggerProcessor: EventProcessor<TriggerEvent> = {
  eventType: 'CustomTrigger',
  parseBody: parseJsonBody,
  validate: (json, context) => normalizeCustomTrigger(json, context),
  store(tx, trigger, event) {
    facetsRepo.insertMany(tx, [
      { eventId: event.id, endpointId: event.endpointId, name: 'trigger', value: trigger.trigger, num: null },
    ]);
    return Promise.resolve({ result: { trigger: trigger.trigger }, data: JSON.stringify(trigger) });
  },
  isCursor: isEventIdCursor,
  filterNames: ['trigger'],
  parseFilters: (query) => textFilters(query, ['trigger']),
  snapshot: (db, query) =>
    eventSnapshotPage(
      db,
      query,
      {
        eventType: 'CustomTrigger',
        children: false,
        facets: query.filters.trigger === undefined ? [] : [{ name: 'trigger', value: String(query.filters.trigger) }],
      },
      (row) => ({ id: row.id, receivedAt: iso(row.received_at), ...(parseStored(row.data) as TriggerEvent) }),
    ),
};

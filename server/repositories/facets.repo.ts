import type { WriteBatch } from '../db/write-batch';

/** Searchable fields of stored events (EPCIS, CustomTrigger), for their GET snapshots' filters. */
export const facetsRepo = {
  insertMany(
    writes: WriteBatch,
    rows: { eventId: string; endpointId: number; name: string; value: string | null; num: number | null }[],
  ): void {
    writes.insertRows(
      'event_facets',
      rows.map((r) => ({
        event_id: r.eventId,
        endpoint_id: r.endpointId,
        name: r.name,
        value: r.value === null ? null : r.value.slice(0, 512),
        num: r.num,
      })),
    );
  },
};

import type { FieldError } from '../../contract/errors';
import type { WriteBatch } from '../../db/write-batch';
import { inventoryRepo } from '../../repositories/snapshots.repo';
import { iso } from '../../time';
import { parseConcatenatedJson } from '../json-body';
import type { EventProcessor, StoreItem, StoreOutcome } from '../processor';
import { applyTagReads, dedupKey, normalizeEpcFilter, normalizeTagReads, type DedupState, type TagRead } from '../uhf';
import { parseInstant } from './snapshot-support';

const encodeCursor = (lastSeen: number, epc: string): string =>
  Buffer.from(JSON.stringify([lastSeen, epc])).toString('base64url');

function decodeCursor(cursor: string | undefined): { lastSeen: number; epc: string } | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string')
      return { lastSeen: value[0], epc: value[1] };
  } catch {
    // an unreadable cursor starts from the top, like none
  }
  return undefined;
}

const emptyOutcome = (): StoreOutcome => ({ result: { reads: 0, uniqueEpcs: 0, duplicatesSuppressed: 0 }, data: null });

/**
 * Stores a run of tag-read events: per endpoint, the inventory and dedup rows of all their EPCs
 * are loaded once, the events are applied in order to that one in-memory state (each seeing the
 * ones before it, exactly as if stored one by one), and the changed rows are added to the batch
 * once. One read per endpoint, whatever the number of events, and the writes join the batch's one send.
 */
async function storeTagReads(tx: WriteBatch, items: StoreItem<TagRead[]>[]): Promise<StoreOutcome[]> {
  const outcomes: StoreOutcome[] = items.map(emptyOutcome);
  const byEndpoint = new Map<number, number[]>();
  items.forEach((item, i) => {
    const indexes = byEndpoint.get(item.event.endpointId);
    if (indexes) indexes.push(i);
    else byEndpoint.set(item.event.endpointId, [i]);
  });
  // Endpoints in a fixed order, so concurrent batches take their PostgreSQL locks in one order.
  for (const [endpointId, indexes] of [...byEndpoint].sort((a, b) => a[0] - b[0])) {
    const reads = indexes.flatMap((i) => items[i]?.prepared ?? []);
    const epcs = [...new Set(reads.map((read) => read.epc))];
    const keys = [...new Set(reads.map((read) => dedupKey(read.epc, read.readerId, read.antenna)))];
    // Reads of one EPC may arrive through several instances at once: load-modify-store under a lock.
    await inventoryRepo.lockEpcs(tx, endpointId, epcs);
    const { inventory, lastCounted } = await inventoryRepo.loadState(tx, endpointId, epcs, keys);
    const state: DedupState = { inventory: new Map(inventory.map((row) => [row.epc, row])), lastCounted };
    const changedEpcs = new Set<string>();
    const changedKeys = new Set<string>();
    for (const i of indexes) {
      const item = items[i];
      if (!item) continue;
      const applied = applyTagReads(item.prepared, state, item.context.settings.tagDedupWindowMs);
      for (const epc of applied.changedEpcs) changedEpcs.add(epc);
      for (const key of applied.changedKeys) changedKeys.add(key);
      outcomes[i] = { result: { ...applied.summary }, data: null };
    }
    const changedRows = [...changedEpcs].flatMap((epc) => {
      const entry = state.inventory.get(epc);
      return entry ? [entry] : [];
    });
    // Endpoints differ in every row, so this endpoint's writes may wait for the batch's send.
    inventoryRepo.upsert(tx, endpointId, changedRows);
    inventoryRepo.upsertDedup(
      tx,
      endpointId,
      [...changedKeys].flatMap((key) => {
        const at = state.lastCounted.get(key);
        return at === undefined ? [] : [[key, at] as [string, number]];
      }),
    );
  }
  return outcomes;
}

/**
 * UHFTagRead: reader batches → normalized reads → dedup and the live inventory. The state for
 * the batch's EPCs is loaded and written inside the group transaction, so concurrent batches
 * (sync requests and the async worker alike) apply one after another.
 */
export const uhfTagReadProcessor: EventProcessor<TagRead[]> = {
  eventType: 'UHFTagRead',
  // Zebra readers batch JSON objects back to back with no separator.
  parseBody: parseConcatenatedJson,
  validate: (json, context) => normalizeTagReads(json, context),
  store: async (tx, reads, event, context) =>
    (await storeTagReads(tx, [{ prepared: reads, event, context }]))[0] ?? emptyOutcome(),
  storeMany: storeTagReads,
  filterNames: ['epc', 'readerId', 'antenna', 'seenSince'],
  parseFilters(query) {
    const errors: FieldError[] = [];
    const filters: Record<string, string | number> = {};
    if (query.epc !== undefined) {
      const epc = normalizeEpcFilter(query.epc);
      if (!epc) errors.push({ path: '/epc', message: 'epc must be hex or an EPC URI (urn:epc:...)' });
      else Object.assign(filters, epc);
    }
    if (query.readerId !== undefined) {
      if (query.readerId === '') errors.push({ path: '/readerId', message: 'readerId must not be empty' });
      else filters.readerId = query.readerId;
    }
    if (query.antenna !== undefined) {
      if (!/^\d{1,5}$/.test(query.antenna))
        errors.push({ path: '/antenna', message: 'antenna must be a whole number' });
      else filters.antenna = Number(query.antenna);
    }
    if (query.seenSince !== undefined) {
      const at = parseInstant('seenSince', query.seenSince, errors);
      if (at !== undefined) filters.seenSince = at;
    }
    return errors.length > 0 ? { ok: false, errors } : { ok: true, filters };
  },
  async snapshot(db, query) {
    const f = query.filters;
    // since/until and seenSince all bound lastSeen on the inventory (SPEC §10).
    const lowers = [query.since, typeof f.seenSince === 'number' ? f.seenSince : undefined].filter(
      (v): v is number => v !== undefined,
    );
    const rows = await inventoryRepo.page(db, {
      endpointId: query.endpointId,
      epc: typeof f.epc === 'string' ? f.epc : undefined,
      epcUri: typeof f.epcUri === 'string' ? f.epcUri : undefined,
      readerId: typeof f.readerId === 'string' ? f.readerId : undefined,
      antenna: typeof f.antenna === 'number' ? f.antenna : undefined,
      from: lowers.length > 0 ? Math.max(...lowers) : undefined,
      to: query.until,
      after: decodeCursor(query.cursor),
      limit: query.limit + 1,
    });
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map((row) => ({
        epc: row.epc,
        epcUri: row.epcUri,
        tid: row.tid,
        readerId: row.readerId,
        antenna: row.antenna,
        rssi: row.rssi,
        firstSeen: iso(row.firstSeen),
        lastSeen: iso(row.lastSeen),
        readCount: row.readCount,
      })),
      nextCursor: rows.length > query.limit && last ? encodeCursor(last.lastSeen, last.epc) : null,
    };
  },
};

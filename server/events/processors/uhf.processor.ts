import type { FieldError } from '../../contract/errors';
import type { WriteBatch } from '../../db/write-batch';
import type { JsonField, JsonObjects } from '../../db/sqlite-json-objects';
import { dialectOf } from '../../repositories/db-types';
import {
  INVENTORY_COLUMN,
  inventoryRepo,
  type InventoryColumn,
  type InventoryRow,
} from '../../repositories/inventory.repo';
import { iso } from '../../time';
import { parseConcatenatedJson } from '../json-body';
import {
  SerializedPage,
  type DeliveryUnit,
  type EventProcessor,
  type StoreItem,
  type StoreOutcome,
} from '../processor';
import { Slices } from '../../slices';
import {
  hexProblem,
  normalizeEpcFilter,
  epcUriFilter,
  uriListsEpc,
  normalizeUhfBody,
  ReaderActivities,
  type DedupState,
  type TagRead,
  type UhfBatch,
} from '../uhf';
import { applyTagReadsInSlices } from '../uhf/inventory';
import { normalizeLargeUhfBody } from '../uhf/normalize';
import { parseInstant } from './snapshot-support';

const encodeCursor = (lastSeen: number, epc: string): string =>
  Buffer.from(JSON.stringify([lastSeen, epc])).toString('base64url');

/**
 * The keyset of the last item shown, or undefined when `cursor` is not one `encodeCursor` wrote
 * (its EPC is an EPC: the inventory compares it as bytes).
 */
function decodeCursor(cursor: string): { lastSeen: number; epc: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === 'string' &&
      hexProblem(value[1]) === null
    )
      return { lastSeen: value[0] as number, epc: value[1].toUpperCase() };
  } catch {
    // not JSON: not ours
  }
  return undefined;
}

/**
 * The snapshot's item (SPEC §10), member by member in the answer's order: SQLite writes it from
 * this list (`inventoryRepo.pageJson`), PostgreSQL's rows are mapped with it (`inventoryItem`).
 */
const INVENTORY_ITEM: readonly (JsonField<InventoryColumn> & { key: keyof InventoryRow })[] = (
  [
    ['epc', 'text'],
    ['epcUri', 'text'],
    ['tid', 'text'],
    ['readerId', 'text'],
    ['antenna', 'integer'],
    ['rssi', 'real'],
    ['firstSeen', 'instant'],
    ['lastSeen', 'instant'],
    ['readCount', 'integer'],
  ] as const
).map(([key, kind]) => ({ key, column: INVENTORY_COLUMN[key], kind }));

function inventoryItem(row: InventoryRow): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const { key, kind } of INVENTORY_ITEM) {
    const value = row[key];
    item[key] = kind === 'instant' && typeof value === 'number' ? iso(value) : value;
  }
  return item;
}

/**
 * Each page SQLite wrote becomes its answer once: a page kept on a read connection
 * (`readUnlessUnchanged`) is the same object on every request, so its body is too.
 */
const answers = new WeakMap<JsonObjects, SerializedPage>();

function serializedPage(page: JsonObjects): SerializedPage {
  let answer = answers.get(page);
  if (!answer) {
    const { json, last, more } = page;
    const nextCursor = more && last ? encodeCursor(Date.parse(String(last.lastSeen)), String(last.epc)) : null;
    answer = new SerializedPage(`{"items":${json},"nextCursor":${JSON.stringify(nextCursor)}}`);
    answers.set(page, answer);
  }
  return answer;
}

/** SPEC §11: a destination gets one item per counted read (suppressed duplicates are not sent). */
const countedReads = (reads: readonly TagRead[]): DeliveryUnit[] =>
  reads.map((read) => ({
    data: JSON.stringify({
      epc: read.epc,
      epcUri: read.epcUri,
      readerId: read.readerId,
      antenna: read.antenna,
      rssi: read.rssi,
      readAt: iso(read.readAt),
    }),
  }));

/** No tag read: nothing for a destination either (status messages go to no outbox, SPEC §16). */
const emptyOutcome = (): StoreOutcome => ({
  result: { reads: 0, uniqueEpcs: 0, duplicatesSuppressed: 0 },
  data: null,
  deliveries: () => [],
});

/**
 * Stores a run of tag-read events: per endpoint, the inventory and dedup rows of all their EPCs
 * are loaded once, the events are applied in order to that one in-memory state (each seeing the
 * ones before it, exactly as if stored one by one), and the changed rows are added to the batch
 * once. One read per endpoint, whatever the number of events, and the writes join the batch's one send.
 */
async function storeTagReads(tx: WriteBatch, items: StoreItem<UhfBatch>[]): Promise<StoreOutcome[]> {
  // Status messages and keep-alives count no read: they only tell the readers' records (SPEC §16).
  const outcomes: StoreOutcome[] = items.map(({ prepared }) => {
    const readers = new ReaderActivities();
    for (const status of prepared.statuses) readers.status(status);
    for (const readerId of prepared.heard) readers.heard(readerId);
    return { ...emptyOutcome(), readers: readers.list() };
  });
  const byEndpoint = new Map<number, number[]>();
  items.forEach((item, i) => {
    const indexes = byEndpoint.get(item.event.endpointId);
    if (indexes) indexes.push(i);
    else byEndpoint.set(item.event.endpointId, [i]);
  });
  // A large body's hundreds of thousands of reads are gone through in slices (issue 38.3).
  const slices = new Slices();
  // Endpoints in a fixed order, so concurrent batches take their PostgreSQL locks in one order.
  for (const [endpointId, indexes] of [...byEndpoint].sort((a, b) => a[0] - b[0])) {
    // One event (a large body's reads, say) needs no copy of its reads.
    const only = indexes.length === 1 ? items[indexes[0]] : undefined;
    const reads = only ? only.prepared.reads : indexes.flatMap((i) => items[i]?.prepared.reads ?? []);
    if (reads.length === 0) continue;
    const epcSet = new Set<string>();
    await slices.forEach(reads, (read) => {
      epcSet.add(read.epc);
    });
    const epcs = [...epcSet];
    // Reads of one EPC may arrive through several instances at once: load-modify-store under a lock.
    await inventoryRepo.lockEpcs(tx, endpointId, epcs);
    const { inventory, lastCounted } = await inventoryRepo.loadState(tx, endpointId, epcs);
    const state: DedupState = { inventory: new Map(inventory.map((row) => [row.epc, row])), lastCounted };
    const changedEpcs = new Set<string>();
    for (const i of indexes) {
      const item = items[i];
      if (!item) continue;
      const { reads: itemReads, statuses, heard } = item.prepared;
      if (itemReads.length === 0) continue;
      const readers = new ReaderActivities();
      const applied = await applyTagReadsInSlices(
        itemReads,
        state,
        item.context.settings.tagDedupWindowMs,
        slices,
        (read, counted) => readers.read(read, counted),
      );
      for (const status of statuses) readers.status(status);
      for (const readerId of heard) readers.heard(readerId);
      for (const epc of applied.changedEpcs) changedEpcs.add(epc);
      outcomes[i] = {
        result: { ...applied.summary },
        data: null,
        deliveries: () => countedReads(applied.counted),
        readers: readers.list(),
      };
    }
    const changedRows = [...changedEpcs].flatMap((epc) => {
      const entry = state.inventory.get(epc);
      return entry ? [entry] : [];
    });
    // Endpoints differ in every row, so this endpoint's writes may wait for the batch's send.
    // The dedup reference times are written with their EPC's row (a changed time changes it).
    inventoryRepo.upsert(tx, endpointId, changedRows, state.lastCounted, uriListsEpc);
  }
  return outcomes;
}

/**
 * UHFTagRead: reader batches → normalized reads → dedup and the live inventory. The state for
 * the batch's EPCs is loaded and written inside the group transaction, so concurrent batches
 * (sync requests and the async worker alike) apply one after another.
 */
export const uhfTagReadProcessor: EventProcessor<UhfBatch> = {
  eventType: 'UHFTagRead',
  // Zebra readers batch JSON objects back to back with no separator.
  parseBody: parseConcatenatedJson,
  validate: (json, context) => normalizeUhfBody(json, context),
  largeBody: { concatenated: true, validate: normalizeLargeUhfBody },
  store: async (tx, reads, event, context) =>
    (await storeTagReads(tx, [{ prepared: reads, event, context }]))[0] ?? emptyOutcome(),
  storeMany: storeTagReads,
  isCursor: (cursor) => decodeCursor(cursor) !== undefined,
  filterNames: ['epc', 'readerId', 'antenna', 'seenSince'],
  parseFilters(query, timeZone) {
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
      const at = parseInstant('seenSince', query.seenSince, errors, timeZone);
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
    const filter = {
      endpointId: query.endpointId,
      epc: typeof f.epc === 'string' ? f.epc : undefined,
      epcUri: typeof f.epcUri === 'string' ? epcUriFilter(f.epcUri) : undefined,
      readerId: typeof f.readerId === 'string' ? f.readerId : undefined,
      antenna: typeof f.antenna === 'number' ? f.antenna : undefined,
      from: lowers.length > 0 ? Math.max(...lowers) : undefined,
      to: query.until,
      after: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
      // One more than shown tells whether a next page exists.
      limit: query.limit + 1,
    };
    if (dialectOf(db) === 'sqlite') {
      // SQLite writes the items' JSON itself: no row objects on the main thread (see `jsonObjectsSql`).
      return serializedPage(await inventoryRepo.pageJson(db, filter, INVENTORY_ITEM, query.limit));
    }
    const rows = await inventoryRepo.page(db, filter);
    const page = rows.slice(0, query.limit);
    const last = page[page.length - 1];
    return {
      items: page.map(inventoryItem),
      nextCursor: rows.length > query.limit && last ? encodeCursor(last.lastSeen, last.epc) : null,
    };
  },
};

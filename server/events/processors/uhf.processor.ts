import type { FieldError } from '../../contract/errors';
import { inventoryRepo } from '../../repositories/snapshots.repo';
import { iso } from '../../time';
import { parseConcatenatedJson } from '../json-body';
import type { EventProcessor } from '../processor';
import { applyTagReads, dedupKey, normalizeEpcFilter, normalizeTagReads, type DedupState, type TagRead } from '../uhf';
import { parseInstant } from './snapshot-support';

const encodeCursor = (lastSeen: number, epc: string): string => Buffer.from(JSON.stringify([lastSeen, epc])).toString('base64url');

function decodeCursor(cursor: string | undefined): { lastSeen: number; epc: string } | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && typeof value[0] === 'number' && typeof value[1] === 'string') return { lastSeen: value[0], epc: value[1] };
  } catch {
    // an unreadable cursor starts from the top, like none
  }
  return undefined;
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
  async store(trx, reads, event, context) {
    const epcs = [...new Set(reads.map((read) => read.epc))];
    const keys = [...new Set(reads.map((read) => dedupKey(read.epc, read.readerId, read.antenna)))];
    // Reads of one EPC may arrive through several instances at once: load-modify-store under a lock.
    await inventoryRepo.lockEpcs(trx, event.endpointId, epcs);
    const state: DedupState = {
      inventory: new Map((await inventoryRepo.load(trx, event.endpointId, epcs)).map((row) => [row.epc, row])),
      lastCounted: await inventoryRepo.loadDedup(trx, event.endpointId, keys),
    };
    const applied = applyTagReads(reads, state, context.settings.tagDedupWindowMs);
    const changedRows = [...applied.changedEpcs].flatMap((epc) => {
      const entry = state.inventory.get(epc);
      return entry ? [entry] : [];
    });
    await inventoryRepo.upsert(trx, event.endpointId, changedRows);
    await inventoryRepo.upsertDedup(
      trx,
      event.endpointId,
      [...applied.changedKeys].flatMap((key) => {
        const at = state.lastCounted.get(key);
        return at === undefined ? [] : [[key, at] as [string, number]];
      }),
    );
    return { result: { ...applied.summary }, data: null };
  },
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
      if (!/^\d{1,5}$/.test(query.antenna)) errors.push({ path: '/antenna', message: 'antenna must be a whole number' });
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
    const lowers = [query.since, typeof f.seenSince === 'number' ? f.seenSince : undefined].filter((v): v is number => v !== undefined);
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

import { dedupKey, type InventoryRow } from '../../repositories/inventory.repo';
import type { Slices } from '../../slices';
import type { TagRead } from './tag-read';

/** What dedup needs from storage. The caller loads it, `applyTagReads` mutates it. */
export interface DedupState {
  /** Key `dedupKey(epc, readerId, antenna)` → read time (ms) of the latest COUNTED read. */
  lastCounted: Map<string, number>;
  /** The live inventory's rows (per endpoint: the caller keeps one state per endpoint), by EPC. */
  inventory: Map<string, InventoryRow>;
}

export interface ApplySummary {
  /** Tag records in the batch (heartbeats and non-inventory events were already dropped). */
  reads: number;
  /** Distinct EPCs in the batch. */
  uniqueEpcs: number;
  /** Reads of the batch that fell inside the window, against the batch or earlier state. */
  duplicatesSuppressed: number;
}

export interface ApplyResult {
  summary: ApplySummary;
  /** EPCs whose inventory entry was created or changed: the rows to write. */
  changedEpcs: Set<string>;
  /** Dedup keys whose `lastCounted` was created or changed. */
  changedKeys: Set<string>;
  /** The reads that counted (were not suppressed), in body order. */
  counted: TagRead[];
  /** The batch's distinct EPCs (`summary.uniqueEpcs` counts them). */
  epcs: Set<string>;
}

/** Told of each read as it is applied, and whether it counted. */
export type ReadObserver = (read: TagRead, counted: boolean) => void;

/** A result with nothing applied yet, for `applyTagReads` to add to. */
export const emptyApplyResult = (): ApplyResult => ({
  summary: { reads: 0, uniqueEpcs: 0, duplicatesSuppressed: 0 },
  changedEpcs: new Set(),
  changedKeys: new Set(),
  counted: [],
  epcs: new Set(),
});

/** The dedup key of a reader antenna seeing an EPC: stored with the inventory (`inventoryRepo`). */
export { dedupKey };

/**
 * Applies a batch of reads, in body order, to the dedup state and inventory (SPEC §10):
 * - a read is suppressed when |readAt − lastCounted| < windowMs for its EPC + reader + antenna
 *   (either side, so a late read just before a counted one is a duplicate too; windowMs 0
 *   never suppresses); otherwise it counts, and the reference becomes the latest counted read
 *   time, max(lastCounted, readAt), so a late counted read never moves the window back;
 * - readCount counts counted reads; firstSeen/lastSeen are the min/max read times of all reads;
 * - readerId/antenna/rssi follow the read with the latest read time, counted or suppressed
 *   (on a tie the later-processed read wins); tid follows any read that carries one.
 *
 * With `into`, the reads are added to a result begun by earlier calls (a batch applied in parts
 * is the batch applied at once: `applyTagReadsInSlices`).
 */
export function applyTagReads(
  reads: readonly TagRead[],
  state: DedupState,
  windowMs: number,
  into: ApplyResult = emptyApplyResult(),
  /** Told of each read and whether it counted (the readers' records, SPEC §16). */
  observe?: ReadObserver,
): ApplyResult {
  const { changedEpcs, changedKeys, counted, epcs, summary } = into;
  for (const read of reads) {
    epcs.add(read.epc);
    const key = dedupKey(read.epc, read.readerId, read.antenna);
    const reference = state.lastCounted.get(key);
    const suppressed = reference !== undefined && Math.abs(read.readAt - reference) < windowMs;
    if (suppressed) {
      summary.duplicatesSuppressed++;
    } else {
      counted.push(read);
      if (reference === undefined || read.readAt > reference) {
        state.lastCounted.set(key, read.readAt);
        changedKeys.add(key);
      }
    }
    if (updateInventory(state.inventory, read, !suppressed)) changedEpcs.add(read.epc);
    observe?.(read, !suppressed);
  }
  summary.reads += reads.length;
  summary.uniqueEpcs = epcs.size;
  return into;
}

/** Reads applied per slice by `applyTagReadsInSlices`. */
const READS_PER_SLICE = 4096;

/** `applyTagReads` in slices that yield to the event loop between them (a large body's reads, issue 38.3). */
export async function applyTagReadsInSlices(
  reads: readonly TagRead[],
  state: DedupState,
  windowMs: number,
  slices: Slices,
  observe?: ReadObserver,
): Promise<ApplyResult> {
  if (reads.length <= READS_PER_SLICE) return applyTagReads(reads, state, windowMs, emptyApplyResult(), observe);
  const result = emptyApplyResult();
  for (let from = 0; from < reads.length; from += READS_PER_SLICE) {
    if (slices.spent) await slices.yieldTurn();
    applyTagReads(reads.slice(from, from + READS_PER_SLICE), state, windowMs, result, observe);
  }
  return result;
}

/** Folds one read into its EPC's entry; true when the entry was created or changed. */
function updateInventory(inventory: Map<string, InventoryRow>, read: TagRead, counted: boolean): boolean {
  const entry = inventory.get(read.epc);
  if (entry === undefined) {
    inventory.set(read.epc, {
      epc: read.epc,
      epcUri: read.epcUri,
      tid: read.tid,
      readerId: read.readerId,
      antenna: read.antenna,
      rssi: read.rssi,
      firstSeen: read.readAt,
      lastSeen: read.readAt,
      // 0 only when storage had a dedup reference for this EPC but no inventory row.
      readCount: counted ? 1 : 0,
    });
    return true;
  }

  let changed = false;
  if (counted) {
    entry.readCount++;
    changed = true;
  }
  if (read.readAt < entry.firstSeen && assign(entry, 'firstSeen', read.readAt)) changed = true;
  // `>=`: on equal read times the later-processed read is the latest one.
  if (read.readAt >= entry.lastSeen) {
    if (assign(entry, 'lastSeen', read.readAt)) changed = true;
    if (assign(entry, 'readerId', read.readerId)) changed = true;
    if (assign(entry, 'antenna', read.antenna)) changed = true;
    if (assign(entry, 'rssi', read.rssi)) changed = true;
  }
  if (read.tid !== null && assign(entry, 'tid', read.tid)) changed = true;
  // The URI is derived from the EPC; refreshing it repairs rows written by an older decoder.
  if (assign(entry, 'epcUri', read.epcUri)) changed = true;
  return changed;
}

function assign<K extends keyof InventoryRow>(entry: InventoryRow, key: K, value: InventoryRow[K]): boolean {
  if (entry[key] === value) return false;
  entry[key] = value;
  return true;
}

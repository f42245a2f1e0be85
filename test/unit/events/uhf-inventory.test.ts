import { describe, it, expect } from 'vitest';
import { applyTagReads, dedupKey, decodeEpc } from '../../../server/events/uhf';
import type { DedupState, TagRead } from '../../../server/events/uhf';
import type { InventoryRow } from '../../../server/repositories/inventory.repo';

const EPC_A = '3074257BF7194E4000001A85';
const EPC_B = '3174257BF4499602D2000000';
const T0 = Date.UTC(2026, 2, 2, 8, 0, 0);
const WINDOW = 1000;

/** A read of EPC_A by reader r1 antenna 1 at T0 + `offset` ms, with overrides. */
function read(offset: number, overrides: Partial<TagRead> = {}): TagRead {
  const epc = overrides.epc ?? EPC_A;
  return {
    epc,
    epcUri: decodeEpc(epc),
    tid: null,
    readerId: 'r1',
    antenna: 1,
    rssi: -60,
    readAt: T0 + offset,
    ...overrides,
  };
}

const emptyState = (): DedupState => ({ lastCounted: new Map(), inventory: new Map() });

function entry(state: DedupState, epc = EPC_A): InventoryRow {
  const found = state.inventory.get(epc);
  if (!found) throw new Error(`no inventory entry for ${epc}`);
  return found;
}

/** Applies the reads one batch at a time and returns the summary of the last batch. */
function apply(state: DedupState, ...reads: TagRead[]) {
  return applyTagReads(reads, state, WINDOW);
}

describe('applyTagReads: dedup window', () => {
  it('counts a first read and creates the inventory entry', () => {
    const state = emptyState();
    const result = apply(state, read(0, { tid: 'E280', rssi: -55 }));
    expect(result.summary).toEqual({ reads: 1, uniqueEpcs: 1, duplicatesSuppressed: 0 });
    expect(entry(state)).toEqual<InventoryRow>({
      epc: EPC_A,
      epcUri: 'urn:epc:id:sgtin:0614141.812345.6789',
      tid: 'E280',
      readerId: 'r1',
      antenna: 1,
      rssi: -55,
      firstSeen: T0,
      lastSeen: T0,
      readCount: 1,
    });
    expect(state.lastCounted.get(dedupKey(EPC_A, 'r1', 1))).toBe(T0);
  });

  it('suppresses a read less than the window after the last counted one', () => {
    const state = emptyState();
    expect(apply(state, read(0), read(999)).summary.duplicatesSuppressed).toBe(1);
    expect(entry(state).readCount).toBe(1);
  });

  it('suppresses a read less than the window BEFORE the last counted one (either side)', () => {
    const state = emptyState();
    expect(apply(state, read(5000), read(4001)).summary.duplicatesSuppressed).toBe(1);
  });

  it('counts a read exactly one window away, on either side', () => {
    const state = emptyState();
    const result = apply(state, read(5000), read(6000), read(4000));
    expect(result.summary.duplicatesSuppressed).toBe(0);
    expect(entry(state).readCount).toBe(3);
  });

  it('never suppresses with window 0, even at the same read time', () => {
    const state = emptyState();
    const result = applyTagReads([read(0), read(0), read(1)], state, 0);
    expect(result.summary.duplicatesSuppressed).toBe(0);
    expect(entry(state).readCount).toBe(3);
  });

  it('keeps the latest counted read time as reference when a late read is counted', () => {
    const state = emptyState();
    // 0 and 1500 count; 200 is late but 1300 ms from the reference 1500, so it counts too,
    // and the reference stays 1500: 2000 is then a duplicate (it would count against 200).
    const result = apply(state, read(0), read(1500), read(200), read(2000));
    expect(result.summary.duplicatesSuppressed).toBe(1);
    expect(entry(state).readCount).toBe(3);
    expect(state.lastCounted.get(dedupKey(EPC_A, 'r1', 1))).toBe(T0 + 1500);
  });

  it('does not move the reference on a suppressed read', () => {
    const state = emptyState();
    // 900 is suppressed; if it became the reference, 1800 would be suppressed too.
    const result = apply(state, read(0), read(900), read(1800));
    expect(result.summary.duplicatesSuppressed).toBe(1);
    expect(state.lastCounted.get(dedupKey(EPC_A, 'r1', 1))).toBe(T0 + 1800);
  });

  it('dedups per reader and antenna, while the inventory counts per EPC', () => {
    const state = emptyState();
    const result = apply(
      state,
      read(0),
      read(10, { antenna: 2 }),
      read(20, { readerId: 'r2' }),
      read(30, { antenna: null }),
    );
    expect(result.summary.duplicatesSuppressed).toBe(0);
    expect(state.lastCounted.size).toBe(4);
    expect(entry(state).readCount).toBe(4);
  });

  it('suppresses against state left by an earlier request', () => {
    const state = emptyState();
    apply(state, read(0));
    const second = apply(state, read(400), read(1400));
    expect(second.summary).toEqual({ reads: 2, uniqueEpcs: 1, duplicatesSuppressed: 1 });
    expect(entry(state).readCount).toBe(2);
  });

  it('processes reads in body order, not sorted by time', () => {
    const state = emptyState();
    // In body order 1500 counts first, so 1000 (500 before it) is the duplicate; sorted by time
    // it would be the other way round, with the same count but a different reference.
    apply(state, read(1500), read(1000));
    expect(state.lastCounted.get(dedupKey(EPC_A, 'r1', 1))).toBe(T0 + 1500);
  });
});

describe('applyTagReads: inventory entry', () => {
  it('counts only counted reads in readCount', () => {
    const state = emptyState();
    apply(state, read(0), read(100), read(200), read(1000), read(1100));
    expect(entry(state).readCount).toBe(2);
  });

  it('moves firstSeen back for a late, earlier read, but never lastSeen', () => {
    const state = emptyState();
    apply(state, read(5000));
    apply(state, read(1000, { readerId: 'r9', antenna: 4, rssi: -80 }));
    expect(entry(state)).toMatchObject({ firstSeen: T0 + 1000, lastSeen: T0 + 5000 });
    // The late read is not the latest one, so reader, antenna and RSSI stay.
    expect(entry(state)).toMatchObject({ readerId: 'r1', antenna: 1, rssi: -60 });
  });

  it('takes lastSeen, reader, antenna and RSSI from the latest read even when it is suppressed', () => {
    const state = emptyState();
    const result = apply(state, read(0), read(300, { rssi: -42 }));
    expect(result.summary.duplicatesSuppressed).toBe(1);
    expect(entry(state)).toMatchObject({ lastSeen: T0 + 300, rssi: -42, readCount: 1 });
  });

  it('moves the entry to another reader and antenna that saw the tag last', () => {
    const state = emptyState();
    apply(state, read(0), read(50, { readerId: 'dock-2', antenna: 3, rssi: -70 }));
    expect(entry(state)).toMatchObject({ readerId: 'dock-2', antenna: 3, rssi: -70, lastSeen: T0 + 50, readCount: 2 });
  });

  it('lets the later-processed read win a tie on read time', () => {
    const state = emptyState();
    apply(state, read(0, { readerId: 'first', rssi: -50 }), read(0, { readerId: 'second', rssi: -65 }));
    expect(entry(state)).toMatchObject({ readerId: 'second', rssi: -65 });
  });

  it('updates tid whenever a read carries one, whatever its time, and never clears it', () => {
    const state = emptyState();
    apply(state, read(5000), read(1000, { tid: 'E2801170' }), read(6000));
    expect(entry(state).tid).toBe('E2801170');
  });
});

describe('applyTagReads: summary and change sets', () => {
  it('counts reads and distinct EPCs of the batch only', () => {
    const state = emptyState();
    apply(state, read(0, { epc: EPC_B }));
    const result = apply(state, read(0), read(5000), read(0, { epc: EPC_B, antenna: 2 }));
    expect(result.summary).toEqual({ reads: 3, uniqueEpcs: 2, duplicatesSuppressed: 0 });
  });

  it('answers zeros for an empty batch and changes nothing', () => {
    const result = applyTagReads([], emptyState(), WINDOW);
    expect(result.summary).toEqual({ reads: 0, uniqueEpcs: 0, duplicatesSuppressed: 0 });
    expect(result.changedEpcs.size + result.changedKeys.size).toBe(0);
  });

  it('reports the changed EPCs and keys, and mutates the given maps in place', () => {
    const state = emptyState();
    const { lastCounted, inventory } = state;
    const result = apply(state, read(0), read(0, { epc: EPC_B, readerId: 'r2' }));
    expect(state.lastCounted).toBe(lastCounted);
    expect(state.inventory).toBe(inventory);
    expect(result.changedEpcs).toEqual(new Set([EPC_A, EPC_B]));
    expect(result.changedKeys).toEqual(new Set([dedupKey(EPC_A, 'r1', 1), dedupKey(EPC_B, 'r2', 1)]));
  });

  it('leaves out entries and keys that did not change', () => {
    const state = emptyState();
    apply(state, read(0), read(5000, { epc: EPC_B }));
    // A suppressed read between firstSeen and lastSeen with nothing new changes nothing;
    // a late counted read changes the entry (readCount) but not the reference.
    apply(state, read(-10_000, { epc: EPC_B }));
    const result = apply(state, read(4600, { epc: EPC_B }), read(-5000));
    expect(result.changedEpcs).toEqual(new Set([EPC_A]));
    expect(result.changedKeys).toEqual(new Set());
  });
});

describe('dedupKey', () => {
  it('keeps antenna null apart from antenna 0, and reader ids with separators apart', () => {
    expect(dedupKey(EPC_A, 'r1', null)).not.toBe(dedupKey(EPC_A, 'r1', 0));
    expect(dedupKey(EPC_A, 'a|1', 2)).not.toBe(dedupKey(EPC_A, 'a', 12));
    expect(dedupKey(EPC_A, 'r1', 1)).toBe(dedupKey(EPC_A, 'r1', 1));
  });
});

import type { WriteBatch } from '../../db/write-batch';
import type { EventMeta, StoreOutcome } from '../../events/processor';
import { NO_ANTENNA, type ReaderHealth } from '../../events/uhf';
import {
  readerWrites,
  type AlarmRow,
  type AntennaDelta,
  type MinuteDelta,
  type ReaderDelta,
} from '../../repositories/readers.repo';

/** SPEC §16: readers beyond this many are processed as usual but not tracked. */
export const MAX_READERS = 10_000;
/** Untracked reader ids remembered for `/status` (a flood of made-up ids must not grow memory for ever). */
const MAX_UNTRACKED_REMEMBERED = 100_000;
/** At the bound, how often the known readers are read again (another instance may have deleted some). */
const REFRESH_AT_BOUND_MS = 10_000;

/** One reader's part of a batch, as it is being folded. */
interface Fold {
  delta: ReaderDelta;
  health: ReaderHealth | null;
  antennas: Map<number, AntennaDelta>;
  minutes: Map<string, MinuteDelta>;
  routes: Set<string>;
  alarms: AlarmRow[];
}

/**
 * The readers' records (SPEC §16), kept from the traffic inside the group transaction that stores
 * the events' outcomes: every event of a flush says what it heard from which reader
 * (`StoreOutcome.readers`), and this folds them into one change per reader and a handful of
 * set-based upserts for the whole flush (readers, antennas, per-minute counts, alarms, routes),
 * never one write per read. The upserts add, so instances sharing PostgreSQL keep one record.
 *
 * The 10,000-reader bound needs to know which readers exist: the ids are read once (inside the
 * first flush) and kept here, growing as readers are admitted. A reader deleted meanwhile is only
 * re-created when heard again, which is what a delete means; at the bound the ids are read again
 * (at most every 10 s) before a newcomer is turned away.
 */
export class ReaderTracking {
  private known: Set<string> | null = null;
  private refreshedAt = 0;
  private readonly untracked = new Set<string>();
  /** `readerId \0 route` pairs written already: a route is added to a reader once per process. */
  private readonly routesWritten = new Set<string>();

  constructor(private readonly now: () => number) {}

  /** Readers heard but not tracked (over the bound) since this process started. */
  get untrackedCount(): number {
    return this.untracked.size;
  }

  /** Adds the readers' changes of a flush's processed events to `writes`. */
  async add(writes: WriteBatch, events: readonly { meta: EventMeta; outcome: StoreOutcome }[]): Promise<void> {
    const folds = new Map<string, Fold>();
    for (const { meta, outcome } of events) {
      for (const activity of outcome.readers ?? []) fold(folds, meta, activity);
    }
    if (folds.size === 0) return;
    const admitted = await this.admit(writes, [...folds.keys()]);
    const readers: ReaderDelta[] = [];
    const antennas: AntennaDelta[] = [];
    const minutes: MinuteDelta[] = [];
    const alarms: AlarmRow[] = [];
    const routes: { readerId: string; routeName: string }[] = [];
    for (const [readerId, f] of folds) {
      if (!admitted.has(readerId)) continue;
      readers.push({ ...f.delta, health: f.health ? JSON.stringify(f.health) : null });
      for (const antenna of f.antennas.values()) if (antenna.antenna !== NO_ANTENNA) antennas.push(antenna);
      minutes.push(...f.minutes.values());
      for (const routeName of f.routes) {
        const key = `${readerId}\u0000${routeName}`;
        if (this.routesWritten.has(key)) continue;
        this.routesWritten.add(key);
        routes.push({ readerId, routeName });
      }
      alarms.push(...f.alarms);
    }
    readerWrites.upsertReaders(writes, readers);
    readerWrites.upsertAntennas(writes, antennas);
    readerWrites.addMinutes(writes, minutes);
    readerWrites.addAlarms(writes, alarms);
    readerWrites.addRoutes(writes, routes);
  }

  /** The batch's readers that are (or may now become) tracked. */
  private async admit(writes: WriteBatch, ids: string[]): Promise<Set<string>> {
    if (this.known === null) await this.load(writes);
    let known = this.known as Set<string>;
    let fresh = ids.filter((id) => !known.has(id));
    if (fresh.length === 0) return new Set(ids);
    if (known.size + fresh.length > MAX_READERS && this.now() - this.refreshedAt >= REFRESH_AT_BOUND_MS) {
      await this.load(writes);
      known = this.known as Set<string>;
      fresh = ids.filter((id) => !known.has(id));
    }
    for (const id of fresh) {
      if (known.size < MAX_READERS) {
        known.add(id);
        this.untracked.delete(id);
      } else if (this.untracked.size < MAX_UNTRACKED_REMEMBERED) this.untracked.add(id);
    }
    return new Set(ids.filter((id) => known.has(id)));
  }

  private async load(writes: WriteBatch): Promise<void> {
    const rows = await writes.read<{ reader_id: string }>(writes.sql('readers').select('reader_id'));
    this.known = new Set(rows.map((row) => row.reader_id));
    this.refreshedAt = this.now();
  }
}

/** Folds one event's activity for one reader into that reader's change. */
function fold(folds: Map<string, Fold>, meta: EventMeta, activity: NonNullable<StoreOutcome['readers']>[number]): void {
  const at = meta.receivedAt;
  const { readerId } = activity;
  let f = folds.get(readerId);
  if (!f) {
    f = {
      delta: {
        readerId,
        transport: meta.transport,
        sourceIp: meta.sourceIp,
        firstSeenAt: at,
        lastSeenAt: at,
        lastReadAt: null,
        lastStatusAt: null,
        reads: 0,
        duplicatesSuppressed: 0,
        health: null,
        lastStatus: null,
      },
      health: null,
      antennas: new Map(),
      minutes: new Map(),
      routes: new Set(),
      alarms: [],
    };
    folds.set(readerId, f);
  }
  const d = f.delta;
  if (at >= d.lastSeenAt) {
    d.lastSeenAt = at;
    d.transport = meta.transport;
    d.sourceIp = meta.sourceIp;
  }
  d.firstSeenAt = Math.min(d.firstSeenAt, at);
  d.reads += activity.counted;
  d.duplicatesSuppressed += activity.suppressed;
  if (activity.counted + activity.suppressed > 0) d.lastReadAt = Math.max(d.lastReadAt ?? at, at);
  if (activity.lastStatus !== undefined && at >= (d.lastStatusAt ?? at)) {
    d.lastStatusAt = at;
    d.lastStatus = JSON.stringify(activity.lastStatus);
  }
  if (activity.health) f.health = { ...f.health, ...activity.health };
  f.routes.add(meta.routeName);
  const minute = Math.floor(at / 60_000);
  for (const [antenna, a] of activity.antennas) {
    let entry = f.antennas.get(antenna);
    if (!entry) {
      entry = { readerId, antenna, connected: null, reads: 0, lastReadAt: null, lastRssi: null };
      f.antennas.set(antenna, entry);
    }
    entry.reads += a.counted;
    if (a.connected !== null) entry.connected = a.connected;
    if (a.read && at >= (entry.lastReadAt ?? at)) {
      entry.lastReadAt = at;
      if (a.lastRssi !== null) entry.lastRssi = a.lastRssi;
    }
    if (a.counted > 0) {
      const key = `${minute}:${antenna}`;
      const m = f.minutes.get(key);
      if (m) m.reads += a.counted;
      else f.minutes.set(key, { readerId, minute, antenna, reads: a.counted });
    }
  }
  for (const alarm of activity.alarms) {
    f.alarms.push({
      readerId,
      code: alarm.code,
      message: alarm.message,
      at: alarm.at,
      eventsPurged: alarm.eventsPurged ?? null,
    });
  }
}

import type { ReaderAlarm, ReaderHealth, ReaderStatus } from './reader-status';
import type { TagRead } from './tag-read';

/** Reads that named no antenna are counted under this key (never shown as an antenna). */
export const NO_ANTENNA = -1;

/** One antenna of one reader, within one event. */
export interface AntennaActivity {
  /** Counted reads (suppressed duplicates not). */
  counted: number;
  /** Whether any read (counted or suppressed) came from it. */
  read: boolean;
  /** RSSI of its last read in the body (dBm). */
  lastRssi: number | null;
  /** What the last status message said about it; null: nothing. */
  connected: boolean | null;
}

/** What one event says about one reader (SPEC §16). */
export interface ReaderActivity {
  readerId: string;
  counted: number;
  suppressed: number;
  /** Antenna → its activity; `NO_ANTENNA` holds the reads that named none. */
  antennas: Map<number, AntennaActivity>;
  /** Health members set by the event's status messages, merged in body order. */
  health: ReaderHealth | null;
  alarms: ReaderAlarm[];
  /** The last status message; undefined when the event carried none. */
  lastStatus: object | undefined;
}

/**
 * Folds one event's reads and status messages into one entry per reader: the reader records are
 * written once per batch and reader from these, never once per read.
 */
export class ReaderActivities {
  private readonly byReader = new Map<string, ReaderActivity>();

  private of(readerId: string): ReaderActivity {
    let activity = this.byReader.get(readerId);
    if (!activity) {
      activity = {
        readerId,
        counted: 0,
        suppressed: 0,
        antennas: new Map(),
        health: null,
        alarms: [],
        lastStatus: undefined,
      };
      this.byReader.set(readerId, activity);
    }
    return activity;
  }

  private antenna(activity: ReaderActivity, antenna: number): AntennaActivity {
    let entry = activity.antennas.get(antenna);
    if (!entry) {
      entry = { counted: 0, read: false, lastRssi: null, connected: null };
      activity.antennas.set(antenna, entry);
    }
    return entry;
  }

  /** A tag read, counted or suppressed by the dedup window. */
  read(read: TagRead, counted: boolean): void {
    const activity = this.of(read.readerId);
    const entry = this.antenna(activity, read.antenna ?? NO_ANTENNA);
    entry.read = true;
    if (read.rssi !== null) entry.lastRssi = read.rssi;
    if (counted) {
      activity.counted++;
      entry.counted++;
    } else activity.suppressed++;
  }

  status(status: ReaderStatus): void {
    const activity = this.of(status.readerId);
    if (status.health) activity.health = { ...activity.health, ...status.health };
    for (const [antenna, connected] of status.antennas) this.antenna(activity, antenna).connected = connected;
    if (status.alarm) activity.alarms.push(status.alarm);
    activity.lastStatus = status.raw;
  }

  /** Heard without a read or a status message (a keep-alive `[]`, a heartbeat flag). */
  heard(readerId: string): void {
    this.of(readerId);
  }

  list(): ReaderActivity[] {
    return [...this.byReader.values()];
  }
}

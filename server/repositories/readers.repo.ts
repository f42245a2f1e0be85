import type { Knex } from 'knex';
import type { WriteBatch } from '../db/write-batch';
import type { Transport } from '../contract/dto';
import { bool, num, numOrNull, type Queryable } from './db-types';

/**
 * The readers' records (SPEC §16). Writes come from the group transaction, once per batch and
 * reader, as upserts that add (`reads_total = reads_total + excluded.reads_total`): several
 * instances on one PostgreSQL database keep one record whose counts add up. Reads serve the admin
 * resource, `/status` and `/_metrics`.
 */

/** A reader's record as one batch adds to it. */
export interface ReaderDelta {
  readerId: string;
  transport: Transport;
  sourceIp: string;
  /** Receive times (ms): first and last event of the batch that named it. */
  firstSeenAt: number;
  lastSeenAt: number;
  lastReadAt: number | null;
  lastStatusAt: number | null;
  reads: number;
  duplicatesSuppressed: number;
  /** Health members to set (JSON object text), or null. */
  health: string | null;
  /** The last status message (JSON text), or null. */
  lastStatus: string | null;
}

export interface AntennaDelta {
  readerId: string;
  antenna: number;
  connected: boolean | null;
  reads: number;
  lastReadAt: number | null;
  lastRssi: number | null;
}

export interface MinuteDelta {
  readerId: string;
  /** Minutes since the epoch (receive time). */
  minute: number;
  /** -1: reads that named no antenna. */
  antenna: number;
  reads: number;
}

export interface AlarmRow {
  readerId: string;
  code: string;
  message: string;
  at: number;
  eventsPurged: number | null;
}

/** A reader as stored, without its antennas, alarms and routes. */
export interface ReaderRecord {
  readerId: string;
  name: string | null;
  silentAfterSeconds: number | null;
  transport: Transport;
  lastSourceIp: string;
  firstSeenAt: number;
  lastSeenAt: number;
  lastReadAt: number | null;
  lastStatusAt: number | null;
  readsTotal: number;
  duplicatesSuppressedTotal: number;
  health: string | null;
  lastStatus: string | null;
}

export interface AntennaRecord {
  readerId: string;
  antenna: number;
  connected: boolean | null;
  readsTotal: number;
  lastReadAt: number | null;
  lastRssi: number | null;
}

/** Rows per upsert statement: far below PostgreSQL's bound-parameter limit. */
const CHUNK = 400;

/** The later of two nullable instants (SQLite's `max` answers NULL if either is; PostgreSQL's GREATEST skips NULLs). */
const later = (sqlite: boolean, a: string, b: string): string =>
  sqlite ? `max(coalesce(${a}, ${b}), coalesce(${b}, ${a}))` : `GREATEST(${a}, ${b})`;
const earlier = (sqlite: boolean, a: string, b: string): string =>
  sqlite ? `min(coalesce(${a}, ${b}), coalesce(${b}, ${a}))` : `LEAST(${a}, ${b})`;

/** `INSERT … VALUES (?,…),… ON CONFLICT (…) DO UPDATE SET …`, bound (the batch inlines it into its script). */
function upsert(
  writes: WriteBatch,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  conflict: readonly string[],
  set: string,
): void {
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const tuple = `(${columns.map(() => '?').join(',')})`;
    const sql =
      `INSERT INTO ${table} (${columns.join(',')}) VALUES ${chunk.map(() => tuple).join(',')} ` +
      `ON CONFLICT (${conflict.join(',')}) DO UPDATE SET ${set}`;
    writes.add(writes.sql.raw(sql, chunk.flat() as Knex.RawBinding[]));
  }
}

type StoredReader = Record<string, unknown>;

const toReader = (row: StoredReader): ReaderRecord => ({
  readerId: row.reader_id as string,
  name: (row.name as string | null) ?? null,
  silentAfterSeconds: numOrNull(row.silent_after_seconds),
  transport: row.transport as Transport,
  lastSourceIp: row.last_source_ip as string,
  firstSeenAt: num(row.first_seen_at),
  lastSeenAt: num(row.last_seen_at),
  lastReadAt: numOrNull(row.last_read_at),
  lastStatusAt: numOrNull(row.last_status_at),
  readsTotal: num(row.reads_total),
  duplicatesSuppressedTotal: num(row.duplicates_suppressed_total),
  health: (row.health as string | null) ?? null,
  lastStatus: (row.last_status as string | null) ?? null,
});

const toAntenna = (row: StoredReader): AntennaRecord => ({
  readerId: row.reader_id as string,
  antenna: num(row.antenna),
  connected: row.connected === null || row.connected === undefined ? null : bool(row.connected),
  readsTotal: num(row.reads_total),
  lastReadAt: numOrNull(row.last_read_at),
  lastRssi: numOrNull(row.last_rssi),
});

/** `where reader_id in (…)`, or every reader when `ids` is undefined. */
const forReaders = (query: Knex.QueryBuilder, ids: readonly string[] | undefined): Knex.QueryBuilder =>
  ids === undefined ? query : query.whereIn('reader_id', [...ids]);

export const readerWrites = {
  /** The readers' records: counters added, instants widened, health members merged, the rest follow the latest. */
  upsertReaders(writes: WriteBatch, rows: readonly ReaderDelta[]): void {
    if (rows.length === 0) return;
    const sqlite = writes.dialect === 'sqlite';
    const merge = sqlite
      ? 'json_patch(readers.health, excluded.health)'
      : '(readers.health::jsonb || excluded.health::jsonb)::text';
    const newer = 'excluded.last_seen_at >= readers.last_seen_at';
    const set = [
      `transport = CASE WHEN ${newer} THEN excluded.transport ELSE readers.transport END`,
      `last_source_ip = CASE WHEN ${newer} THEN excluded.last_source_ip ELSE readers.last_source_ip END`,
      `first_seen_at = ${earlier(sqlite, 'readers.first_seen_at', 'excluded.first_seen_at')}`,
      `last_seen_at = ${later(sqlite, 'readers.last_seen_at', 'excluded.last_seen_at')}`,
      `last_read_at = ${later(sqlite, 'readers.last_read_at', 'excluded.last_read_at')}`,
      `last_status_at = ${later(sqlite, 'readers.last_status_at', 'excluded.last_status_at')}`,
      'reads_total = readers.reads_total + excluded.reads_total',
      'duplicates_suppressed_total = readers.duplicates_suppressed_total + excluded.duplicates_suppressed_total',
      `health = CASE WHEN excluded.health IS NULL THEN readers.health WHEN readers.health IS NULL THEN excluded.health ELSE ${merge} END`,
      'last_status = COALESCE(excluded.last_status, readers.last_status)',
    ].join(', ');
    upsert(
      writes,
      'readers',
      [
        'reader_id',
        'transport',
        'last_source_ip',
        'first_seen_at',
        'last_seen_at',
        'last_read_at',
        'last_status_at',
        'reads_total',
        'duplicates_suppressed_total',
        'health',
        'last_status',
      ],
      rows.map((r) => [
        r.readerId,
        r.transport,
        r.sourceIp,
        r.firstSeenAt,
        r.lastSeenAt,
        r.lastReadAt,
        r.lastStatusAt,
        r.reads,
        r.duplicatesSuppressed,
        r.health,
        r.lastStatus,
      ]),
      ['reader_id'],
      set,
    );
  },

  /** Antenna counters added; `connected` as the latest status said; RSSI of the latest read. */
  upsertAntennas(writes: WriteBatch, rows: readonly AntennaDelta[]): void {
    if (rows.length === 0) return;
    const sqlite = writes.dialect === 'sqlite';
    const a = 'reader_antennas';
    const set = [
      `connected = COALESCE(excluded.connected, ${a}.connected)`,
      `reads_total = ${a}.reads_total + excluded.reads_total`,
      `last_rssi = CASE WHEN excluded.last_read_at IS NOT NULL AND (${a}.last_read_at IS NULL OR excluded.last_read_at >= ${a}.last_read_at) THEN excluded.last_rssi ELSE ${a}.last_rssi END`,
      `last_read_at = ${later(sqlite, `${a}.last_read_at`, 'excluded.last_read_at')}`,
    ].join(', ');
    upsert(
      writes,
      a,
      ['reader_id', 'antenna', 'connected', 'reads_total', 'last_read_at', 'last_rssi'],
      rows.map((r) => [r.readerId, r.antenna, r.connected, r.reads, r.lastReadAt, r.lastRssi]),
      ['reader_id', 'antenna'],
      set,
    );
  },

  /** Counted reads per reader, antenna and minute, added. */
  addMinutes(writes: WriteBatch, rows: readonly MinuteDelta[]): void {
    if (rows.length === 0) return;
    upsert(
      writes,
      'reader_minutes',
      ['reader_id', 'minute', 'antenna', 'reads'],
      rows.map((r) => [r.readerId, r.minute, r.antenna, r.reads]),
      ['reader_id', 'minute', 'antenna'],
      'reads = reader_minutes.reads + excluded.reads',
    );
  },

  addAlarms(writes: WriteBatch, rows: readonly AlarmRow[]): void {
    writes.insertRows(
      'reader_alarms',
      rows.map((r) => ({
        reader_id: r.readerId,
        code: r.code,
        message: r.message,
        at: r.at,
        events_purged: r.eventsPurged,
      })),
    );
  },

  /** Housekeeping: per-minute counts older than `beforeMinute`; alarms beyond each reader's newest `keep`. */
  prune(writes: WriteBatch, beforeMinute: number, keep: number): void {
    const db = writes.sql;
    const ranked = db('reader_alarms')
      .select('id', db.raw('row_number() over (partition by reader_id order by at desc, id desc) as alarm_rank'))
      .as('ranked');
    writes.add(
      db('reader_minutes').where('minute', '<', beforeMinute).delete(),
      db('reader_alarms')
        .whereIn('id', db.from(ranked).select('id').where('alarm_rank', '>', keep))
        .delete(),
    );
  },

  addRoutes(writes: WriteBatch, rows: readonly { readerId: string; routeName: string }[]): void {
    writes.insertRows(
      'reader_routes',
      rows.map((r) => ({ reader_id: r.readerId, route_name: r.routeName })),
      { columns: ['reader_id', 'route_name'], then: 'ignore' },
    );
  },
};

export const readersRepo = {
  async list(db: Queryable, ids?: readonly string[]): Promise<ReaderRecord[]> {
    const rows = (await forReaders(db('readers').select('*'), ids).orderBy('reader_id')) as StoredReader[];
    return rows.map(toReader);
  },

  async find(db: Queryable, readerId: string): Promise<ReaderRecord | null> {
    const [reader] = await readersRepo.list(db, [readerId]);
    return reader ?? null;
  },

  async antennas(db: Queryable, ids?: readonly string[]): Promise<AntennaRecord[]> {
    const rows = (await forReaders(db('reader_antennas').select('*'), ids).orderBy([
      'reader_id',
      'antenna',
    ])) as StoredReader[];
    return rows.map(toAntenna);
  },

  /** The newest `perReader` alarms of each reader, newest first. */
  async alarms(db: Queryable, perReader: number, ids?: readonly string[]): Promise<AlarmRow[]> {
    const ranked = forReaders(
      db('reader_alarms').select(
        'reader_id',
        'code',
        'message',
        'at',
        'events_purged',
        db.raw('row_number() over (partition by reader_id order by at desc, id desc) as alarm_rank'),
      ),
      ids,
    );
    const rows = (await db
      .from(ranked.as('ranked'))
      .where('alarm_rank', '<=', perReader)
      .orderBy([
        { column: 'reader_id', order: 'asc' },
        { column: 'alarm_rank', order: 'asc' },
      ])) as StoredReader[];
    return rows.map((row) => ({
      readerId: row.reader_id as string,
      code: row.code as string,
      message: row.message as string,
      at: num(row.at),
      eventsPurged: numOrNull(row.events_purged),
    }));
  },

  async routes(db: Queryable, ids?: readonly string[]): Promise<{ readerId: string; routeName: string }[]> {
    const rows = (await forReaders(db('reader_routes').select('*'), ids).orderBy(['reader_id', 'route_name'])) as {
      reader_id: string;
      route_name: string;
    }[];
    return rows.map((row) => ({ readerId: row.reader_id, routeName: row.route_name }));
  },

  async unroutedTopics(db: Queryable, ids?: readonly string[]): Promise<{ readerId: string; topic: string }[]> {
    const rows = (await forReaders(db('reader_unrouted_topics').select('reader_id', 'topic'), ids).orderBy([
      { column: 'reader_id', order: 'asc' },
      { column: 'at', order: 'desc' },
    ])) as { reader_id: string; topic: string }[];
    return rows.map((row) => ({ readerId: row.reader_id, topic: row.topic }));
  },

  /** Counted reads per reader, antenna and minute from `fromMinute` on. */
  async minutes(db: Queryable, fromMinute: number, ids?: readonly string[]): Promise<MinuteDelta[]> {
    const rows = (await forReaders(
      db('reader_minutes').select('reader_id', 'minute', 'antenna', 'reads').where('minute', '>=', fromMinute),
      ids,
    )) as StoredReader[];
    return rows.map((row) => ({
      readerId: row.reader_id as string,
      minute: num(row.minute),
      antenna: num(row.antenna),
      reads: num(row.reads),
    }));
  },

  /** A reader's counted reads per minute from `fromMinute` on (antennas summed). */
  async history(db: Queryable, readerId: string, fromMinute: number): Promise<Map<number, number>> {
    const rows: { minute: unknown; reads: unknown }[] = await db('reader_minutes')
      .select('minute')
      .sum({ reads: 'reads' })
      .where('reader_id', readerId)
      .where('minute', '>=', fromMinute)
      .groupBy('minute');
    return new Map(rows.map((row) => [num(row.minute), num(row.reads)]));
  },

  /** Total, and those heard within their threshold at `now` (`fallback` seconds where none is set). */
  async counts(db: Queryable, now: number, fallbackSeconds: number): Promise<{ total: number; online: number }> {
    const row: { total: unknown; online: unknown } | undefined = await db('readers').first(
      db.raw('count(*) as total'),
      db.raw(
        'coalesce(sum(case when last_seen_at >= CAST(? AS BIGINT) - coalesce(silent_after_seconds, CAST(? AS INTEGER)) * 1000 then 1 else 0 end), 0) as online',
        [now, fallbackSeconds],
      ),
    );
    return { total: num(row?.total ?? 0), online: num(row?.online ?? 0) };
  },

  /** The `limit` most recently heard readers, for `/_metrics`. */
  async recent(db: Queryable, limit: number): Promise<ReaderRecord[]> {
    const rows = (await db('readers')
      .select('*')
      .orderBy([
        { column: 'last_seen_at', order: 'desc' },
        { column: 'reader_id', order: 'asc' },
      ])
      .limit(limit)) as StoredReader[];
    return rows.map(toReader);
  },

  /** Every reader's id, threshold, name and last time heard: what the silence watch compares. */
  async lastSeen(
    db: Queryable,
  ): Promise<{ readerId: string; name: string | null; lastSeenAt: number; silentAfterSeconds: number | null }[]> {
    const rows: StoredReader[] = await db('readers').select(
      'reader_id',
      'name',
      'last_seen_at',
      'silent_after_seconds',
    );
    return rows.map((row) => ({
      readerId: row.reader_id as string,
      name: (row.name as string | null) ?? null,
      lastSeenAt: num(row.last_seen_at),
      silentAfterSeconds: numOrNull(row.silent_after_seconds),
    }));
  },

  /** Sets the technician's fields; false when the reader is not known. */
  async update(
    db: Queryable,
    readerId: string,
    fields: { name?: string | null; silentAfterSeconds?: number | null },
  ): Promise<boolean> {
    const changes: Record<string, unknown> = {};
    if (fields.name !== undefined) changes.name = fields.name;
    if (fields.silentAfterSeconds !== undefined) changes.silent_after_seconds = fields.silentAfterSeconds;
    if (Object.keys(changes).length === 0) return (await readersRepo.find(db, readerId)) !== null;
    return (await db('readers').where('reader_id', readerId).update(changes)) > 0;
  },

  /** Forgets the reader and everything kept about it; false when it was not known. */
  async remove(db: Queryable, readerId: string): Promise<boolean> {
    // Children first: SQLite enforces the foreign keys only with its pragma, which a raw
    // connection elsewhere may not have set.
    for (const table of ['reader_antennas', 'reader_minutes', 'reader_alarms', 'reader_routes']) {
      await db(table).where('reader_id', readerId).delete();
    }
    await db('reader_unrouted_topics').where('reader_id', readerId).delete();
    return (await db('readers').where('reader_id', readerId).delete()) > 0;
  },

  /** An MQTT topic the client published to that no route takes (at most `max` kept per client). */
  async addUnroutedTopic(db: Queryable, readerId: string, topic: string, at: number, max: number): Promise<void> {
    // The WHERE also tells SQLite's parser that ON CONFLICT belongs to the INSERT.
    await db.raw(
      'INSERT INTO reader_unrouted_topics (reader_id, topic, at) SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT) ' +
        'WHERE (SELECT count(*) FROM reader_unrouted_topics WHERE reader_id = CAST(? AS TEXT)) < CAST(? AS INTEGER) ' +
        'ON CONFLICT (reader_id, topic) DO UPDATE SET at = excluded.at',
      [readerId, topic, at, readerId, max],
    );
  },
};

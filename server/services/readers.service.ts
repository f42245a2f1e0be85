import type { Reader, ReaderAlarmInfo, ReaderCounts, ReaderHealthInfo, ReaderMinute } from '../contract/dto';
import type { CallContext, GatewayHandlers } from '../contract/operations';
import { AppError, validationFailed } from '../errors';
import type { FieldError } from '../contract/errors';
import {
  readersRepo,
  type AlarmRow,
  type AntennaRecord,
  type MinuteDelta,
  type ReaderRecord,
} from '../repositories/readers.repo';
import { iso } from '../time';
import { characterCount } from '../validation';
import type { ServiceDeps } from './service-deps';

type ReaderHandlers = Pick<
  GatewayHandlers,
  'listReaders' | 'getReader' | 'updateReader' | 'deleteReader' | 'getReaderHistory'
>;

/** SPEC §16's bounds. */
export const READER_LIMITS = {
  alarmsShown: 20,
  unroutedTopicsShown: 10,
  silentAfterSeconds: { min: 10, max: 86_400 },
  historyMinutes: { min: 1, max: 1440, fallback: 60 },
  nameMax: 64,
  /** Readers labelled in `/_metrics`: the most recently heard. */
  metricsReaders: 1000,
} as const;

const MINUTE_MS = 60_000;

/** A reader's state at `now` under its effective threshold (SPEC §16). */
export const readerState = (lastSeenAt: number, silentAfterSeconds: number, now: number): 'online' | 'silent' =>
  now - lastSeenAt <= silentAfterSeconds * 1000 ? 'online' : 'silent';

/**
 * Reads per minute as of `now`, from per-minute buckets: the current minute's reads plus the
 * previous minute's, weighted by how much of it still lies within the last 60 s (a sliding
 * window over two fixed ones: exact while reads are steady, never a jump to 0 at a minute's turn).
 */
function lastMinute(current: number, previous: number, now: number): number {
  const inWindow = 1 - (now % MINUTE_MS) / MINUTE_MS;
  return Math.round(current + previous * inWindow);
}

const notFound = (readerId: string): AppError =>
  new AppError('reader_not_found', `No reader ${JSON.stringify(readerId)} is known`);

/** The path's reader id, as the router decoded it. */
function readReaderId(input: unknown): string {
  const id = (input as { id?: unknown } | null)?.id;
  if (typeof id !== 'string' || id.length === 0) throw new AppError('reader_not_found', 'No such reader');
  return id;
}

function parseJson<T>(text: string | null): T | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/** The readers' pieces, read once for the whole list (or one reader). */
interface Pieces {
  antennas: Map<string, AntennaRecord[]>;
  alarms: Map<string, AlarmRow[]>;
  routes: Map<string, string[]>;
  topics: Map<string, string[]>;
  /** readerId → antenna → [current minute, previous minute]. */
  minutes: Map<string, Map<number, [number, number]>>;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = map.get(k);
    if (list) list.push(row);
    else map.set(k, [row]);
  }
  return map;
}

function minutesBy(rows: readonly MinuteDelta[], currentMinute: number): Pieces['minutes'] {
  const map: Pieces['minutes'] = new Map();
  for (const row of rows) {
    let byAntenna = map.get(row.readerId);
    if (!byAntenna) map.set(row.readerId, (byAntenna = new Map<number, [number, number]>()));
    const pair = byAntenna.get(row.antenna) ?? [0, 0];
    if (row.minute === currentMinute) pair[0] += row.reads;
    else if (row.minute === currentMinute - 1) pair[1] += row.reads;
    byAntenna.set(row.antenna, pair);
  }
  return map;
}

/**
 * The readers resource (SPEC §16): the records the traffic keeps (server/intake/processing/
 * reader-tracking.ts), as the admin API shows them, and the technician's part of them (a name, a
 * threshold, forgetting a reader).
 */
export function createReadersService(
  deps: ServiceDeps & {
    /** Readers heard beyond the 10,000 kept, counted by the intake. */
    untracked: () => number;
  },
) {
  const { db, now } = deps;
  const fallback = () => deps.settings.current().readerSilentAfterSeconds;
  /** Client and topic pairs written already: a client publishing to a wrong topic writes it once. */
  const unroutedWritten = new Set<string>();

  async function pieces(ids?: readonly string[]): Promise<Pieces> {
    const at = now();
    const currentMinute = Math.floor(at / MINUTE_MS);
    const [antennas, alarms, routes, topics, minutes] = await Promise.all([
      readersRepo.antennas(db.knex, ids),
      readersRepo.alarms(db.knex, READER_LIMITS.alarmsShown, ids),
      readersRepo.routes(db.knex, ids),
      readersRepo.unroutedTopics(db.knex, ids),
      readersRepo.minutes(db.knex, currentMinute - 1, ids),
    ]);
    return {
      antennas: groupBy(antennas, (row) => row.readerId),
      alarms: groupBy(alarms, (row) => row.readerId),
      routes: new Map([...groupBy(routes, (row) => row.readerId)].map(([k, v]) => [k, v.map((r) => r.routeName)])),
      topics: new Map([...groupBy(topics, (row) => row.readerId)].map(([k, v]) => [k, v.map((r) => r.topic)])),
      minutes: minutesBy(minutes, currentMinute),
    };
  }

  function toReader(record: ReaderRecord, p: Pieces, at: number): Reader {
    const silentAfterSeconds = record.silentAfterSeconds ?? fallback();
    const minutes = p.minutes.get(record.readerId) ?? new Map<number, [number, number]>();
    const perMinute = (antenna: number) => {
      const [current, previous] = minutes.get(antenna) ?? [0, 0];
      return lastMinute(current, previous, at);
    };
    let readsLastMinute = 0;
    for (const antenna of minutes.keys()) readsLastMinute += perMinute(antenna);
    return {
      readerId: record.readerId,
      name: record.name,
      transport: record.transport,
      lastSourceIp: record.lastSourceIp,
      routes: p.routes.get(record.readerId) ?? [],
      firstSeenAt: iso(record.firstSeenAt),
      lastSeenAt: iso(record.lastSeenAt),
      lastReadAt: record.lastReadAt === null ? null : iso(record.lastReadAt),
      lastStatusAt: record.lastStatusAt === null ? null : iso(record.lastStatusAt),
      state: readerState(record.lastSeenAt, silentAfterSeconds, at),
      silentAfterSeconds,
      readsTotal: record.readsTotal,
      readsLastMinute,
      duplicatesSuppressedTotal: record.duplicatesSuppressedTotal,
      antennas: (p.antennas.get(record.readerId) ?? []).map((a) => ({
        antenna: a.antenna,
        connected: a.connected,
        readsTotal: a.readsTotal,
        readsLastMinute: perMinute(a.antenna),
        lastReadAt: a.lastReadAt === null ? null : iso(a.lastReadAt),
        lastRssi: a.lastRssi,
      })),
      health: parseJson<ReaderHealthInfo>(record.health),
      alarms: (p.alarms.get(record.readerId) ?? []).map((alarm): ReaderAlarmInfo => ({
        code: alarm.code as ReaderAlarmInfo['code'],
        message: alarm.message,
        at: iso(alarm.at),
        ...(alarm.eventsPurged === null ? {} : { eventsPurged: alarm.eventsPurged }),
      })),
      lastStatus: parseJson<unknown>(record.lastStatus),
      unroutedTopics: (p.topics.get(record.readerId) ?? []).slice(0, READER_LIMITS.unroutedTopicsShown),
    };
  }

  async function one(readerId: string): Promise<Reader> {
    const record = await readersRepo.find(db.knex, readerId);
    if (!record) throw notFound(readerId);
    return toReader(record, await pieces([readerId]), now());
  }

  const handlers = {
    async listReaders() {
      const records = await readersRepo.list(db.knex);
      const p = await pieces();
      const at = now();
      return records.map((record) => toReader(record, p, at));
    },

    getReader: (input) => one(readReaderId(input)),

    async updateReader(input, context: CallContext) {
      const readerId = readReaderId(input);
      const fields = readReaderInput(input);
      await db.knex.transaction(async (trx) => {
        if (!(await readersRepo.update(trx, readerId, fields))) throw notFound(readerId);
        const said = [
          fields.name !== undefined ? `name ${fields.name === null ? 'cleared' : JSON.stringify(fields.name)}` : null,
          fields.silentAfterSeconds !== undefined
            ? `silent after ${fields.silentAfterSeconds === null ? 'the setting' : `${fields.silentAfterSeconds} s`}`
            : null,
        ].filter((part) => part !== null);
        await deps.audit.record(
          trx,
          context,
          'update',
          'readers',
          null,
          `Updated reader ${readerId}${said.length > 0 ? `: ${said.join(', ')}` : ''}`,
        );
      });
      return one(readerId);
    },

    async deleteReader(input, context: CallContext) {
      const readerId = readReaderId(input);
      await db.knex.transaction(async (trx) => {
        if (!(await readersRepo.remove(trx, readerId))) throw notFound(readerId);
        await deps.audit.record(trx, context, 'delete', 'readers', null, `Forgot reader ${readerId}`);
      });
    },

    async getReaderHistory(input) {
      const readerId = readReaderId(input);
      const minutes = readHistoryMinutes(input);
      if (!(await readersRepo.find(db.knex, readerId))) throw notFound(readerId);
      const current = Math.floor(now() / MINUTE_MS);
      const first = current - minutes + 1;
      const counts = await readersRepo.history(db.knex, readerId, first);
      return Array.from({ length: minutes }, (_, i): ReaderMinute => ({
        minute: iso((first + i) * MINUTE_MS),
        reads: counts.get(first + i) ?? 0,
      }));
    },
  } satisfies ReaderHandlers;

  return {
    handlers,

    /** `/status`'s `readers` (SPEC §16). */
    async counts(): Promise<ReaderCounts> {
      const { total, online } = await readersRepo.counts(db.reads, now(), fallback());
      return { total, online, silent: total - online, untracked: deps.untracked() };
    },

    /**
     * An MQTT client published to a topic no route takes: kept under its client id (at most 10
     * topics), shown on the reader of that id. Written once per client and topic per process.
     */
    noteUnroutedTopic(clientId: string, topic: string, logger: { warn(message: string, fields?: object): void }): void {
      const key = `${clientId}\u0000${topic}`;
      if (unroutedWritten.has(key)) return;
      if (unroutedWritten.size >= 100_000) unroutedWritten.clear();
      unroutedWritten.add(key);
      readersRepo
        .addUnroutedTopic(db.knex, clientId, topic, now(), READER_LIMITS.unroutedTopicsShown)
        .catch((error: unknown) => logger.warn('an unrouted MQTT topic could not be kept', { error }));
    },

    /** `/_metrics`: the most recently heard readers, with their totals and state now. */
    async metrics(): Promise<ReaderMetric[]> {
      const at = now();
      const records = await readersRepo.recent(db.reads, READER_LIMITS.metricsReaders);
      return records.map((record) => ({
        readerId: record.readerId,
        readsTotal: record.readsTotal,
        online: readerState(record.lastSeenAt, record.silentAfterSeconds ?? fallback(), at) === 'online',
        lastSeenSecondsAgo: Math.max(0, (at - record.lastSeenAt) / 1000),
      }));
    },
  };
}

export type ReadersService = ReturnType<typeof createReadersService>;

/** One reader's line in `/_metrics`. */
export interface ReaderMetric {
  readerId: string;
  readsTotal: number;
  online: boolean;
  lastSeenSecondsAgo: number;
}

/** PUT's members: a name 1–64 characters (null clears it), a threshold 10–86400 s (null: the setting's). */
function readReaderInput(input: unknown): { name?: string | null; silentAfterSeconds?: number | null } {
  const errors: FieldError[] = [];
  const body = (input ?? {}) as Record<string, unknown>;
  const fields: { name?: string | null; silentAfterSeconds?: number | null } = {};
  const { name, silentAfterSeconds } = body;
  if (name !== undefined) {
    if (name === null) fields.name = null;
    else if (typeof name !== 'string' || name.trim().length === 0 || characterCount(name) > READER_LIMITS.nameMax)
      errors.push({ path: '/name', message: `Name must be 1 to ${READER_LIMITS.nameMax} characters` });
    else fields.name = name;
  }
  if (silentAfterSeconds !== undefined) {
    const { min, max } = READER_LIMITS.silentAfterSeconds;
    if (silentAfterSeconds === null) fields.silentAfterSeconds = null;
    else if (
      typeof silentAfterSeconds !== 'number' ||
      !Number.isInteger(silentAfterSeconds) ||
      silentAfterSeconds < min ||
      silentAfterSeconds > max
    )
      errors.push({
        path: '/silentAfterSeconds',
        message: `silentAfterSeconds must be a whole number from ${min} to ${max}, or null`,
      });
    else fields.silentAfterSeconds = silentAfterSeconds;
  }
  if (errors.length > 0) throw validationFailed(errors);
  return fields;
}

/** `?minutes=` 1–1440, default 60. */
function readHistoryMinutes(input: unknown): number {
  const raw = (input as { minutes?: unknown }).minutes;
  const { min, max, fallback } = READER_LIMITS.historyMinutes;
  if (raw === undefined) return fallback;
  const text = typeof raw === 'number' ? String(raw) : raw;
  const value = typeof text === 'string' && /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) {
    throw validationFailed([{ path: '/minutes', message: `minutes must be a whole number from ${min} to ${max}` }]);
  }
  return value;
}

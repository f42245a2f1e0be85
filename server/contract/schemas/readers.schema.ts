import { READER_ALARM_CODES, READER_STATES, TRANSPORTS } from '../enums';
import { named, optional, s } from '../schema';

/** SPEC §16: readers, kept from the traffic. */

const when = (description?: string) => s.string({ format: 'date-time', ...(description ? { description } : {}) });

export const READER_ANTENNA = named(
  'ReaderAntenna',
  s.object({
    antenna: s.integer(),
    connected: s.nullable(s.boolean({ description: 'As the last status message said; null until one does.' })),
    readsTotal: s.integer(),
    readsLastMinute: s.integer(),
    lastReadAt: s.nullable(when()),
    lastRssi: s.nullable(s.number({ description: 'dBm, of the latest read.' })),
  }),
);

export const READER_HEALTH = named(
  'ReaderHealth',
  s.object({
    cpuPercent: optional(s.number()),
    ramUsedPercent: optional(s.number()),
    temperatureC: optional(s.number()),
    ntpOffsetMs: optional(s.number()),
    droppedByReader: optional(s.number()),
    retainedByReader: optional(s.number()),
    inventoryStatus: optional(s.string()),
  }),
  'From Zebra heartbeats and Impinj status events; each member only when the reader sent it.',
);

export const READER_ALARM = named(
  'ReaderAlarm',
  s.object({
    code: s.enum(READER_ALARM_CODES),
    message: s.string(),
    at: when(),
    eventsPurged: optional(s.integer({ description: 'reader_overflow: events the reader purged.' })),
  }),
);

export const READER = named(
  'Reader',
  s.object({
    readerId: s.string(),
    name: s.nullable(s.string({ description: 'A technician’s label, 1–64 characters.' })),
    transport: s.enum(TRANSPORTS),
    lastSourceIp: s.string(),
    routes: s.array(s.string(), { description: 'Names of the routes the reader was heard on.' }),
    firstSeenAt: when(),
    lastSeenAt: when(),
    lastReadAt: s.nullable(when()),
    lastStatusAt: s.nullable(when()),
    state: s.enum(READER_STATES),
    silentAfterSeconds: s.integer({ description: 'The effective threshold: the reader’s own, else the setting.' }),
    readsTotal: s.integer(),
    readsLastMinute: s.integer(),
    duplicatesSuppressedTotal: s.integer(),
    antennas: s.array(READER_ANTENNA),
    health: s.nullable(READER_HEALTH),
    alarms: s.array(READER_ALARM, { description: 'Newest first, at most 20.' }),
    lastStatus: s.nullable(s.unknown({ description: 'The last status message as received.' })),
    unroutedTopics: s.array(s.string(), { description: 'MQTT topics no route takes, at most 10.' }),
  }),
);

export const READER_INPUT = named(
  'ReaderInput',
  s.object({
    name: optional(s.nullable(s.string({ max: 64, label: 'Name' }))),
    silentAfterSeconds: optional(
      s.nullable(
        s.integer({
          min: 10,
          max: 86_400,
          message: 'silentAfterSeconds must be a whole number from 10 to 86400, or null',
          description: 'null: follow the setting readerSilentAfterSeconds again.',
        }),
      ),
    ),
  }),
);

export const READER_HISTORY_QUERY = named(
  'ReaderHistoryQuery',
  s.object({
    minutes: optional(s.integer({ min: 1, max: 1440, description: 'Default 60.' })),
  }),
);

export const READER_HISTORY = s.array(
  named('ReaderMinute', s.object({ minute: when('The minute’s start.'), reads: s.integer() })),
  { description: 'One entry per minute, oldest first, zeros included.' },
);

export const READER_COUNTS = named(
  'ReaderCounts',
  s.object({
    total: s.integer(),
    online: s.integer(),
    silent: s.integer(),
    untracked: s.integer({ description: 'Readers heard beyond the 10,000 kept (this instance, since it started).' }),
  }),
);

import { named, optional, s } from '../schema';

/**
 * The live tag inventory (SPEC §5 UHFTagRead, §10) as the admin reads it: the GET route's
 * snapshot of one endpoint, with the same filters, and the decoded reads of one stored event.
 */

const when = (description?: string) => s.string({ format: 'date-time', ...(description ? { description } : {}) });

export const INVENTORY_QUERY = named(
  'InventoryQuery',
  s.object({
    endpoint: s.integer({ min: 1, description: 'The endpoint’s id: the inventory is kept per endpoint.' }),
    epc: optional(s.string({ description: 'Hex (any case) or an EPC URI.' })),
    readerId: optional(s.string()),
    antenna: optional(s.integer({ min: 0 })),
    seenSince: optional(
      s.string({
        description: 'An instant (ISO 8601), compared with lastSeen; without offset: the time zone setting.',
      }),
    ),
    limit: optional(s.integer({ min: 1, max: 1000, description: 'Items per page; 100 when absent.' })),
    cursor: optional(s.string({ description: 'The `nextCursor` of the previous page.' })),
  }),
);

export const INVENTORY_ITEM = named(
  'InventoryItem',
  s.object({
    epc: s.string({ description: 'Upper-case hex.' }),
    epcUri: s.string({ description: 'Pure-identity URI, or urn:epc:raw:… when not a decodable GS1 EPC.' }),
    tid: s.nullable(s.string()),
    readerId: s.string({ description: 'The reader of the latest read.' }),
    antenna: s.nullable(s.integer()),
    rssi: s.nullable(s.number({ description: 'dBm, of the latest read.' })),
    firstSeen: when(),
    lastSeen: when(),
    readCount: s.integer({ description: 'Counted reads (suppressed duplicates not counted).' }),
  }),
);

export const INVENTORY_PAGE = named(
  'InventoryPage',
  s.object({
    items: s.array(INVENTORY_ITEM, { description: 'Newest sighting first.' }),
    nextCursor: s.nullable(s.string()),
  }),
);

/** At most this many reads of one event are answered (`total` counts them all). */
export const EVENT_READS_MAX = 1000;

export const EVENT_READS = named(
  'EventReads',
  s.object({
    reads: s.array(
      named(
        'DecodedRead',
        s.object({
          epc: s.string(),
          epcUri: s.string(),
          tid: s.nullable(s.string()),
          readerId: s.string(),
          antenna: s.nullable(s.integer()),
          rssi: s.nullable(s.number({ description: 'dBm.' })),
          readAt: when('The reader’s time, else the receive time.'),
        }),
      ),
      { description: `In payload order; at most ${EVENT_READS_MAX}.` },
    ),
    total: s.integer({ description: 'Tag reads in the payload (heartbeats and status messages not counted).' }),
    readable: s.boolean({ description: 'False when the payload is not one the UHFTagRead processor reads.' }),
  }),
  'The tag reads of a stored UHFTagRead event, decoded as the processor decodes them.',
);

import type { Knex } from 'knex';

/** Rows per statement: one recursive series per chunk keeps each transaction short. */
const CHUNK = 50_000;

/** The bizSteps the synthetic events cycle through: a quarter of them are `shipping`. */
export const BIZ_STEPS = ['shipping', 'receiving', 'packing', 'storing'] as const;

/** How long after its event time each synthetic event is recorded: a reader posting as it reads. */
export const RECORD_LAG_MS = 2_000;

/**
 * What `loadObjectEvents` wrote: event `i` (1-based) has eventTime `firstEventTime + i * 1000`
 * and recordTime `RECORD_LAG_MS` later.
 */
export interface SyntheticStore {
  count: number;
  firstEventTime: number;
  /** The EPC of event `i`. */
  epc: (i: number) => string;
}

/**
 * Writes `count` stored EPCIS ObjectEvents of one endpoint straight into the database (events,
 * the EPCIS index and its EPC table) with set-based INSERT … SELECT over a recursive series, the
 * same SQL on SQLite and PostgreSQL: a million events in seconds, where capture would take
 * minutes. Each event has its own EPC, one of four bizSteps, a second between event times, and
 * is recorded (received, processed) `RECORD_LAG_MS` after its event time. The payload's eventTime
 * is one fixed text (the index carries the real one): for query timing only.
 */
export async function loadObjectEvents(
  knex: Knex,
  options: { endpointId: number; count: number; routeName?: string; firstEventTime?: number },
): Promise<SyntheticStore> {
  const firstEventTime = options.firstEventTime ?? Date.parse('2026-01-01T00:00:00Z');
  const firstRecordTime = firstEventTime + RECORD_LAG_MS;
  const route = options.routeName ?? 'bench';
  const prefix = 'urn:epc:id:sgtin:0614141.107346.';
  const bizStep = `CASE i % 4 ${BIZ_STEPS.map((step, k) => `WHEN ${k} THEN '${step}'`).join(' ')} END`;
  const id = `'bench' || CAST(1000000000 + i AS varchar(16))`;
  const serial = 'CAST(i AS varchar(16))';
  const series = 'WITH RECURSIVE n(i) AS (SELECT CAST(? AS bigint) UNION ALL SELECT i + 1 FROM n WHERE i < ?)';
  for (let start = 1; start <= options.count; start += CHUNK) {
    const end = Math.min(options.count, start + CHUNK - 1);
    await knex.transaction(async (trx) => {
      await trx.raw(
        `${series} INSERT INTO events (id, parent_id, route_name, endpoint_id, endpoint_name, event_type,
           status, received_at, processed_at, principal, source_ip, request_id, payload)
         SELECT ${id}, 'benchparent', ?, ?, 'bench', 'EpcisObject', 'processed', ? + i * 1000, ? + i * 1000, '', '', '',
           '{"type":"ObjectEvent","eventID":"urn:uuid:bench-' || ${serial} || '","action":"OBSERVE","bizStep":"'
           || ${bizStep} || '","eventTime":"2026-01-01T00:00:00.000Z","eventTimeZoneOffset":"+00:00","epcList":["${prefix}'
           || ${serial} || '"]}'
         FROM n`,
        [start, end, route, options.endpointId, firstRecordTime, firstRecordTime],
      );
      await trx.raw(
        `${series} INSERT INTO epcis_events (event_id, endpoint_id, epcis_event_id, type, action, event_time,
           record_time, biz_step)
         SELECT ${id}, ?, 'urn:uuid:bench-' || ${serial}, 'ObjectEvent', 'OBSERVE', ? + i * 1000, ? + i * 1000, ${bizStep}
         FROM n`,
        [start, end, options.endpointId, firstEventTime, firstRecordTime],
      );
      await trx.raw(
        `${series} INSERT INTO epcis_epcs (event_id, endpoint_id, epc, role)
         SELECT ${id}, ?, '${prefix}' || ${serial}, 'epcList' FROM n`,
        [start, end, options.endpointId],
      );
    });
  }
  return { count: options.count, firstEventTime, epc: (i) => `${prefix}${i}` };
}

import { normalizeCbv } from './cbv';
import { isArray, isRecord, parseDateTime } from './util';
import type { EpcRole, QueryFacts } from '../../repositories/epcis-index.repo';

export type { EpcRole, QueryFacts };

/** The role an EPC plays in an event (SPEC §17): the field that names it. */

const EPC_LISTS = ['epcList', 'childEPCs', 'inputEPCList', 'outputEPCList'] as const;
const QUANTITY_LISTS = ['quantityList', 'childQuantityList', 'inputQuantityList', 'outputQuantityList'] as const;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const idOf = (value: unknown): string | null => (isRecord(value) ? text(value.id) : null);

/** What the query index keeps of a stored event (its `eventID` given or added by `toStoredEvent`). */
export function queryFacts(event: Record<string, unknown>): QueryFacts {
  const epcs: QueryFacts['epcs'] = [];
  const seen = new Set<string>();
  const add = (epc: unknown, role: EpcRole) => {
    if (typeof epc !== 'string' || seen.has(`${role} ${epc}`)) return;
    seen.add(`${role} ${epc}`);
    epcs.push({ epc, role });
  };
  add(event.parentID, 'parentID');
  for (const field of EPC_LISTS) {
    const list = event[field];
    if (isArray(list)) for (const epc of list) add(epc, field);
  }
  for (const field of QUANTITY_LISTS) {
    const list = event[field];
    if (isArray(list)) for (const item of list) if (isRecord(item)) add(item.epcClass, field);
  }
  const bizStep = text(event.bizStep);
  const disposition = text(event.disposition);
  return {
    eventId: text(event.eventID) ?? '',
    type: text(event.type) ?? '',
    action: text(event.action),
    eventTime: parseDateTime(event.eventTime) ?? 0,
    bizStep: bizStep === null ? null : normalizeCbv('bizStep', bizStep),
    disposition: disposition === null ? null : normalizeCbv('disposition', disposition),
    readPoint: idOf(event.readPoint),
    bizLocation: idOf(event.bizLocation),
    epcs,
  };
}

import { randomUUID } from 'node:crypto';
import { normalizeBizStep } from './cbv';
import { EPCIS_CONTEXT, isArray, jsonEqual, parseDateTime } from './util';

export interface EventFacets {
  type: string;
  bizStep: string | null;
  epcs: string[];
  eventTime: number | null;
}

// The fields that name EPCs (instance identifiers), as the GET `epc` filter matches them (SPEC §10).
const EPC_LIST_FIELDS = ['epcList', 'childEPCs', 'inputEPCList', 'outputEPCList'] as const;

/** Facets for GET filters: type, bizStep (bare CBV word where it is one), every EPC named, eventTime in ms. */
export function eventFacets(event: Record<string, unknown>): EventFacets {
  const epcs = new Set<string>();
  if (typeof event.parentID === 'string') epcs.add(event.parentID);
  for (const field of EPC_LIST_FIELDS) {
    const list = event[field];
    if (!isArray(list)) continue;
    for (const epc of list) if (typeof epc === 'string') epcs.add(epc);
  }
  return {
    type: typeof event.type === 'string' ? event.type : '',
    bizStep: typeof event.bizStep === 'string' ? normalizeBizStep(event.bizStep) : null,
    epcs: [...epcs],
    eventTime: parseDateTime(event.eventTime),
  };
}

const asList = (context: unknown): unknown[] => (isArray(context) ? context : [context]);

/**
 * The @context a stored event carries. An event's own @context refines the document's (JSON-LD
 * scoping), so both are kept, the document's first and without repeating entries.
 */
function mergeContexts(outer: unknown, own: unknown): unknown {
  if (own === undefined || jsonEqual(outer, own)) return outer;
  if (outer === undefined) return own;
  const merged: unknown[] = [];
  for (const entry of [...asList(outer), ...asList(own)]) {
    if (!merged.some((m) => jsonEqual(m, entry))) merged.push(entry);
  }
  return merged.length === 1 ? merged[0] : merged;
}

/**
 * EpcisObject: the event as stored on its own: a deep copy with `@context` set (first key) and an
 * `eventID` (`urn:uuid:…`) added when the sender gave none, so each stored event can be referred to.
 * Without any context (neither given nor the event's own) the EPCIS 2.0 context is assumed.
 */
export function toStoredEvent(event: Record<string, unknown>, context: unknown): Record<string, unknown> {
  const { '@context': own, ...rest } = structuredClone(event);
  const stored: Record<string, unknown> = { '@context': mergeContexts(context, own) ?? EPCIS_CONTEXT, ...rest };
  if (stored.eventID === undefined) stored.eventID = `urn:uuid:${randomUUID()}`;
  return stored;
}

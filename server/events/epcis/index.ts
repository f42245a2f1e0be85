import type { FieldError } from '../../contract/errors';
import { fail, ok, type Validation } from '../types';
import { walkInput } from './document';
import { fixCompactOffsets } from './lenient';
import { Report } from './util';

/*
 * EPCIS 2.0 JSON / JSON-LD validation and normalization for the EpcisMessage and EpcisObject
 * event types (SPEC §5, §10). Pure: no I/O; the caller stores what `validateEpcis` returns.
 * The rules are those of GS1's EPCIS 2.0 JSON schema, written out here because the schema file
 * has no licence to ship, plus the standard's rules the schema misses (see events.ts).
 */

export interface EpcisInput {
  kind: 'document' | 'queryDocument' | 'events';
  /** The document to store for EpcisMessage: the input itself on strict, the normalized copy on lenient (deep-equal to input when nothing was corrected). For kind 'events' the (normalized) event or array. */
  document: unknown;
  /** The @context to carry onto split events (the document's, or the bare event's; when missing on bare events assume the EPCIS 2.0 context "https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld"). */
  context: unknown;
  /** Each EPCIS event (objects inside `document`, normalized when lenient), in order. */
  events: Record<string, unknown>[];
  /** JSON Pointer of each event in the input, parallel to `events` (e.g. "/epcisBody/eventList/3"). */
  eventPaths: string[];
  /** An EPCIS capture with `proceed` (SPEC §17): the errors of the events left out. */
  refused?: FieldError[];
}

export interface EpcisOptions {
  /** Route setting `epcisLenient`: correct common deviations, with warnings, instead of refusing them. */
  lenient: boolean;
  /** EpcisObject (true) also takes a bare event or an array of events; EpcisMessage (false) only documents. */
  allowBareEvents: boolean;
}

/**
 * Validates an EPCISDocument, an EPCISQueryDocument or (with `allowBareEvents`) a bare event or an
 * array of events. Reports the errors found (the first 100, and the total) with their JSON Pointers; in lenient mode
 * the corrections come back as warnings and the input itself is left untouched.
 */
export function validateEpcis(json: unknown, options: EpcisOptions): Validation<EpcisInput> {
  const report = new Report(options.lenient);
  // Lenient corrections are written into a deep copy: the caller's input stays as received.
  const document = options.lenient ? structuredClone(json) : json;
  if (options.lenient) fixCompactOffsets(report, document);
  const located = walkInput(report, document, options.allowBareEvents);
  const errors = report.result();
  if (errors.length > 0) {
    return report.errorTotal > errors.length ? { ok: false, errors, errorCount: report.errorTotal } : fail(errors);
  }
  return ok({ ...located, document }, report.warnings);
}

export { eventFacets, toStoredEvent, type EventFacets } from './facets';
export { normalizeBizStep, normalizeCbv } from './cbv';
export { queryFacts, type EpcRole, type QueryFacts } from './query-facts';
export { EPCIS_CONTEXT } from './util';

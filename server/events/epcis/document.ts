import { validateEvent } from './events';
import { at, checkArray, checkContext, checkDateTime, checkKeys, checkString, checkUri } from './fields';
import { fillDocumentHeader, fixDocumentType, isDocumentTypeVariant } from './lenient';
import { EPCIS_CONTEXT, isArray, isRecord, type Report } from './util';

/** Where the events of an input are, once its shape is known. */
export interface Located {
  kind: 'document' | 'queryDocument' | 'events';
  context: unknown;
  events: Record<string, unknown>[];
  eventPaths: string[];
}

// Top-level keys the EPCIS 2.0 JSON schema defines; other keys must be URIs / prefixed names.
const DOCUMENT_KEYS = new Set(['@context', 'id', 'type', 'schemaVersion', 'creationDate', 'instanceIdentifier', 'sender', 'receiver', 'epcisHeader', 'epcisBody']); // prettier-ignore
// A query document has no header, sender or receiver: it answers a query, it is not a message.
const QUERY_DOCUMENT_KEYS = new Set(['@context', 'id', 'type', 'schemaVersion', 'creationDate', 'epcisBody']);
const VERSION = /^\d+(\.\d+)*$/;

const DOCUMENT_TYPES_MESSAGE = 'must be "EPCISDocument" or "EPCISQueryDocument"';

/** Validates each item of an event list, collecting the events and their paths into `out`. */
function collectEvents(report: Report, list: unknown, path: string, out: Located): void {
  if (list === undefined) {
    report.error(path, 'required');
    return;
  }
  if (!isArray(list)) {
    report.error(path, 'must be an array of EPCIS events');
    return;
  }
  for (let i = 0; i < list.length; i++) {
    const event = list[i];
    const itemPath = at(path, i);
    if (!isRecord(event)) {
      report.error(itemPath, 'must be an EPCIS event object');
      continue;
    }
    validateEvent(report, event, itemPath);
    out.events.push(event);
    out.eventPaths.push(itemPath);
  }
}

/** Fields shared by both document types: @context (required), schemaVersion, creationDate, id. */
function checkCommonHeader(report: Report, doc: Record<string, unknown>): void {
  if (doc['@context'] === undefined) report.error('/@context', 'required: the EPCIS 2.0 JSON-LD context');
  else checkContext(report, doc['@context'], '/@context');
  const version = doc.schemaVersion;
  if (version !== undefined && (typeof version !== 'string' || !VERSION.test(version))) {
    report.error('/schemaVersion', `must be a version string such as "2.0", got ${JSON.stringify(version)}`);
  }
  if (doc.creationDate !== undefined) checkDateTime(report, doc.creationDate, '/creationDate');
  if (doc.id !== undefined) checkUri(report, doc.id, '/id');
}

/** Master data: [{type, vocabularyElementList?: [{id, attributes?: [{id, attribute?}], children?: [uri]}]}]. */
function checkVocabularyList(report: Report, value: unknown, path: string): void {
  checkArray(report, value, path, (vocabulary, p) => {
    if (!isRecord(vocabulary)) {
      report.error(p, 'must be a vocabulary object {type, vocabularyElementList?}');
      return;
    }
    if (vocabulary.type === undefined) report.error(at(p, 'type'), 'required');
    else checkUri(report, vocabulary.type, at(p, 'type'));
    const elements = vocabulary.vocabularyElementList;
    if (elements === undefined) return;
    checkArray(report, elements, at(p, 'vocabularyElementList'), (element, ep) => {
      if (!isRecord(element)) {
        report.error(ep, 'must be a vocabulary element object {id, attributes?, children?}');
        return;
      }
      if (element.id === undefined) report.error(at(ep, 'id'), 'required');
      else checkUri(report, element.id, at(ep, 'id'));
      if (element.attributes !== undefined) {
        checkArray(report, element.attributes, at(ep, 'attributes'), (attribute, ap) => {
          if (!isRecord(attribute)) report.error(ap, 'must be an attribute object {id, attribute?}');
          else if (attribute.id === undefined) report.error(at(ap, 'id'), 'required');
          else checkUri(report, attribute.id, at(ap, 'id'));
        });
      }
      if (element.children !== undefined) {
        checkArray(report, element.children, at(ep, 'children'), (child, cp) => checkUri(report, child, cp));
      }
    });
  });
}

function checkEpcisHeader(report: Report, value: unknown): void {
  const path = '/epcisHeader';
  if (!isRecord(value)) {
    report.error(path, 'must be an object');
    return;
  }
  checkKeys(report, value, new Set(['epcisMasterData']), path, 'epcisHeader');
  const masterData = value.epcisMasterData;
  if (masterData === undefined) return;
  if (!isRecord(masterData)) {
    report.error(at(path, 'epcisMasterData'), 'must be an object');
    return;
  }
  checkKeys(report, masterData, new Set(['vocabularyList']), at(path, 'epcisMasterData'), 'epcisMasterData');
  if (masterData.vocabularyList !== undefined) {
    checkVocabularyList(report, masterData.vocabularyList, at(path, 'epcisMasterData', 'vocabularyList'));
  }
}

/** Returns the object at `doc[key]`, or reports it (missing / not an object) and returns undefined. */
function objectAt(
  report: Report,
  doc: Record<string, unknown>,
  key: string,
  path: string,
  shape: string,
): Record<string, unknown> | undefined {
  const value = doc[key];
  if (isRecord(value)) return value;
  report.error(path, value === undefined ? 'required' : `must be an object ${shape}`);
  return undefined;
}

function validateDocument(report: Report, doc: Record<string, unknown>, out: Located): void {
  const type = doc.type;
  if (typeof type === 'string' && isDocumentTypeVariant(type)) fixDocumentType(report, doc, type);
  else if (type !== 'EPCISDocument') report.error('/type', `${DOCUMENT_TYPES_MESSAGE}, got ${JSON.stringify(type)}`);
  checkKeys(report, doc, DOCUMENT_KEYS, '', 'an EPCISDocument');
  fillDocumentHeader(report, doc);
  checkCommonHeader(report, doc);
  for (const key of ['instanceIdentifier', 'sender', 'receiver']) {
    if (doc[key] !== undefined) checkString(report, doc[key], at('', key));
  }
  if (doc.epcisHeader !== undefined) checkEpcisHeader(report, doc.epcisHeader);
  const body = objectAt(report, doc, 'epcisBody', '/epcisBody', '{eventList}');
  if (body === undefined) return;
  checkKeys(report, body, new Set(['eventList']), '/epcisBody', 'epcisBody');
  collectEvents(report, body.eventList, '/epcisBody/eventList', out);
}

function validateQueryDocument(report: Report, doc: Record<string, unknown>, out: Located): void {
  if (doc.type !== 'EPCISQueryDocument')
    report.error('/type', `${DOCUMENT_TYPES_MESSAGE}, got ${JSON.stringify(doc.type)}`);
  checkKeys(report, doc, QUERY_DOCUMENT_KEYS, '', 'an EPCISQueryDocument');
  checkCommonHeader(report, doc);
  const body = objectAt(report, doc, 'epcisBody', '/epcisBody', '{queryResults}');
  if (body === undefined) return;
  checkKeys(report, body, new Set(['queryResults']), '/epcisBody', 'epcisBody');
  const resultsPath = '/epcisBody/queryResults';
  const results = objectAt(report, body, 'queryResults', resultsPath, '{queryName, resultsBody}');
  if (results === undefined) return;
  checkKeys(report, results, new Set(['queryName', 'subscriptionID', 'resultsBody']), resultsPath, 'queryResults');
  if (results.queryName === undefined) report.error(at(resultsPath, 'queryName'), 'required');
  else checkString(report, results.queryName, at(resultsPath, 'queryName'));
  if (results.subscriptionID !== undefined)
    checkString(report, results.subscriptionID, at(resultsPath, 'subscriptionID'));
  const bodyPath = at(resultsPath, 'resultsBody');
  const resultsBody = objectAt(report, results, 'resultsBody', bodyPath, '{eventList}');
  if (resultsBody === undefined) return;
  checkKeys(report, resultsBody, new Set(['eventList', 'vocabularyList']), bodyPath, 'resultsBody');
  if (resultsBody.vocabularyList !== undefined) {
    checkVocabularyList(report, resultsBody.vocabularyList, at(bodyPath, 'vocabularyList'));
  }
  collectEvents(report, resultsBody.eventList, at(bodyPath, 'eventList'), out);
}

/**
 * Tells what an object is: a query document, a document (also a mistyped one: it carries
 * `epcisBody` or an EPCISDocument spelling), or, where bare events are allowed, an event.
 */
function shapeOf(
  json: Record<string, unknown>,
  allowBareEvents: boolean,
): 'document' | 'queryDocument' | 'event' | 'unknown' {
  const type = json.type;
  if (type === 'EPCISQueryDocument') return 'queryDocument';
  if (typeof type === 'string' && type.toLowerCase() === 'epcisdocument') return 'document';
  if (isRecord(json.epcisBody)) return 'queryResults' in json.epcisBody ? 'queryDocument' : 'document';
  return allowBareEvents ? 'event' : 'unknown';
}

/** Finds and validates the events of an input (document, query document, bare event or array). */
export function walkInput(report: Report, json: unknown, allowBareEvents: boolean): Located {
  const out = findEvents(report, json, allowBareEvents);
  checkUniqueEventIds(report, out);
  return out;
}

/** An eventID names one event (EPCIS 2.0 §7.4.1): two events of one input may not share it. */
function checkUniqueEventIds(report: Report, located: Located): void {
  const first = new Map<string, string>();
  located.events.forEach((event, i) => {
    const id = event.eventID;
    if (typeof id !== 'string') return;
    const earlier = first.get(id);
    const path = at(located.eventPaths[i] ?? '', 'eventID');
    if (earlier === undefined) first.set(id, path);
    else
      report.error(
        path,
        `eventID ${JSON.stringify(id)} is already used by the event at ${earlier.replace(/\/eventID$/, '')}`,
      );
  });
}

function findEvents(report: Report, json: unknown, allowBareEvents: boolean): Located {
  const out: Located = { kind: 'document', context: undefined, events: [], eventPaths: [] };
  const expected = allowBareEvents
    ? 'must be an EPCISDocument, an EPCISQueryDocument, an EPCIS event or an array of events'
    : 'must be an EPCISDocument or EPCISQueryDocument object';
  if (isArray(json) && allowBareEvents) {
    out.kind = 'events';
    if (json.length === 0) report.error('', 'must hold at least one EPCIS event');
    json.forEach((event, i) => {
      if (!isRecord(event)) report.error(at('', i), 'must be an EPCIS event object');
      else {
        validateEvent(report, event, at('', i));
        out.events.push(event);
        out.eventPaths.push(at('', i));
      }
    });
    // One context is carried for the array: the first event's, as a single bare event's would be.
    out.context = out.events[0]?.['@context'] ?? EPCIS_CONTEXT;
    return out;
  }
  if (!isRecord(json)) {
    report.error('', expected);
    return out;
  }
  switch (shapeOf(json, allowBareEvents)) {
    case 'queryDocument':
      out.kind = 'queryDocument';
      validateQueryDocument(report, json, out);
      break;
    case 'document':
      validateDocument(report, json, out);
      break;
    case 'event':
      out.kind = 'events';
      validateEvent(report, json, '');
      out.events.push(json);
      out.eventPaths.push('');
      // SPEC §10: a bare event without @context is taken with the EPCIS 2.0 context.
      out.context = json['@context'] ?? EPCIS_CONTEXT;
      return out;
    case 'unknown': {
      const bare = typeof json.type === 'string' && json.type.endsWith('Event');
      report.error(
        '/type',
        `${DOCUMENT_TYPES_MESSAGE}${bare ? '; a bare event is accepted only by EpcisObject routes' : ''}, got ${JSON.stringify(json.type)}`,
      );
      return out;
    }
  }
  out.context = json['@context'];
  return out;
}

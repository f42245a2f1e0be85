import { checkVocabulary } from './cbv';
import {
  at,
  checkBizTransactionList,
  checkCertificationInfo,
  checkContext,
  checkDateTime,
  checkEpc,
  checkEpcList,
  checkErrorDeclaration,
  checkIlmd,
  checkLocation,
  checkPersistentDisposition,
  checkQuantityList,
  checkSourceDestList,
  checkUri,
} from './fields';
import { checkOffset } from './lenient';
import { checkSensorElementList } from './sensor';
import { isArray, isExtensionKey, isNonEmptyArray, isUri, suggestedExtensionKey, type Report } from './util';

export const EVENT_TYPES = [
  'ObjectEvent',
  'AggregationEvent',
  'AssociationEvent',
  'TransactionEvent',
  'TransformationEvent',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: unknown): value is EventType =>
  typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);

const ACTIONS = new Set(['ADD', 'OBSERVE', 'DELETE']);

// The keys every event type has (EPCIS 2.0 §7.4.1), then the "why/where" dimensions shared by all
// five types. Per type the standard adds its "what" fields; anything else must be an extension key.
const COMMON = [
  '@context',
  'type',
  'eventTime',
  'recordTime',
  'eventTimeZoneOffset',
  'eventID',
  'errorDeclaration',
  'certificationInfo',
];
// persistentDisposition is added per type: GS1 allows it on Object and Transformation events only.
const CONTEXTUAL = ['bizStep', 'disposition', 'readPoint', 'bizLocation', 'bizTransactionList', 'sourceList', 'destinationList', 'sensorElementList']; // prettier-ignore

const KEYS: Record<EventType, ReadonlySet<string>> = {
  ObjectEvent: new Set([
    ...COMMON,
    ...CONTEXTUAL,
    'persistentDisposition',
    'action',
    'epcList',
    'quantityList',
    'ilmd',
  ]),
  AggregationEvent: new Set([...COMMON, ...CONTEXTUAL, 'action', 'parentID', 'childEPCs', 'childQuantityList']),
  AssociationEvent: new Set([...COMMON, ...CONTEXTUAL, 'action', 'parentID', 'childEPCs', 'childQuantityList']),
  TransactionEvent: new Set([...COMMON, ...CONTEXTUAL, 'action', 'parentID', 'epcList', 'quantityList']),
  // No `action`: a transformation consumes inputs and produces outputs, it does not add or delete.
  TransformationEvent: new Set([
    ...COMMON,
    ...CONTEXTUAL,
    'persistentDisposition',
    'inputEPCList',
    'inputQuantityList',
    'outputEPCList',
    'outputQuantityList',
    'transformationID',
    'ilmd',
  ]),
};
const COMMON_KEYS = new Set(COMMON);
const ALL_KEYS = new Set(Object.values(KEYS).flatMap((keys) => [...keys]));

type FieldCheck = (report: Report, value: unknown, path: string, event: Record<string, unknown>) => void;

/** Value checks of standard event fields; `type` and `eventTimeZoneOffset` are handled apart. */
const FIELDS: ReadonlyMap<string, FieldCheck> = new Map(
  Object.entries<FieldCheck>({
    '@context': (r, v, p) => checkContext(r, v, p),
    eventTime: (r, v, p) => checkDateTime(r, v, p),
    recordTime: (r, v, p) => checkDateTime(r, v, p),
    eventID: (r, v, p) => checkUri(r, v, p),
    certificationInfo: (r, v, p) => checkCertificationInfo(r, v, p),
    errorDeclaration: (r, v, p) => checkErrorDeclaration(r, v, p),
    action: (r, v, p) => {
      if (typeof v !== 'string' || !ACTIONS.has(v)) {
        r.error(p, `must be "ADD", "OBSERVE" or "DELETE" (case-sensitive), got ${JSON.stringify(v)}`);
      }
    },
    bizStep: (r, v, p, e) => checkVocabulary(r, 'bizStep', v, p, (w) => (e.bizStep = w)),
    disposition: (r, v, p, e) => checkVocabulary(r, 'disposition', v, p, (w) => (e.disposition = w)),
    persistentDisposition: (r, v, p) => checkPersistentDisposition(r, v, p),
    readPoint: (r, v, p) => checkLocation(r, v, p, 'readPoint'),
    bizLocation: (r, v, p) => checkLocation(r, v, p, 'bizLocation'),
    bizTransactionList: (r, v, p) => checkBizTransactionList(r, v, p),
    sourceList: (r, v, p) => checkSourceDestList(r, v, p, 'source'),
    destinationList: (r, v, p) => checkSourceDestList(r, v, p, 'destination'),
    sensorElementList: (r, v, p) => checkSensorElementList(r, v, p),
    epcList: (r, v, p) => checkEpcList(r, v, p),
    childEPCs: (r, v, p) => checkEpcList(r, v, p),
    inputEPCList: (r, v, p) => checkEpcList(r, v, p),
    outputEPCList: (r, v, p) => checkEpcList(r, v, p),
    quantityList: (r, v, p) => checkQuantityList(r, v, p),
    childQuantityList: (r, v, p) => checkQuantityList(r, v, p),
    inputQuantityList: (r, v, p) => checkQuantityList(r, v, p),
    outputQuantityList: (r, v, p) => checkQuantityList(r, v, p),
    parentID: (r, v, p) => checkEpc(r, v, p),
    transformationID: (r, v, p) => checkUri(r, v, p),
    ilmd: (r, v, p) => checkIlmd(r, v, p),
  }),
);

function unknownKeyMessage(type: EventType, key: string): string {
  if (type === 'TransformationEvent' && key === 'action') return 'a TransformationEvent has no action';
  if (key === 'ilmd') return 'ilmd is only allowed on ObjectEvent and TransformationEvent';
  if (key === 'persistentDisposition')
    return 'persistentDisposition is only allowed on ObjectEvent and TransformationEvent';
  if (ALL_KEYS.has(key)) return `${key} is not a field of ${type}`;
  return `unknown field "${key}"; extension fields need a prefixed name such as "${suggestedExtensionKey(key)}"`;
}

function requireAction(report: Report, event: Record<string, unknown>, path: string): void {
  if (event.action === undefined) report.error(at(path, 'action'), 'required: "ADD", "OBSERVE" or "DELETE"');
}

/** Aggregation/Association: children name what is (dis)associated; only DELETE may omit them (= all). */
function requireChildren(report: Report, event: Record<string, unknown>, path: string, type: EventType): void {
  if (event.action === 'DELETE' || isNonEmptyArray(event.childEPCs) || isNonEmptyArray(event.childQuantityList)) return;
  report.error(path, `a ${type} needs a non-empty childEPCs or childQuantityList unless action is DELETE`);
}

type Rule = (report: Report, event: Record<string, unknown>, path: string) => void;

const TYPE_RULES: Record<EventType, Rule> = {
  ObjectEvent(report, event, path) {
    requireAction(report, event, path);
    // An ObjectEvent is about objects; a pure sensor observation is about the place it was read at.
    const bySensors = isNonEmptyArray(event.sensorElementList) && event.readPoint !== undefined;
    if (!isNonEmptyArray(event.epcList) && !isNonEmptyArray(event.quantityList) && !bySensors) {
      report.error(
        path,
        'an ObjectEvent needs a non-empty epcList or quantityList, or a sensorElementList with a readPoint',
      );
    }
    // Instance/lot master data is stated when objects come into being (commissioning), i.e. on ADD.
    if (event.ilmd !== undefined && (event.action === 'OBSERVE' || event.action === 'DELETE')) {
      report.error(at(path, 'ilmd'), 'ilmd is only allowed when action is ADD');
    }
  },
  AggregationEvent(report, event, path) {
    requireAction(report, event, path);
    // The standard's text requires the parent on ADD and DELETE; the JSON schema does not say so.
    if ((event.action === 'ADD' || event.action === 'DELETE') && event.parentID === undefined) {
      report.error(at(path, 'parentID'), `required when action is ${event.action}`);
    }
    requireChildren(report, event, path, 'AggregationEvent');
  },
  AssociationEvent(report, event, path) {
    requireAction(report, event, path);
    if (event.parentID === undefined) report.error(at(path, 'parentID'), 'required');
    requireChildren(report, event, path, 'AssociationEvent');
  },
  TransactionEvent(report, event, path) {
    requireAction(report, event, path);
    const list = event.bizTransactionList;
    if (list === undefined)
      report.error(at(path, 'bizTransactionList'), 'required: a TransactionEvent names its business transactions');
    else if (isArray(list) && list.length === 0)
      report.error(at(path, 'bizTransactionList'), 'must hold at least one business transaction');
    // Only a DELETE may leave its objects unnamed (= all of the transaction's), as with children.
    if (event.action !== 'DELETE' && !isNonEmptyArray(event.epcList) && !isNonEmptyArray(event.quantityList))
      report.error(path, 'a TransactionEvent needs a non-empty epcList or quantityList unless action is DELETE');
  },
  TransformationEvent(report, event, path) {
    const hasInput = isNonEmptyArray(event.inputEPCList) || isNonEmptyArray(event.inputQuantityList);
    const hasOutput = isNonEmptyArray(event.outputEPCList) || isNonEmptyArray(event.outputQuantityList);
    // A transformation split over several events links its halves through transformationID.
    if ((hasInput && hasOutput) || ((hasInput || hasOutput) && event.transformationID !== undefined)) return;
    report.error(
      path,
      'a TransformationEvent needs at least one input (inputEPCList/inputQuantityList) and one output (outputEPCList/outputQuantityList), or one of them plus transformationID',
    );
  },
};

/** Validates one EPCIS event found at JSON Pointer `path`; lenient corrections are written into `event`. */
export function validateEvent(report: Report, event: Record<string, unknown>, path: string): void {
  const type = event.type;
  // EPCIS 2.0 §7.4.6 / the schema's extension branch: an event type of one's own, named by a URI.
  const extension = !isEventType(type) && typeof type === 'string' && type.includes(':') && isUri(type);
  if (type === undefined) {
    report.error(at(path, 'type'), `required: one of ${EVENT_TYPES.join(', ')} or an extension event type URI`);
  } else if (!isEventType(type) && !extension) {
    report.error(
      at(path, 'type'),
      `must be one of ${EVENT_TYPES.join(', ')} or an extension event type URI, got ${JSON.stringify(type)}`,
    );
  }
  const eventType = isEventType(type) ? type : undefined;
  for (const [key, value] of Object.entries(event)) {
    if (key === 'type' || key === 'eventTimeZoneOffset') continue;
    // Of an event of unknown type only the fields common to all events can be judged; an
    // extension event type defines its own fields, which are its owner's to check.
    const known = eventType === undefined ? COMMON_KEYS : KEYS[eventType];
    if (known.has(key)) FIELDS.get(key)?.(report, value, at(path, key), event);
    else if (eventType !== undefined && !isExtensionKey(key))
      report.error(at(path, key), unknownKeyMessage(eventType, key));
  }
  if (event.eventTime === undefined) report.error(at(path, 'eventTime'), 'required');
  checkOffset(report, event, at(path, 'eventTimeZoneOffset'));
  if (eventType !== undefined) TYPE_RULES[eventType](report, event, path);
}

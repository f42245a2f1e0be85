import { describe, expect, it } from 'vitest';
import { STRICT_OBJECT, checkFirstEvent, errorPaths, errorsOf, valueOf } from './helpers';

type Event = Record<string, unknown>;
interface Case {
  name: string;
  fixture: string;
  mutate: (event: Event) => void;
  /** Path below the event (`''` = the event itself). */
  path: string;
}

const OBJECT = 'Example_9.6.1-ObjectEvent.jsonld';
const AGGREGATION = 'Example_9.6.3-AggregationEvent.jsonld';
const ASSOCIATION = 'AssociationEvent_AssociationEvent-a.jsonld';
const TRANSACTION = 'WithFullCombinationOfFields_transaction_event_all_possible_fields.jsonld';
const TRANSFORMATION = 'Example_9.6.4-TransformationEvent.jsonld';
const EVENT = '/epcisBody/eventList/0';

const commonCases: Case[] = [
  { name: 'type missing', fixture: OBJECT, mutate: (e) => delete e.type, path: '/type' },
  { name: 'type not an EPCIS event type', fixture: OBJECT, mutate: (e) => (e.type = 'SensorEvent'), path: '/type' },
  { name: 'type in the wrong case', fixture: OBJECT, mutate: (e) => (e.type = 'objectEvent'), path: '/type' },
  { name: 'eventTime missing', fixture: OBJECT, mutate: (e) => delete e.eventTime, path: '/eventTime' },
  {
    name: 'eventTime without offset',
    fixture: OBJECT,
    mutate: (e) => (e.eventTime = '2005-04-03T20:33:31.116'),
    path: '/eventTime',
  },
  { name: 'eventTime not a date', fixture: OBJECT, mutate: (e) => (e.eventTime = 'today'), path: '/eventTime' },
  { name: 'eventTime a number', fixture: OBJECT, mutate: (e) => (e.eventTime = 1714557600000), path: '/eventTime' },
  {
    name: 'eventTime hour 24',
    fixture: OBJECT,
    mutate: (e) => (e.eventTime = '2005-04-03T24:00:00Z'),
    path: '/eventTime',
  },
  {
    name: 'eventTimeZoneOffset missing',
    fixture: OBJECT,
    mutate: (e) => delete e.eventTimeZoneOffset,
    path: '/eventTimeZoneOffset',
  },
  {
    name: 'offset beyond +14:00',
    fixture: OBJECT,
    mutate: (e) => (e.eventTimeZoneOffset = '+15:00'),
    path: '/eventTimeZoneOffset',
  },
  {
    name: 'offset +14:30',
    fixture: OBJECT,
    mutate: (e) => (e.eventTimeZoneOffset = '+14:30'),
    path: '/eventTimeZoneOffset',
  },
  {
    name: 'offset without sign',
    fixture: OBJECT,
    mutate: (e) => (e.eventTimeZoneOffset = '06:00'),
    path: '/eventTimeZoneOffset',
  },
  {
    name: 'offset without colon (strict)',
    fixture: OBJECT,
    mutate: (e) => (e.eventTimeZoneOffset = '+0000'),
    path: '/eventTimeZoneOffset',
  },
  { name: 'offset "Z"', fixture: OBJECT, mutate: (e) => (e.eventTimeZoneOffset = 'Z'), path: '/eventTimeZoneOffset' },
  {
    name: 'offset minutes 60',
    fixture: OBJECT,
    mutate: (e) => (e.eventTimeZoneOffset = '-05:60'),
    path: '/eventTimeZoneOffset',
  },
  {
    name: 'recordTime not a date-time',
    fixture: OBJECT,
    mutate: (e) => (e.recordTime = '2005-04-03'),
    path: '/recordTime',
  },
  { name: 'eventID not a URI', fixture: OBJECT, mutate: (e) => (e.eventID = '1234'), path: '/eventID' },
  {
    name: 'certificationInfo not a URI',
    fixture: OBJECT,
    mutate: (e) => (e.certificationInfo = 'ABC 123'),
    path: '/certificationInfo',
  },
  {
    name: 'certificationInfo list with a non-URI',
    fixture: OBJECT,
    mutate: (e) => (e.certificationInfo = ['https://example.org/c/1', 'c2']),
    path: '/certificationInfo/1',
  },
  { name: 'event @context not a URI', fixture: OBJECT, mutate: (e) => (e['@context'] = 'epcis'), path: '/@context' },
  { name: 'unknown unprefixed key', fixture: OBJECT, mutate: (e) => (e.myField = 'x'), path: '/myField' },
  {
    name: 'key with a space before the colon',
    fixture: OBJECT,
    mutate: (e) => (e['my field:x'] = 1),
    path: '/my field:x',
  },
  { name: 'a field of another event type', fixture: OBJECT, mutate: (e) => (e.childEPCs = []), path: '/childEPCs' },
  { name: 'ilmd on an AggregationEvent', fixture: AGGREGATION, mutate: (e) => (e.ilmd = {}), path: '/ilmd' },
  { name: 'action in lower case', fixture: OBJECT, mutate: (e) => (e.action = 'observe'), path: '/action' },
  { name: 'action not an EPCIS action', fixture: OBJECT, mutate: (e) => (e.action = 'UPDATE'), path: '/action' },
  { name: 'action not a string', fixture: OBJECT, mutate: (e) => (e.action = 1), path: '/action' },
];

const typeCases: Case[] = [
  // ObjectEvent
  { name: 'ObjectEvent without action', fixture: OBJECT, mutate: (e) => delete e.action, path: '/action' },
  { name: 'ObjectEvent without what', fixture: OBJECT, mutate: (e) => delete e.epcList, path: '' },
  { name: 'ObjectEvent with an empty epcList only', fixture: OBJECT, mutate: (e) => (e.epcList = []), path: '' },
  {
    name: 'ObjectEvent with sensors but no readPoint',
    fixture: 'WithSensorData_SensorDataExample3.jsonld',
    mutate: (e) => delete e.readPoint,
    path: '',
  },
  {
    name: 'ObjectEvent with an empty quantityList only',
    fixture: 'Example_9.6.2-ObjectEvent.jsonld',
    mutate: (e) => (e.quantityList = []),
    path: '',
  },
  {
    name: 'ObjectEvent OBSERVE with ilmd',
    fixture: OBJECT,
    mutate: (e) => (e.ilmd = { 'example:lot': '1' }),
    path: '/ilmd',
  },
  {
    name: 'ObjectEvent DELETE with ilmd',
    fixture: OBJECT,
    mutate: (e) => Object.assign(e, { action: 'DELETE', ilmd: { 'example:lot': '1' } }),
    path: '/ilmd',
  },
  // AggregationEvent
  { name: 'AggregationEvent without action', fixture: AGGREGATION, mutate: (e) => delete e.action, path: '/action' },
  {
    name: 'AggregationEvent ADD without parentID',
    fixture: AGGREGATION,
    mutate: (e) => Object.assign(e, { action: 'ADD', parentID: undefined }),
    path: '/parentID',
  },
  {
    name: 'AggregationEvent DELETE without parentID',
    fixture: AGGREGATION,
    mutate: (e) => Object.assign(e, { action: 'DELETE', parentID: undefined }),
    path: '/parentID',
  },
  {
    name: 'AggregationEvent OBSERVE without children',
    fixture: AGGREGATION,
    mutate: (e) => Object.assign(e, { childEPCs: undefined, childQuantityList: [] }),
    path: '',
  },
  {
    name: 'AggregationEvent parentID not a URI',
    fixture: AGGREGATION,
    mutate: (e) => (e.parentID = '3174257BF4499602D2000000'),
    path: '/parentID',
  },
  // AssociationEvent
  { name: 'AssociationEvent without action', fixture: ASSOCIATION, mutate: (e) => delete e.action, path: '/action' },
  {
    name: 'AssociationEvent without parentID',
    fixture: ASSOCIATION,
    mutate: (e) => delete e.parentID,
    path: '/parentID',
  },
  { name: 'AssociationEvent ADD without children', fixture: ASSOCIATION, mutate: (e) => delete e.childEPCs, path: '' },
  { name: 'AssociationEvent with an epcList', fixture: ASSOCIATION, mutate: (e) => (e.epcList = []), path: '/epcList' },
  // TransactionEvent
  { name: 'TransactionEvent without action', fixture: TRANSACTION, mutate: (e) => delete e.action, path: '/action' },
  {
    name: 'TransactionEvent without bizTransactionList',
    fixture: TRANSACTION,
    mutate: (e) => delete e.bizTransactionList,
    path: '/bizTransactionList',
  },
  {
    name: 'TransactionEvent with an empty bizTransactionList',
    fixture: TRANSACTION,
    mutate: (e) => (e.bizTransactionList = []),
    path: '/bizTransactionList',
  },
  { name: 'TransactionEvent with ilmd', fixture: TRANSACTION, mutate: (e) => (e.ilmd = {}), path: '/ilmd' },
  // TransformationEvent
  {
    name: 'TransformationEvent with an action',
    fixture: TRANSFORMATION,
    mutate: (e) => (e.action = 'ADD'),
    path: '/action',
  },
  {
    name: 'TransformationEvent without outputs',
    fixture: TRANSFORMATION,
    mutate: (e) => delete e.outputEPCList,
    path: '',
  },
  {
    name: 'TransformationEvent without inputs',
    fixture: TRANSFORMATION,
    mutate: (e) => Object.assign(e, { inputEPCList: [], inputQuantityList: undefined }),
    path: '',
  },
  {
    name: 'TransformationEvent with neither, only transformationID',
    fixture: TRANSFORMATION,
    mutate: (e) =>
      Object.assign(e, {
        inputEPCList: [],
        inputQuantityList: [],
        outputEPCList: [],
        transformationID: 'urn:epc:id:gdti:0614141.12345.400',
      }),
    path: '',
  },
  {
    name: 'TransformationEvent transformationID not a URI',
    fixture: TRANSFORMATION,
    mutate: (e) => (e.transformationID = 'T1'),
    path: '/transformationID',
  },
  {
    // GS1 allows persistentDisposition on Object and Transformation events only.
    name: 'persistentDisposition on an AggregationEvent',
    fixture: AGGREGATION,
    mutate: (e) => (e.persistentDisposition = { set: ['completeness_verified'] }),
    path: '/persistentDisposition',
  },
];

describe.each([
  ['common event rules', commonCases],
  ['per-type rules', typeCases],
])('%s', (_title, cases) => {
  it.each(cases)('refuses $name at $path', ({ fixture, mutate, path }) => {
    // JSON turns `undefined` members into absent ones, as a client's body would have them.
    const cleaned = (e: Event): void => {
      mutate(e);
      for (const key of Object.keys(e)) if (e[key] === undefined) delete e[key];
    };
    expect(errorPaths(checkFirstEvent(fixture, cleaned))).toContain(EVENT + path);
    expect(errorPaths(checkFirstEvent(fixture, cleaned, STRICT_OBJECT))).toContain(EVENT + path);
  });
});

const acceptedCases: Omit<Case, 'path'>[] = [
  { name: 'offset -14:00 and +14:00', fixture: OBJECT, mutate: (e) => (e.eventTimeZoneOffset = '-14:00') },
  { name: 'eventTime with lower-case t and z', fixture: OBJECT, mutate: (e) => (e.eventTime = '2005-04-03t20:33:31z') },
  { name: 'recordTime as a date-time', fixture: OBJECT, mutate: (e) => (e.recordTime = '2005-04-03T20:33:32Z') },
  { name: 'a leap day', fixture: OBJECT, mutate: (e) => (e.eventTime = '2024-02-29T12:00:00+01:00') },
  {
    name: 'certificationInfo as a list',
    fixture: OBJECT,
    mutate: (e) => (e.certificationInfo = ['https://example.org/c/1']),
  },
  {
    name: 'an extension key as a full URI',
    fixture: OBJECT,
    mutate: (e) => (e['https://example.com/ns#temp'] = { any: [1] }),
  },
  {
    name: 'an event-level @context',
    fixture: OBJECT,
    mutate: (e) => (e['@context'] = [{ ex2: 'https://example.com/ex2/' }]),
  },
  {
    name: 'an ObjectEvent with a quantityList only',
    fixture: 'Example_9.6.2-ObjectEvent.jsonld',
    mutate: () => undefined,
  },
  {
    name: 'an ObjectEvent ADD with ilmd',
    fixture: OBJECT,
    mutate: (e) => Object.assign(e, { action: 'ADD', ilmd: { 'example:lot': 'L1' } }),
  },
  { name: 'AggregationEvent OBSERVE without parentID', fixture: AGGREGATION, mutate: (e) => delete e.parentID },
  {
    name: 'AggregationEvent DELETE without children',
    fixture: AGGREGATION,
    mutate: (e) => {
      e.action = 'DELETE';
      delete e.childEPCs;
      delete e.childQuantityList;
    },
  },
  {
    name: 'AssociationEvent DELETE without children',
    fixture: 'AssociationEvent_AssociationEvent-d.jsonld',
    mutate: () => undefined,
  },
  {
    name: 'TransformationEvent with outputs only plus transformationID',
    fixture: TRANSFORMATION,
    mutate: (e) => {
      delete e.inputEPCList;
      delete e.inputQuantityList;
      e.transformationID = 'urn:epc:id:gdti:0614141.12345.400';
    },
  },
];

describe('accepted variants', () => {
  it.each(acceptedCases)('accepts $name', ({ fixture, mutate }) => {
    valueOf(checkFirstEvent(fixture, mutate));
  });
});

describe('error messages', () => {
  it('say why a TransformationEvent action is refused', () => {
    const errors = errorsOf(checkFirstEvent(TRANSFORMATION, (e) => (e.action = 'ADD')));
    expect(errors).toEqual([{ path: `${EVENT}/action`, message: 'a TransformationEvent has no action' }]);
  });

  it('suggest a prefixed name for an unknown key', () => {
    const errors = errorsOf(checkFirstEvent(OBJECT, (e) => (e.myField = 1)));
    expect(errors[0]?.message).toContain('example:myField');
  });

  it('check only common fields of an event of unknown type', () => {
    const errors = errorsOf(checkFirstEvent(OBJECT, (e) => (e.type = 'SensorEvent')));
    expect(errors.map((e) => e.path)).toEqual([`${EVENT}/type`]);
  });
});

import { describe, expect, it } from 'vitest';
import { LENIENT_OBJECT, checkFirstEvent, errorPaths, item, list, obj, valueOf } from './helpers';

type Event = Record<string, unknown>;
interface Case {
  name: string;
  fixture: string;
  mutate: (event: Event) => void;
  path: string;
}

const OBJECT = 'Example_9.6.1-ObjectEvent.jsonld';
const QUANTITY = 'Example_9.6.2-ObjectEvent.jsonld';
const AGGREGATION = 'Example_9.6.3-AggregationEvent.jsonld';
const TRANSFORMATION = 'Example_9.6.4-TransformationEvent.jsonld';
const ERROR_DECLARATION = 'WithErrorDeclaration_ErrorDeclarationAndCorrectiveEvent.jsonld';
const ALL_FIELDS = 'WithFullCombinationOfFields_object_event_all_possible_fields.jsonld';
const EVENT = '/epcisBody/eventList/0';
const HEX = '3074257BF7194E4000001A85';

const identifierCases: Case[] = [
  { name: 'raw hex in epcList', fixture: OBJECT, mutate: (e) => (e.epcList = [HEX]), path: '/epcList/0' },
  {
    name: 'epcList not an array',
    fixture: OBJECT,
    mutate: (e) => (e.epcList = 'urn:epc:id:sgtin:0614141.107346.2017'),
    path: '/epcList',
  },
  {
    name: 'a URI with a space in epcList',
    fixture: OBJECT,
    mutate: (e) => list(e.epcList).push('urn:epc:id:sgtin:0614141 .1.2'),
    path: '/epcList/2',
  },
  {
    name: 'a bad percent-escape in epcList',
    fixture: OBJECT,
    mutate: (e) => (e.epcList = ['urn:x:%zz']),
    path: '/epcList/0',
  },
  { name: 'raw hex in childEPCs', fixture: AGGREGATION, mutate: (e) => (e.childEPCs = [HEX]), path: '/childEPCs/0' },
  {
    name: 'raw hex in inputEPCList',
    fixture: TRANSFORMATION,
    mutate: (e) => (e.inputEPCList = [HEX]),
    path: '/inputEPCList/0',
  },
  {
    name: 'raw hex in outputEPCList',
    fixture: TRANSFORMATION,
    mutate: (e) => list(e.outputEPCList).push(HEX),
    path: '/outputEPCList/4',
  },
  { name: 'readPoint.id raw hex', fixture: OBJECT, mutate: (e) => (e.readPoint = { id: HEX }), path: '/readPoint/id' },
  { name: 'readPoint without id', fixture: OBJECT, mutate: (e) => (e.readPoint = {}), path: '/readPoint/id' },
  {
    name: 'readPoint a string',
    fixture: OBJECT,
    mutate: (e) => (e.readPoint = 'urn:epc:id:sgln:0614141.07346.1234'),
    path: '/readPoint',
  },
  {
    name: 'readPoint unknown key',
    fixture: OBJECT,
    mutate: (e) => (obj(e.readPoint).name = 'Dock'),
    path: '/readPoint/name',
  },
  {
    name: 'bizLocation.id not a URI',
    fixture: QUANTITY,
    mutate: (e) => (e.bizLocation = { id: 'warehouse 7' }),
    path: '/bizLocation/id',
  },
];

const quantityCases: Case[] = [
  {
    name: 'epcClass missing',
    fixture: QUANTITY,
    mutate: (e) => delete item(e, 'quantityList').epcClass,
    path: '/quantityList/0/epcClass',
  },
  {
    name: 'epcClass raw hex',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'quantityList').epcClass = HEX),
    path: '/quantityList/0/epcClass',
  },
  {
    name: 'quantity a string',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'quantityList').quantity = '200'),
    path: '/quantityList/0/quantity',
  },
  {
    name: 'uom in lower case',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'quantityList').uom = 'kgm'),
    path: '/quantityList/0/uom',
  },
  {
    name: 'uom of four characters',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'quantityList').uom = 'KGMS'),
    path: '/quantityList/0/uom',
  },
  {
    name: 'uom without quantity',
    fixture: QUANTITY,
    mutate: (e) => delete item(e, 'quantityList').quantity,
    path: '/quantityList/0/uom',
  },
  {
    name: 'unknown key in a quantity',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'quantityList').unit = 'kg'),
    path: '/quantityList/0/unit',
  },
  {
    name: 'quantity element a string',
    fixture: QUANTITY,
    mutate: (e) => (e.quantityList = ['urn:epc:class:lgtin:4012345.012345.998877']),
    path: '/quantityList/0',
  },
  {
    name: 'childQuantityList uom',
    fixture: AGGREGATION,
    mutate: (e) => (item(e, 'childQuantityList', 1).uom = 'kg'),
    path: '/childQuantityList/1/uom',
  },
  {
    name: 'inputQuantityList epcClass',
    fixture: TRANSFORMATION,
    mutate: (e) => (item(e, 'inputQuantityList').epcClass = 'lgtin'),
    path: '/inputQuantityList/0/epcClass',
  },
  {
    name: 'outputQuantityList quantity',
    fixture: ERROR_DECLARATION,
    mutate: (e) => (item(e, 'outputQuantityList').quantity = null),
    path: '/outputQuantityList/0/quantity',
  },
];

const nestedCases: Case[] = [
  {
    name: 'bizTransaction missing',
    fixture: OBJECT,
    mutate: (e) => delete item(e, 'bizTransactionList').bizTransaction,
    path: '/bizTransactionList/0/bizTransaction',
  },
  {
    name: 'bizTransaction not a URI',
    fixture: OBJECT,
    mutate: (e) => (item(e, 'bizTransactionList').bizTransaction = 'PO 12345678'),
    path: '/bizTransactionList/0/bizTransaction',
  },
  {
    name: 'bizTransaction type not a CBV word',
    fixture: OBJECT,
    mutate: (e) => (item(e, 'bizTransactionList').type = 'purchase_order'),
    path: '/bizTransactionList/0/type',
  },
  {
    name: 'unknown key in a bizTransaction',
    fixture: OBJECT,
    mutate: (e) => (item(e, 'bizTransactionList').id = 'x'),
    path: '/bizTransactionList/0/id',
  },
  {
    name: 'bizTransactionList not an array',
    fixture: OBJECT,
    mutate: (e) => (e.bizTransactionList = {}),
    path: '/bizTransactionList',
  },
  {
    name: 'source without type',
    fixture: QUANTITY,
    mutate: (e) => delete item(e, 'sourceList').type,
    path: '/sourceList/0/type',
  },
  {
    name: 'source without source',
    fixture: QUANTITY,
    mutate: (e) => delete item(e, 'sourceList').source,
    path: '/sourceList/0/source',
  },
  {
    name: 'destination not a URI',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'destinationList', 1).destination = 'Dock 4'),
    path: '/destinationList/1/destination',
  },
  {
    name: 'destination type not a CBV word',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'destinationList').type = 'owner'),
    path: '/destinationList/0/type',
  },
  {
    name: 'source carrying destination',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'sourceList').destination = 'urn:x:y'),
    path: '/sourceList/0/destination',
  },
  {
    name: 'sourceList not an array',
    fixture: QUANTITY,
    mutate: (e) => (e.sourceList = 'urn:x:y'),
    path: '/sourceList',
  },
  {
    name: 'errorDeclaration not an object',
    fixture: ERROR_DECLARATION,
    mutate: (e) => (e.errorDeclaration = true),
    path: '/errorDeclaration',
  },
  {
    name: 'declarationTime missing',
    fixture: ERROR_DECLARATION,
    mutate: (e) => delete obj(e.errorDeclaration).declarationTime,
    path: '/errorDeclaration/declarationTime',
  },
  {
    name: 'declarationTime without offset',
    fixture: ERROR_DECLARATION,
    mutate: (e) => (obj(e.errorDeclaration).declarationTime = '2020-01-15T00:00:00'),
    path: '/errorDeclaration/declarationTime',
  },
  {
    name: 'error reason not a CBV word',
    fixture: ERROR_DECLARATION,
    mutate: (e) => (obj(e.errorDeclaration).reason = 'typo'),
    path: '/errorDeclaration/reason',
  },
  {
    name: 'correctiveEventIDs not URIs',
    fixture: ERROR_DECLARATION,
    mutate: (e) => (obj(e.errorDeclaration).correctiveEventIDs = ['404d95fc']),
    path: '/errorDeclaration/correctiveEventIDs/0',
  },
  {
    name: 'unknown key in errorDeclaration',
    fixture: ERROR_DECLARATION,
    mutate: (e) => (obj(e.errorDeclaration).note = 'x'),
    path: '/errorDeclaration/note',
  },
  {
    name: 'persistentDisposition set word unknown',
    fixture: ALL_FIELDS,
    mutate: (e) => (obj(e.persistentDisposition).set = ['verified']),
    path: '/persistentDisposition/set/0',
  },
  {
    name: 'persistentDisposition unset not an array',
    fixture: ALL_FIELDS,
    mutate: (e) => (obj(e.persistentDisposition).unset = 'completeness_inferred'),
    path: '/persistentDisposition/unset',
  },
  {
    name: 'unknown key in persistentDisposition',
    fixture: ALL_FIELDS,
    mutate: (e) => (obj(e.persistentDisposition).add = []),
    path: '/persistentDisposition/add',
  },
  {
    name: 'unprefixed key in ilmd',
    fixture: TRANSFORMATION,
    mutate: (e) => (obj(e.ilmd).lotNumber = 'L1'),
    path: '/ilmd/lotNumber',
  },
  { name: 'ilmd not an object', fixture: TRANSFORMATION, mutate: (e) => (e.ilmd = ['x']), path: '/ilmd' },
];

describe.each([
  ['identifiers', identifierCases],
  ['quantity elements', quantityCases],
  ['nested objects', nestedCases],
])('%s', (_title, cases) => {
  it.each(cases)('refuses $name at $path', ({ fixture, mutate, path }) => {
    expect(errorPaths(checkFirstEvent(fixture, mutate))).toContain(EVENT + path);
    // Lenient mode corrects only the listed deviations; these stay errors.
    expect(errorPaths(checkFirstEvent(fixture, mutate, LENIENT_OBJECT))).toContain(EVENT + path);
  });
});

const acceptedCases: Omit<Case, 'path'>[] = [
  {
    name: 'a GS1 Digital Link in epcList',
    fixture: OBJECT,
    mutate: (e) => (e.epcList = ['https://id.gs1.org/01/09521234543213/21/12345']),
  },
  {
    name: 'a percent-escaped URI',
    fixture: OBJECT,
    mutate: (e) => (e.epcList = ['urn:epc:id:sgtin:0614141.107346.A%2FB']),
  },
  {
    name: 'an EPC pattern as epcClass',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'quantityList').epcClass = 'urn:epc:idpat:sgtin:4012345.098765.*'),
  },
  {
    name: 'a quantity element without quantity and uom',
    fixture: QUANTITY,
    mutate: (e) => (e.quantityList = [{ epcClass: 'urn:epc:class:lgtin:4012345.012345.998877' }]),
  },
  { name: 'a prefixed key in readPoint', fixture: OBJECT, mutate: (e) => (obj(e.readPoint)['example:dock'] = 4) },
  { name: 'a bizTransaction without type', fixture: OBJECT, mutate: (e) => delete item(e, 'bizTransactionList').type },
  {
    name: 'a user-defined bizTransaction type URI',
    fixture: OBJECT,
    mutate: (e) => (item(e, 'bizTransactionList').type = 'https://example.com/btt/contract'),
  },
  {
    name: 'a CBV web URI as source type',
    fixture: QUANTITY,
    mutate: (e) => (item(e, 'sourceList').type = 'https://ref.gs1.org/cbv/SDT-owning_party'),
  },
  {
    name: 'an errorDeclaration with only declarationTime',
    fixture: ERROR_DECLARATION,
    mutate: (e) => (e.errorDeclaration = { declarationTime: '2020-01-15T00:00:00Z' }),
  },
];

describe('accepted field variants', () => {
  it.each(acceptedCases)('accepts $name', ({ fixture, mutate }) => {
    valueOf(checkFirstEvent(fixture, mutate));
  });
});

import { describe, expect, it } from 'vitest';
import { validateEpcis } from '../../../../server/events/epcis';
import {
  STRICT_MESSAGE,
  STRICT_OBJECT,
  bareObjectEvent,
  documentOf,
  errorPaths,
  errorsOf,
  eventOf,
  list,
  load,
  obj,
  valueOf,
} from './helpers';

type Doc = Record<string, unknown>;
interface Case {
  name: string;
  mutate: (doc: Doc) => void;
  path: string;
}

const body = (doc: Doc): Doc => obj(doc.epcisBody);
const results = (doc: Doc): Doc => obj(body(doc).queryResults);
const resultsBody = (doc: Doc): Doc => obj(results(doc).resultsBody);

const documentCases: Case[] = [
  { name: '@context missing', mutate: (d) => delete d['@context'], path: '/@context' },
  { name: '@context a number', mutate: (d) => (d['@context'] = 42), path: '/@context' },
  {
    name: '@context entry not a URI',
    mutate: (d) => (d['@context'] = ['https://ref.gs1.org/x', 'not a uri']),
    path: '/@context/1',
  },
  { name: 'type missing', mutate: (d) => delete d.type, path: '/type' },
  { name: 'type another value', mutate: (d) => (d.type = 'EPCISMasterDataDocument'), path: '/type' },
  { name: 'type in the wrong case (strict)', mutate: (d) => (d.type = 'EpcisDocument'), path: '/type' },
  { name: 'schemaVersion missing (strict)', mutate: (d) => delete d.schemaVersion, path: '/schemaVersion' },
  { name: 'schemaVersion a number', mutate: (d) => (d.schemaVersion = 2), path: '/schemaVersion' },
  { name: 'schemaVersion not dotted digits', mutate: (d) => (d.schemaVersion = 'v2.0'), path: '/schemaVersion' },
  { name: 'creationDate missing (strict)', mutate: (d) => delete d.creationDate, path: '/creationDate' },
  {
    name: 'creationDate without offset',
    mutate: (d) => (d.creationDate = '2005-07-11T11:30:47'),
    path: '/creationDate',
  },
  { name: 'creationDate month 13', mutate: (d) => (d.creationDate = '2005-13-11T11:30:47Z'), path: '/creationDate' },
  { name: 'creationDate 30 February', mutate: (d) => (d.creationDate = '2024-02-30T11:30:47Z'), path: '/creationDate' },
  { name: 'creationDate a date only', mutate: (d) => (d.creationDate = '2005-07-11'), path: '/creationDate' },
  { name: 'epcisBody missing', mutate: (d) => delete d.epcisBody, path: '/epcisBody' },
  { name: 'epcisBody an array', mutate: (d) => (d.epcisBody = []), path: '/epcisBody' },
  { name: 'eventList missing', mutate: (d) => delete body(d).eventList, path: '/epcisBody/eventList' },
  { name: 'eventList an object', mutate: (d) => (body(d).eventList = {}), path: '/epcisBody/eventList' },
  {
    name: 'an eventList item not an object',
    mutate: (d) => (body(d).eventList = ['x']),
    path: '/epcisBody/eventList/0',
  },
  { name: 'unknown unprefixed top-level key', mutate: (d) => (d.comment = 'hi'), path: '/comment' },
  { name: 'unknown key in epcisBody', mutate: (d) => (body(d).events = []), path: '/epcisBody/events' },
  { name: 'id not a URI', mutate: (d) => (d.id = 'document 1'), path: '/id' },
  { name: 'sender not a string', mutate: (d) => (d.sender = 5), path: '/sender' },
  { name: 'epcisHeader not an object', mutate: (d) => (d.epcisHeader = 'x'), path: '/epcisHeader' },
  {
    name: 'unknown key in epcisHeader',
    mutate: (d) => (d.epcisHeader = { masterData: {} }),
    path: '/epcisHeader/masterData',
  },
  {
    name: 'master data vocabulary without type',
    mutate: (d) => (d.epcisHeader = { epcisMasterData: { vocabularyList: [{ vocabularyElementList: [] }] } }),
    path: '/epcisHeader/epcisMasterData/vocabularyList/0/type',
  },
  {
    name: 'master data element id not a URI',
    mutate: (d) =>
      (d.epcisHeader = {
        epcisMasterData: { vocabularyList: [{ type: 'urn:x:y', vocabularyElementList: [{ id: 'dock' }] }] },
      }),
    path: '/epcisHeader/epcisMasterData/vocabularyList/0/vocabularyElementList/0/id',
  },
  { name: 'an invalid event', mutate: (d) => delete eventOf(d, 1).action, path: '/epcisBody/eventList/1/action' },
];

describe('EPCISDocument rules', () => {
  it.each(documentCases)('refuses $name at $path', ({ mutate, path }) => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    mutate(doc);
    expect(errorPaths(validateEpcis(doc, STRICT_MESSAGE))).toContain(path);
    expect(errorPaths(validateEpcis(doc, STRICT_OBJECT))).toContain(path);
  });

  it('accepts top-level extension keys with URI or prefixed names', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    doc['example:note'] = { any: 'thing' };
    doc['https://example.com/vocab/batch'] = 7;
    body(doc)['example:extra'] = true;
    valueOf(validateEpcis(doc, STRICT_MESSAGE));
  });

  it('reports every error, each at its own path', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    delete doc.schemaVersion;
    eventOf(doc, 0).action = 'observe';
    eventOf(doc, 1).eventTimeZoneOffset = '+25:00';
    expect(errorPaths(validateEpcis(doc, STRICT_MESSAGE)).sort()).toEqual([
      '/epcisBody/eventList/0/action',
      '/epcisBody/eventList/1/eventTimeZoneOffset',
      '/schemaVersion',
    ]);
  });

  it('lists the first 100 errors and counts them all (SPEC §13)', () => {
    const broken = Array.from({ length: 150 }, () => ({ ...bareObjectEvent(), action: 'NOPE' }));
    const validation = validateEpcis(documentOf(...broken), STRICT_MESSAGE);
    const errors = errorsOf(validation);
    expect(errors).toHaveLength(100);
    expect(errors[0]?.path).toBe('/epcisBody/eventList/0/action');
    expect(validation.ok ? null : validation.errorCount).toBe(150);
  });

  it('gives every error a message', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    doc.type = 'Foo';
    for (const error of errorsOf(validateEpcis(doc, STRICT_MESSAGE))) expect(error.message.length).toBeGreaterThan(5);
  });
});

const queryCases: Case[] = [
  { name: '@context missing', mutate: (d) => delete d['@context'], path: '/@context' },
  { name: 'sender (not a query document field)', mutate: (d) => (d.sender = 'urn:epc:id:sgln:1.2.3'), path: '/sender' },
  { name: 'schemaVersion not dotted digits', mutate: (d) => (d.schemaVersion = '2.x'), path: '/schemaVersion' },
  { name: 'creationDate not a date-time', mutate: (d) => (d.creationDate = 'yesterday'), path: '/creationDate' },
  { name: 'queryResults missing', mutate: (d) => delete body(d).queryResults, path: '/epcisBody/queryResults' },
  { name: 'queryName missing', mutate: (d) => delete results(d).queryName, path: '/epcisBody/queryResults/queryName' },
  {
    name: 'queryName not a string',
    mutate: (d) => (results(d).queryName = 1),
    path: '/epcisBody/queryResults/queryName',
  },
  {
    name: 'subscriptionID not a string',
    mutate: (d) => (results(d).subscriptionID = 1),
    path: '/epcisBody/queryResults/subscriptionID',
  },
  { name: 'unknown key in queryResults', mutate: (d) => (results(d).name = 'x'), path: '/epcisBody/queryResults/name' },
  {
    name: 'resultsBody missing',
    mutate: (d) => delete results(d).resultsBody,
    path: '/epcisBody/queryResults/resultsBody',
  },
  {
    name: 'eventList missing',
    mutate: (d) => delete resultsBody(d).eventList,
    path: '/epcisBody/queryResults/resultsBody/eventList',
  },
  {
    name: 'an invalid event',
    mutate: (d) => (obj(list(resultsBody(d).eventList)[0]).action = 'ADDED'),
    path: '/epcisBody/queryResults/resultsBody/eventList/0/action',
  },
];

describe('EPCISQueryDocument rules', () => {
  it.each(queryCases)('refuses $name at $path', ({ mutate, path }) => {
    const doc = load('EPCISQueryDocument.jsonld');
    mutate(doc);
    expect(errorPaths(validateEpcis(doc, STRICT_MESSAGE))).toContain(path);
  });

  it('does not require schemaVersion and creationDate (the schema does not)', () => {
    const doc = load('EPCISQueryDocument.jsonld');
    delete doc.schemaVersion;
    delete doc.creationDate;
    valueOf(validateEpcis(doc, STRICT_MESSAGE));
  });

  it('does not take a case variant of EPCISQueryDocument for one', () => {
    const doc = load('EPCISQueryDocument.jsonld');
    doc.type = 'EpcisQueryDocument';
    expect(errorPaths(validateEpcis(doc, STRICT_MESSAGE))).toContain('/type');
  });
});

describe('input shapes on EpcisMessage (documents only)', () => {
  it.each([
    ['an array of events', [bareObjectEvent()]],
    ['a string', 'EPCISDocument'],
    ['null', null],
  ])('refuses %s at the root', (_name, input) => {
    expect(errorPaths(validateEpcis(input, STRICT_MESSAGE))).toEqual(['']);
  });

  it('refuses a bare event at /type, saying bare events need EpcisObject', () => {
    const errors = errorsOf(validateEpcis(bareObjectEvent(), STRICT_MESSAGE));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe('/type');
    expect(errors[0]?.message).toContain('EpcisObject');
  });

  it('refuses an object without type or epcisBody at /type', () => {
    expect(errorPaths(validateEpcis({}, STRICT_MESSAGE))).toEqual(['/type']);
  });
});

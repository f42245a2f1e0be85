import { describe, expect, it } from 'vitest';
import { validateEpcis } from '../../../../server/events/epcis';
import {
  LENIENT_MESSAGE,
  LENIENT_OBJECT,
  STRICT_MESSAGE,
  STRICT_OBJECT,
  eventOf,
  fixtureNames,
  list,
  load,
  obj,
  valueOf,
} from './helpers';

const MODES = { STRICT_MESSAGE, STRICT_OBJECT, LENIENT_MESSAGE, LENIENT_OBJECT };

describe('GS1 sample documents', () => {
  it('are all present (23 files copied from the shared formats)', () => {
    expect(fixtureNames).toHaveLength(23);
  });

  describe.each(Object.entries(MODES))('%s', (_mode, options) => {
    it.each(fixtureNames)('accepts %s without warnings', (name) => {
      const { value, warnings } = valueOf(validateEpcis(load(name), options));
      expect(warnings).toEqual([]);
      expect(value.events.length).toBeGreaterThan(0);
      expect(value.eventPaths).toHaveLength(value.events.length);
    });
  });

  it('returns the input itself as the document on strict routes', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    const { value } = valueOf(validateEpcis(doc, STRICT_MESSAGE));
    expect(value.document).toBe(doc);
    expect(value.kind).toBe('document');
    expect(value.events[1]).toBe(eventOf(doc, 1));
  });

  it('returns a deep-equal copy on lenient routes when nothing was corrected', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    const { value } = valueOf(validateEpcis(doc, LENIENT_MESSAGE));
    expect(value.document).not.toBe(doc);
    expect(value.document).toEqual(load('Example_9.6.1-ObjectEvent.jsonld'));
    expect(value.events[0]).toEqual(eventOf(doc, 0));
  });

  it('lists events in order with their JSON Pointers and carries the document @context', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    const { value } = valueOf(validateEpcis(doc, STRICT_OBJECT));
    expect(value.eventPaths).toEqual(['/epcisBody/eventList/0', '/epcisBody/eventList/1']);
    expect(value.events.map((e) => e.eventID)).toEqual([eventOf(doc, 0).eventID, eventOf(doc, 1).eventID]);
    expect(value.context).toBe(doc['@context']);
  });

  it('finds the events of an EPCISQueryDocument under queryResults.resultsBody', () => {
    const doc = load('EPCISQueryDocument.jsonld');
    const { value } = valueOf(validateEpcis(doc, STRICT_MESSAGE));
    expect(value.kind).toBe('queryDocument');
    expect(value.eventPaths).toEqual([
      '/epcisBody/queryResults/resultsBody/eventList/0',
      '/epcisBody/queryResults/resultsBody/eventList/1',
    ]);
    const results = obj(obj(obj(doc.epcisBody).queryResults).resultsBody);
    expect(value.events[1]).toBe(list(results.eventList)[1]);
  });

  it('accepts a document with an empty eventList (zero events)', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    obj(doc.epcisBody).eventList = [];
    const { value } = valueOf(validateEpcis(doc, STRICT_MESSAGE));
    expect(value.events).toEqual([]);
  });

  it('accepts a document whose @context comes last and that has sender/receiver/instanceIdentifier', () => {
    const doc = load('WithFullCombinationOfFields_object_event_all_possible_fields.jsonld');
    expect(Object.keys(doc).at(-1)).toBe('@context');
    valueOf(validateEpcis(doc, STRICT_MESSAGE));
  });

  it('accepts an epcisHeader with master data', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    doc.epcisHeader = {
      epcisMasterData: {
        vocabularyList: [
          {
            type: 'urn:epcglobal:epcis:vtype:ReadPoint',
            vocabularyElementList: [
              {
                id: 'urn:epc:id:sgln:0614141.07346.1234',
                attributes: [{ id: 'urn:epcglobal:cbv:mda#name', attribute: 'Dock 1' }],
                children: ['urn:epc:id:sgln:0614141.07346.1235'],
              },
            ],
          },
        ],
      },
    };
    valueOf(validateEpcis(doc, STRICT_MESSAGE));
  });
});

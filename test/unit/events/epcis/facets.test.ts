import { describe, expect, it } from 'vitest';
import {
  EPCIS_CONTEXT,
  eventFacets,
  normalizeBizStep,
  toStoredEvent,
  validateEpcis,
} from '../../../../server/events/epcis';
import { STRICT_OBJECT, bareObjectEvent, eventOf, load, valueOf } from './helpers';

const UUID_URN = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DOC_CONTEXT = [EPCIS_CONTEXT, { example: 'http://ns.example.com/epcis/' }];

describe('toStoredEvent', () => {
  it('adds a urn:uuid eventID when the event has none, a new one each time', () => {
    const event = bareObjectEvent();
    const a = toStoredEvent(event, DOC_CONTEXT);
    const b = toStoredEvent(event, DOC_CONTEXT);
    expect(a.eventID).toMatch(UUID_URN);
    expect(b.eventID).toMatch(UUID_URN);
    expect(a.eventID).not.toBe(b.eventID);
    expect(event.eventID).toBeUndefined();
  });

  it('keeps an eventID the sender gave', () => {
    const event = eventOf(load('Example_9.6.1-ObjectEvent.jsonld'));
    expect(toStoredEvent(event, DOC_CONTEXT).eventID).toBe(event.eventID);
  });

  it("sets the document's @context as the first key and keeps every other field", () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    const event = eventOf(doc, 1);
    const stored = toStoredEvent(event, doc['@context']);
    expect(Object.keys(stored)[0]).toBe('@context');
    expect(stored['@context']).toEqual(doc['@context']);
    expect(stored).toEqual({ '@context': doc['@context'], ...event });
  });

  it('returns a deep copy', () => {
    const event = bareObjectEvent();
    const stored = toStoredEvent(event, DOC_CONTEXT);
    (stored.epcList as string[]).push('urn:epc:id:sgtin:0614141.107346.9');
    expect(event.epcList).toHaveLength(1);
  });

  it("keeps an event's own @context, after the document's and without repeats", () => {
    const event = { ...bareObjectEvent(), '@context': [EPCIS_CONTEXT, { ex2: 'https://example.com/ex2/' }] };
    expect(toStoredEvent(event, DOC_CONTEXT)['@context']).toEqual([
      ...DOC_CONTEXT,
      { ex2: 'https://example.com/ex2/' },
    ]);
    expect(toStoredEvent(event, event['@context'])['@context']).toEqual(event['@context']);
  });

  it('assumes the EPCIS 2.0 context when there is none at all', () => {
    const event = bareObjectEvent();
    delete event['@context'];
    expect(toStoredEvent(event, undefined)['@context']).toBe(EPCIS_CONTEXT);
  });

  it('gives bare events without @context the context validateEpcis reports', () => {
    const event = bareObjectEvent();
    delete event['@context'];
    delete event.eventID;
    const { value } = valueOf(validateEpcis([event], STRICT_OBJECT));
    const stored = value.events.map((e) => toStoredEvent(e, value.context));
    expect(stored[0]?.['@context']).toBe(EPCIS_CONTEXT);
    expect(stored[0]?.eventID).toMatch(UUID_URN);
  });
});

describe('eventFacets', () => {
  it('ObjectEvent: type, bare bizStep, epcList, eventTime with microseconds', () => {
    const event = eventOf(load('Example_9.6.1-ObjectEvent.jsonld'), 0);
    expect(eventFacets(event)).toEqual({
      type: 'ObjectEvent',
      bizStep: 'shipping',
      epcs: ['urn:epc:id:sgtin:0614141.107346.2017', 'urn:epc:id:sgtin:0614141.107346.2018'],
      // 2005-04-03T20:33:31.116000-06:00
      eventTime: Date.UTC(2005, 3, 4, 2, 33, 31, 116),
    });
  });

  it('AggregationEvent: parentID and childEPCs', () => {
    const facets = eventFacets(eventOf(load('Example_9.6.3-AggregationEvent.jsonld')));
    expect(facets).toEqual({
      type: 'AggregationEvent',
      bizStep: 'receiving',
      epcs: [
        'urn:epc:id:sscc:0614141.1234567890',
        'urn:epc:id:sgtin:0614141.107346.2017',
        'urn:epc:id:sgtin:0614141.107346.2018',
      ],
      eventTime: Date.UTC(2013, 5, 8, 14, 58, 56, 591),
    });
  });

  it('AssociationEvent: parentID and childEPCs, offset applied', () => {
    const facets = eventFacets(eventOf(load('AssociationEvent_AssociationEvent-a.jsonld')));
    expect(facets).toEqual({
      type: 'AssociationEvent',
      bizStep: 'assembling',
      epcs: ['urn:epc:id:grai:4012345.55555.987', 'urn:epc:id:giai:4000001.12345'],
      eventTime: Date.UTC(2019, 10, 1, 13, 0, 0, 0),
    });
  });

  it('TransactionEvent: parentID and epcList', () => {
    const facets = eventFacets(
      eventOf(load('WithFullCombinationOfFields_transaction_event_all_possible_fields.jsonld')),
    );
    expect(facets.type).toBe('TransactionEvent');
    expect(facets.bizStep).toBe('shipping');
    expect(facets.epcs).toEqual([
      'urn:epc:id:sscc:0614141.1234567890',
      'urn:epc:id:sgtin:0614141.107346.2017',
      'urn:epc:id:sgtin:0614141.107346.2018',
    ]);
    expect(facets.eventTime).toBe(Date.UTC(2005, 3, 4, 2, 33, 31, 116));
  });

  it('TransformationEvent: inputs and outputs, no EPC classes', () => {
    const facets = eventFacets(eventOf(load('Example_9.6.4-TransformationEvent.jsonld')));
    expect(facets.type).toBe('TransformationEvent');
    expect(facets.bizStep).toBe('commissioning');
    expect(facets.epcs).toHaveLength(6);
    expect(facets.epcs).toContain('urn:epc:id:sgtin:4000001.065432.99886655');
    expect(facets.epcs).toContain('urn:epc:id:sgtin:4012345.077889.28');
    expect(facets.epcs.some((epc) => epc.startsWith('urn:epc:class:'))).toBe(false);
  });

  it('names each EPC once', () => {
    const event = { ...bareObjectEvent(), epcList: ['urn:epc:id:sgtin:1.2.3', 'urn:epc:id:sgtin:1.2.3'] };
    expect(eventFacets(event).epcs).toEqual(['urn:epc:id:sgtin:1.2.3']);
  });

  it.each([
    ['https://ref.gs1.org/cbv/BizStep-shipping', 'shipping'],
    ['cbv:BizStep-shipping', 'shipping'],
    ['urn:epcglobal:cbv:bizstep:shipping', 'shipping'],
    ['https://example.com/steps/unboxing', 'https://example.com/steps/unboxing'],
  ])('gives bizStep %s as %s', (bizStep, expected) => {
    expect(eventFacets({ ...bareObjectEvent(), bizStep }).bizStep).toBe(expected);
  });

  it('gives null for a missing bizStep or eventTime', () => {
    const event = bareObjectEvent();
    delete event.bizStep;
    delete event.eventTime;
    expect(eventFacets(event)).toMatchObject({ bizStep: null, eventTime: null });
  });
});

describe('normalizeBizStep', () => {
  it.each([
    ['shipping', 'shipping'],
    [' shipping ', 'shipping'],
    ['https://ref.gs1.org/cbv/BizStep-receiving', 'receiving'],
    ['urn:epcglobal:cbv:bizstep:receiving', 'receiving'],
    ['URN:EPCGLOBAL:CBV:BIZSTEP:receiving', 'receiving'],
    ['cbv:BizStep-void_shipping', 'void_shipping'],
    ['https://ref.gs1.org/cbv/BizStep-flying', 'https://ref.gs1.org/cbv/BizStep-flying'],
    ['urn:example:step:x', 'urn:example:step:x'],
    ['Shipping', 'Shipping'],
  ])('%j → %j', (value, expected) => {
    expect(normalizeBizStep(value)).toBe(expected);
  });

  it('matches what eventFacets stores for every form of a value', () => {
    for (const form of ['packing', 'https://ref.gs1.org/cbv/BizStep-packing', 'urn:epcglobal:cbv:bizstep:packing']) {
      expect(normalizeBizStep(form)).toBe(eventFacets({ ...bareObjectEvent(), bizStep: 'packing' }).bizStep);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { EPCIS_CONTEXT, validateEpcis } from '../../../../server/events/epcis';
import {
  STRICT_MESSAGE,
  STRICT_OBJECT,
  bareObjectEvent,
  errorPaths,
  eventOf,
  fixtureNames,
  list,
  load,
  obj,
  valueOf,
} from './helpers';

/** Every event of every sample, as a client of EpcisObject could post them one by one. */
function sampleEvents(): Record<string, unknown>[] {
  return fixtureNames.flatMap((name) => {
    const body = obj(load(name).epcisBody);
    const events = body.queryResults === undefined ? body.eventList : obj(obj(body.queryResults).resultsBody).eventList;
    return list(events).map(obj);
  });
}

describe('bare events (EpcisObject)', () => {
  it('accepts a single event with its @context', () => {
    const event = bareObjectEvent();
    const { value, warnings } = valueOf(validateEpcis(event, STRICT_OBJECT));
    expect(warnings).toEqual([]);
    expect(value).toEqual({
      kind: 'events',
      document: event,
      context: event['@context'],
      events: [event],
      eventPaths: [''],
    });
    expect(value.events[0]).toBe(event);
  });

  it('accepts an event without @context and assumes the EPCIS 2.0 context', () => {
    const event = bareObjectEvent();
    delete event['@context'];
    const { value, warnings } = valueOf(validateEpcis(event, STRICT_OBJECT));
    expect(warnings).toEqual([]);
    expect(value.context).toBe('https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld');
    expect(EPCIS_CONTEXT).toBe(value.context);
  });

  it.each(sampleEvents().map((event, i) => [i, String(event.type), event] as const))(
    'accepts sample event %i (%s) on its own, without @context',
    (_i, _type, event) => {
      valueOf(validateEpcis(event, STRICT_OBJECT));
    },
  );

  it('accepts an array of all sample events, in order', () => {
    // GS1's files reuse eventIDs across files; one input may not (each eventID names one event).
    const events = sampleEvents().filter(
      (event, i, all) => event.eventID === undefined || all.findIndex((e) => e.eventID === event.eventID) === i,
    );
    const { value } = valueOf(validateEpcis(events, STRICT_OBJECT));
    expect(value.kind).toBe('events');
    expect(value.events).toHaveLength(events.length);
    expect(value.eventPaths).toEqual(events.map((_e, i) => `/${i}`));
    expect(value.events[3]).toBe(events[3]);
    expect(value.context).toBe(EPCIS_CONTEXT);
  });

  it("carries the first event's @context for an array", () => {
    const first = bareObjectEvent();
    first['@context'] = [EPCIS_CONTEXT, { example: 'http://ns.example.com/epcis/' }];
    const { value } = valueOf(validateEpcis([first, bareObjectEvent()], STRICT_OBJECT));
    expect(value.context).toBe(first['@context']);
  });

  it('points errors of a bare event at the root', () => {
    const event = { ...bareObjectEvent(), action: 'ADDED', myField: 1 };
    expect(errorPaths(validateEpcis(event, STRICT_OBJECT)).sort()).toEqual(['/action', '/myField']);
  });

  it('points at the ObjectEvent itself (the root) when it has no what', () => {
    const event = bareObjectEvent();
    delete event.epcList;
    expect(errorPaths(validateEpcis(event, STRICT_OBJECT))).toEqual(['']);
  });

  it('points errors of an array item at its index', () => {
    const second = bareObjectEvent();
    delete second.action;
    expect(errorPaths(validateEpcis([bareObjectEvent(), second], STRICT_OBJECT))).toEqual(['/1/action']);
  });

  it.each([
    ['an array item that is not an object', [bareObjectEvent(), 'x'], '/1'],
    ['an empty array', [], ''],
    ['a number', 42, ''],
    ['an event of unknown type', { ...bareObjectEvent(), type: 'SensorEvent' }, '/type'],
    ['an event without type', { ...bareObjectEvent(), type: undefined }, '/type'],
    ['an event with an invalid @context', { ...bareObjectEvent(), '@context': 12 }, '/@context'],
  ])('refuses %s', (_name, input, path) => {
    const json: unknown = JSON.parse(JSON.stringify(input));
    expect(errorPaths(validateEpcis(json, STRICT_OBJECT))).toContain(path);
  });

  it('still takes documents and query documents', () => {
    expect(valueOf(validateEpcis(load('Example_9.6.3-AggregationEvent.jsonld'), STRICT_OBJECT)).value.kind).toBe(
      'document',
    );
    expect(valueOf(validateEpcis(load('EPCISQueryDocument.jsonld'), STRICT_OBJECT)).value.kind).toBe('queryDocument');
  });

  it('takes a mistyped document as a document, not as an event', () => {
    const doc = load('Example_9.6.3-AggregationEvent.jsonld');
    doc.type = 'Document';
    eventOf(doc).action = 'JOIN';
    expect(errorPaths(validateEpcis(doc, STRICT_OBJECT)).sort()).toEqual(['/epcisBody/eventList/0/action', '/type']);
  });

  it('is refused by EpcisMessage', () => {
    expect(errorPaths(validateEpcis(bareObjectEvent(), STRICT_MESSAGE))).toEqual(['/type']);
    expect(errorPaths(validateEpcis([bareObjectEvent()], STRICT_MESSAGE))).toEqual(['']);
  });
});

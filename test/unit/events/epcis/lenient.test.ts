import { describe, expect, it } from 'vitest';
import { validateEpcis } from '../../../../server/events/epcis';
import {
  LENIENT_MESSAGE,
  LENIENT_OBJECT,
  STRICT_MESSAGE,
  STRICT_OBJECT,
  bareObjectEvent,
  errorPaths,
  eventOf,
  load,
  obj,
  valueOf,
} from './helpers';

type Doc = Record<string, unknown>;
const EVENT = '/epcisBody/eventList/0';

interface Correction {
  name: string;
  mutate: (doc: Doc) => void;
  path: string;
  /** The corrected value, read from the normalized document. */
  read: (doc: Doc) => unknown;
  expected: unknown;
}

const corrections: Correction[] = [
  {
    name: 'type "EpcisDocument"',
    mutate: (d) => (d.type = 'EpcisDocument'),
    path: '/type',
    read: (d) => d.type,
    expected: 'EPCISDocument',
  },
  {
    name: 'type "epcisdocument"',
    mutate: (d) => (d.type = 'epcisdocument'),
    path: '/type',
    read: (d) => d.type,
    expected: 'EPCISDocument',
  },
  {
    name: 'missing schemaVersion',
    mutate: (d) => delete d.schemaVersion,
    path: '/schemaVersion',
    read: (d) => d.schemaVersion,
    expected: '2.0',
  },
  {
    name: 'offset "+0000"',
    mutate: (d) => (eventOf(d).eventTimeZoneOffset = '+0000'),
    path: `${EVENT}/eventTimeZoneOffset`,
    read: (d) => eventOf(d).eventTimeZoneOffset,
    expected: '+00:00',
  },
  {
    name: 'offset "-0500"',
    mutate: (d) => (eventOf(d).eventTimeZoneOffset = '-0500'),
    path: `${EVENT}/eventTimeZoneOffset`,
    read: (d) => eventOf(d).eventTimeZoneOffset,
    expected: '-05:00',
  },
  {
    name: 'eventTime "…+0000"',
    mutate: (d) => (eventOf(d).eventTime = '2026-03-02T08:00:00.000+0000'),
    path: `${EVENT}/eventTime`,
    read: (d) => eventOf(d).eventTime,
    expected: '2026-03-02T08:00:00.000+00:00',
  },
  {
    name: 'creationDate "…-0530"',
    mutate: (d) => (d.creationDate = '2026-03-02T08:00:00-0530'),
    path: '/creationDate',
    read: (d) => d.creationDate,
    expected: '2026-03-02T08:00:00-05:30',
  },
  {
    name: 'bizStep "urn:epcglobal:cbv:bizstep:shipping"',
    mutate: (d) => (eventOf(d).bizStep = 'urn:epcglobal:cbv:bizstep:shipping'),
    path: `${EVENT}/bizStep`,
    read: (d) => eventOf(d).bizStep,
    expected: 'shipping',
  },
  {
    name: 'disposition "urn:epcglobal:cbv:disp:in_transit"',
    mutate: (d) => (eventOf(d).disposition = 'urn:epcglobal:cbv:disp:in_transit'),
    path: `${EVENT}/disposition`,
    read: (d) => eventOf(d).disposition,
    expected: 'in_transit',
  },
];

describe('lenient corrections', () => {
  it.each(corrections)('correct $name with a warning at $path', ({ mutate, path, read, expected }) => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    mutate(doc);
    for (const options of [LENIENT_MESSAGE, LENIENT_OBJECT]) {
      const { value, warnings } = valueOf(validateEpcis(doc, options));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.path).toBe(path);
      expect(warnings[0]?.message.length).toBeGreaterThan(10);
      expect(read(obj(value.document))).toBe(expected);
    }
  });

  it.each(corrections)('are refused in strict mode: $name at $path', ({ mutate, path }) => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    mutate(doc);
    expect(errorPaths(validateEpcis(doc, STRICT_MESSAGE))).toEqual([path]);
    expect(errorPaths(validateEpcis(doc, STRICT_OBJECT))).toEqual([path]);
  });

  it('fill a missing creationDate with the time of receipt', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    delete doc.creationDate;
    const before = Date.now();
    const { value, warnings } = valueOf(validateEpcis(doc, LENIENT_MESSAGE));
    const creationDate = obj(value.document).creationDate;
    expect(typeof creationDate).toBe('string');
    const at = Date.parse(String(creationDate));
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(warnings.map((w) => w.path)).toEqual(['/creationDate']);
    expect(errorPaths(validateEpcis(doc, STRICT_MESSAGE))).toEqual(['/creationDate']);
  });

  it('are neither applied nor written into the input in strict mode', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    for (const { mutate } of corrections) mutate(doc);
    const snapshot = structuredClone(doc);
    expect(errorPaths(validateEpcis(doc, STRICT_OBJECT))).toHaveLength(corrections.length - 2);
    expect(doc).toEqual(snapshot);
  });

  it('apply all corrections at once and hand back the normalized events', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    doc.type = 'EpcisDocument';
    delete doc.schemaVersion;
    delete doc.creationDate;
    eventOf(doc, 0).bizStep = 'urn:epcglobal:cbv:bizstep:shipping';
    eventOf(doc, 1).eventTimeZoneOffset = '-0600';
    eventOf(doc, 1).disposition = 'urn:epcglobal:cbv:disp:in_progress';
    const { value, warnings } = valueOf(validateEpcis(doc, LENIENT_OBJECT));
    expect(warnings.map((w) => w.path).sort()).toEqual([
      '/creationDate',
      '/epcisBody/eventList/0/bizStep',
      '/epcisBody/eventList/1/disposition',
      '/epcisBody/eventList/1/eventTimeZoneOffset',
      '/schemaVersion',
      '/type',
    ]);
    const normalized = obj(value.document);
    expect(value.events[0]).toBe(eventOf(normalized, 0));
    expect(value.events[1]).toMatchObject({ eventTimeZoneOffset: '-06:00', disposition: 'in_progress' });
    // The normalized copy is valid on a strict route.
    valueOf(validateEpcis(normalized, STRICT_MESSAGE));
  });

  it('never mutate the input', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    doc.type = 'EpcisDocument';
    delete doc.schemaVersion;
    eventOf(doc, 0).eventTimeZoneOffset = '+0000';
    eventOf(doc, 0).bizStep = 'urn:epcglobal:cbv:bizstep:shipping';
    const snapshot = structuredClone(doc);
    valueOf(validateEpcis(doc, LENIENT_MESSAGE));
    expect(doc).toEqual(snapshot);
  });

  it('correct a bare event and hand back the normalized copy as the document', () => {
    const event = { ...bareObjectEvent(), eventTimeZoneOffset: '+0200' };
    const { value, warnings } = valueOf(validateEpcis(event, LENIENT_OBJECT));
    expect(warnings.map((w) => w.path)).toEqual(['/eventTimeZoneOffset']);
    expect(value.document).toEqual({ ...event, eventTimeZoneOffset: '+02:00' });
    expect(value.events[0]).toBe(value.document);
    expect(event.eventTimeZoneOffset).toBe('+0200');
  });

  it('return only errors when some deviations are not correctable', () => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    delete doc.schemaVersion;
    eventOf(doc, 0).action = 'observe';
    const result = validateEpcis(doc, LENIENT_MESSAGE);
    expect(errorPaths(result)).toEqual([`${EVENT}/action`]);
  });

  it.each([
    ['a numeric schemaVersion', (d: Doc) => (d.schemaVersion = 2), '/schemaVersion'],
    [
      'an offset +1500 (invalid even with a colon)',
      (d: Doc) => (eventOf(d).eventTimeZoneOffset = '+1500'),
      `${EVENT}/eventTimeZoneOffset`,
    ],
    ['an offset "+00"', (d: Doc) => (eventOf(d).eventTimeZoneOffset = '+00'), `${EVENT}/eventTimeZoneOffset`],
    [
      'an eventTime with a colon-less offset that is no offset (-2500)',
      (d: Doc) => (eventOf(d).eventTime = '2005-04-03T20:33:31.116-2500'),
      `${EVENT}/eventTime`,
    ],
    ['action "observe"', (d: Doc) => (eventOf(d).action = 'observe'), `${EVENT}/action`],
    ['type "EPCIS Document"', (d: Doc) => (d.type = 'EPCIS Document'), '/type'],
  ])('leave %s an error', (_name, mutate, path) => {
    const doc = load('Example_9.6.1-ObjectEvent.jsonld');
    mutate(doc);
    expect(errorPaths(validateEpcis(doc, LENIENT_OBJECT))).toContain(path);
  });

  it('do not add schemaVersion or creationDate to an EPCISQueryDocument (not required there)', () => {
    const doc = load('EPCISQueryDocument.jsonld');
    delete doc.schemaVersion;
    delete doc.creationDate;
    const { value, warnings } = valueOf(validateEpcis(doc, LENIENT_MESSAGE));
    expect(warnings).toEqual([]);
    expect(value.document).toEqual(doc);
  });
});

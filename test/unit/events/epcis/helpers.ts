import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { FieldError } from '../../../../server/contract/errors';
import { validateEpcis, type EpcisInput } from '../../../../server/events/epcis';
import type { Validation } from '../../../../server/events/types';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/epcis/valid/', import.meta.url));

/** The GS1 sample documents (every one valid against GS1's EPCIS 2.0 JSON schema). */
export const fixtureNames: string[] = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.jsonld'))
  .sort();

export const STRICT_MESSAGE = { lenient: false, allowBareEvents: false };
export const STRICT_OBJECT = { lenient: false, allowBareEvents: true };
export const LENIENT_MESSAGE = { lenient: true, allowBareEvents: false };
export const LENIENT_OBJECT = { lenient: true, allowBareEvents: true };

export function obj(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('expected an object');
  return value as Record<string, unknown>;
}

export function list(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new Error('expected an array');
  return value as unknown[];
}

/** A fresh parse of a fixture: tests may mutate it freely. */
export function load(name: string): Record<string, unknown> {
  return obj(JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')));
}

/** Event `i` of a document's epcisBody.eventList. */
export function eventOf(doc: Record<string, unknown>, i = 0): Record<string, unknown> {
  return obj(list(obj(doc.epcisBody).eventList)[i]);
}

/** The errors of a result that must have failed. */
export function errorsOf<T>(result: Validation<T>): FieldError[] {
  expect(result.ok, 'expected validation to fail').toBe(false);
  return result.ok ? [] : result.errors;
}

export function errorPaths<T>(result: Validation<T>): string[] {
  return errorsOf(result).map((e) => e.path);
}

/** The value of a result that must have passed (shows the errors when it did not). */
export function valueOf<T>(result: Validation<T>): { value: T; warnings: FieldError[] } {
  if (!result.ok) throw new Error(`expected validation to pass, got ${JSON.stringify(result.errors, null, 2)}`);
  return result;
}

/** A minimal valid bare ObjectEvent (EpcisObject input). */
export function bareObjectEvent(): Record<string, unknown> {
  return {
    '@context': 'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld',
    type: 'ObjectEvent',
    eventTime: '2024-05-01T10:00:00.000+02:00',
    eventTimeZoneOffset: '+02:00',
    epcList: ['urn:epc:id:sgtin:0614141.107346.2017'],
    action: 'OBSERVE',
    bizStep: 'shipping',
    readPoint: { id: 'urn:epc:id:sgln:0614141.07346.1234' },
  };
}

/** A document wrapping the given events, as GS1's samples are written. */
export function documentOf(...events: Record<string, unknown>[]): Record<string, unknown> {
  return {
    '@context': [
      'https://ref.gs1.org/standards/epcis/2.0.0/epcis-context.jsonld',
      { example: 'http://ns.example.com/epcis/' },
    ],
    type: 'EPCISDocument',
    schemaVersion: '2.0',
    creationDate: '2024-05-01T10:00:01.000+02:00',
    epcisBody: { eventList: events },
  };
}

/** Item `i` of the array at `event[key]`, as an object. */
export function item(event: Record<string, unknown>, key: string, i = 0): Record<string, unknown> {
  return obj(list(event[key])[i]);
}

/** Loads `fixture`, applies `mutate` to its first event and validates the document. */
export function checkFirstEvent(
  fixture: string,
  mutate: (event: Record<string, unknown>) => void,
  options = STRICT_MESSAGE,
): Validation<EpcisInput> {
  const doc = load(fixture);
  mutate(eventOf(doc, 0));
  return validateEpcis(doc, options);
}

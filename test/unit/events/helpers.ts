import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FieldError } from '../../../server/contract/errors';
import type { BodyParse, ReceiveContext, Validation } from '../../../server/events/types';

/** Fixtures are copies of the shared samples, kept under test/ so the suite stands alone. */
const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export function fixtureText(relativePath: string): string {
  return readFileSync(FIXTURES + relativePath, 'utf8');
}

export function fixtureJson(relativePath: string): unknown {
  return JSON.parse(fixtureText(relativePath)) as unknown;
}

export const CONTEXT: ReceiveContext = {
  principal: 'external:dock_reader',
  defaultReaderId: 'external:dock_reader',
  receivedAt: Date.UTC(2026, 2, 2, 9, 0, 0),
  timeZone: 'Europe/Berlin',
};

/** The value of a successful validation; throws (failing the test) with the errors otherwise. */
export function valueOf<T>(result: Validation<T>): T {
  if (!result.ok) throw new Error(`expected ok, got errors ${JSON.stringify(result.errors)}`);
  return result.value;
}

/** The errors of a failed validation; throws (failing the test) when it succeeded. */
export function errorsOf<T>(result: Validation<T>): FieldError[] {
  if (result.ok) throw new Error(`expected errors, got ok ${JSON.stringify(result.value)}`);
  return result.errors;
}

export function jsonOf(parse: BodyParse): unknown {
  if (!parse.ok) throw new Error(`expected ok, got "${parse.message}"`);
  return parse.json;
}

export function messageOf(parse: BodyParse): string {
  if (parse.ok) throw new Error(`expected malformed, got ${JSON.stringify(parse.json)}`);
  return parse.message;
}

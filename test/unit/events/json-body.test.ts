import { describe, it, expect } from 'vitest';
import { parseConcatenatedJson, parseJsonBody } from '../../../server/events/json-body';
import { fixtureText, jsonOf, messageOf } from './helpers';

describe('parseJsonBody', () => {
  it('parses one JSON value of any kind', () => {
    expect(jsonOf(parseJsonBody('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(jsonOf(parseJsonBody(' 42 '))).toBe(42);
    expect(jsonOf(parseJsonBody('null'))).toBeNull();
  });

  it('treats an empty or blank body as malformed', () => {
    expect(messageOf(parseJsonBody(''))).toMatch(/empty/);
    expect(messageOf(parseJsonBody(' \n'))).toMatch(/empty/);
  });

  it('refuses malformed JSON with a message, including back-to-back objects', () => {
    expect(messageOf(parseJsonBody('{"a":'))).not.toBe('');
    // Concatenation is only for UHFTagRead bodies; the plain parser stays strict.
    expect(parseJsonBody('{}{}').ok).toBe(false);
  });
});

describe('parseConcatenatedJson', () => {
  it('returns a single value as is, scalars included', () => {
    expect(jsonOf(parseConcatenatedJson('{"a":1}'))).toEqual({ a: 1 });
    expect(jsonOf(parseConcatenatedJson('[{"a":1}]'))).toEqual([{ a: 1 }]);
    expect(jsonOf(parseConcatenatedJson(' "text" '))).toBe('text');
    expect(jsonOf(parseConcatenatedJson('7'))).toBe(7);
  });

  it('splits objects written back to back with no separator', () => {
    expect(jsonOf(parseConcatenatedJson('{"a":1}{"b":2}{"c":3}'))).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('accepts JSON whitespace and newlines between values', () => {
    expect(jsonOf(parseConcatenatedJson(' {"a":1}\n{"b":2}\r\n\t{"c":3}\n'))).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('flattens arrays among the values by one level only', () => {
    expect(jsonOf(parseConcatenatedJson('[{"a":1},{"b":2}]{"c":3}[[4]]'))).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }, [4]]);
  });

  it('does not split at braces inside strings', () => {
    const raw = '{"note":"}{ not a boundary ]["}{"b":"{"}';
    expect(jsonOf(parseConcatenatedJson(raw))).toEqual([{ note: '}{ not a boundary ][' }, { b: '{' }]);
  });

  it('respects escaped quotes and backslashes inside strings', () => {
    // `\"}{` keeps the string open; `\\` closes the escape so the next quote ends the string.
    const raw = String.raw`{"a":"x\"}{y"}{"b":"c:\\"}{"d":"\\\"}"}`;
    expect(jsonOf(parseConcatenatedJson(raw))).toEqual([{ a: 'x"}{y' }, { b: 'c:\\' }, { d: '\\"}' }]);
  });

  it('parses the Zebra concatenated fixture into its two events', () => {
    const json = jsonOf(parseConcatenatedJson(fixtureText('readers/zebra-fx-concatenated.txt')));
    expect(Array.isArray(json)).toBe(true);
    expect(json).toHaveLength(2);
    expect(json).toMatchObject([{ data: { eventNum: 46 } }, { data: { eventNum: 47 } }]);
  });

  it('refuses trailing garbage after complete values', () => {
    expect(messageOf(parseConcatenatedJson('{"a":1}{"b":2}xyz'))).toMatch(/offset 14/);
    expect(parseConcatenatedJson('{"a":1} 5').ok).toBe(false);
    expect(parseConcatenatedJson('{"a":1},{"b":2}').ok).toBe(false);
  });

  it('refuses a scalar followed by an object', () => {
    expect(parseConcatenatedJson('5 {"a":1}').ok).toBe(false);
  });

  it('refuses an unclosed value, an unterminated string and mismatched brackets', () => {
    expect(messageOf(parseConcatenatedJson('{"a":1}{"b":'))).toMatch(/not closed/);
    expect(parseConcatenatedJson('{"a":"}').ok).toBe(false);
    expect(messageOf(parseConcatenatedJson('{"a":1}{"b":[1}]'))).toMatch(/JSON value 2/);
  });

  it('refuses an invalid value among valid ones', () => {
    expect(messageOf(parseConcatenatedJson('{"a":1}{\'b\':2}'))).toMatch(/JSON value 2 \(at offset 7\)/);
  });

  it('treats an empty or blank body as malformed', () => {
    expect(messageOf(parseConcatenatedJson(''))).toMatch(/empty/);
    expect(messageOf(parseConcatenatedJson('  \n '))).toMatch(/empty/);
  });

  it('stays linear on a large batch', () => {
    const one = '{"type":"SIMPLE","data":{"idHex":"3074257BF7194E4000001A85","note":"}{"}}';
    const raw = one.repeat(20_000); // ~1.4 MB, more than the default body limit
    const started = performance.now();
    const json = jsonOf(parseConcatenatedJson(raw));
    expect(json).toHaveLength(20_000);
    // A quadratic scan would take minutes here; a generous bound keeps slow CI machines green.
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

import { describe, expect, it } from 'vitest';
import { parseConcatenatedJson, parseJsonBody } from '../../../server/events/json-body';
import { buildJson, checkLayout, countItems, forEachRecord } from '../../../server/events/large-body';
import { LargeJson } from '../../../server/events/large-json';
import { normalizeLargeUhfBody, normalizeUhfBody } from '../../../server/events/uhf/normalize';
import { scanLayout } from '../../../server/json-layout';
import { fixtureText } from './helpers';

/** A small deterministic generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'a', '"q"', '\\', '[{,:}]', '__proto__', 'é€', '\n', 'constructor'];

/** A generated value: objects as member lists, so that repeated keys reach the text. */
type Gen = { array: Gen[] } | { object: [string, Gen][] } | { scalar: unknown };

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)];

function value(next: () => number, depth: number, container = false): Gen {
  const r = next();
  if (!container && (depth > 4 || r < 0.3)) {
    const s = next();
    if (s < 0.25) return { scalar: Math.round(next() * 1e6) / 100 - 5000 };
    if (s < 0.35) return { scalar: pick(next, [true, false, null]) };
    return { scalar: pick(next, STRINGS) };
  }
  const n = Math.floor(next() * 6);
  if (r < 0.65) return { array: Array.from({ length: n }, () => value(next, depth + 1)) };
  // Keys repeat now and then: JSON.parse keeps the first position and the last value.
  return { object: Array.from({ length: n }, () => [pick(next, STRINGS), value(next, depth + 1)] as [string, Gen]) };
}

function text(v: Gen, next: () => number): string {
  const ws = () => pick(next, [' ', '', '\n', '\t', '']);
  if ('scalar' in v) return ws() + JSON.stringify(v.scalar) + ws();
  if ('array' in v) return `${ws()}[${v.array.map((m) => text(m, next)).join(',')}]${ws()}`;
  return `${ws()}{${v.object.map(([k, m]) => `${ws()}${JSON.stringify(k)}${ws()}:${text(m, next)}`).join(',')}}${ws()}`;
}

const sameAs = (actual: unknown, expected: unknown) => {
  // Own keys in order ("__proto__" included) and values.
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
  if (expected !== null && typeof expected === 'object') {
    expect(Object.keys(actual as object)).toEqual(Object.keys(expected));
  }
};

/** A text's UTF-8 bytes: what the sliced path scans. */
const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** Whether the sliced path takes `source`: the scan and every piece (`pieceBytes` small, so containers split). */
async function sliced(source: string, concatenated: boolean, pieceBytes: number) {
  const bytes = utf8(source);
  const scan = await scanLayout(bytes, concatenated, pieceBytes);
  if (!scan.ok) return { ok: false as const };
  const checked = await checkLayout(bytes, scan.layout);
  if (!checked.ok) return { ok: false as const };
  return { ok: true as const, json: await buildJson(new LargeJson(bytes, concatenated, scan.layout)) };
}

const MUTATIONS = [',', ']', '}', '[', '{', ':', '"', ' ', 'x', '1'];

describe('large bodies parsed in slices (issue 38.3)', () => {
  it('give what JSON.parse gives, and refuse what it refuses, however the text is cut', async () => {
    const next = random(38_3);
    for (let n = 0; n < 600; n++) {
      const source = text(value(next, 0), next);
      const pieceBytes = 1 + Math.floor(next() * 24);
      const whole = parseJsonBody(source);
      const parts = await sliced(source, false, pieceBytes);
      expect(parts.ok).toBe(whole.ok);
      if (whole.ok && parts.ok) sameAs(parts.json, whole.json);
      // The same text with one character deleted, replaced or added.
      const at = Math.floor(next() * (source.length + 1));
      const change = pick(next, MUTATIONS);
      const mutated =
        next() < 0.4
          ? source.slice(0, at) + source.slice(at + 1)
          : source.slice(0, at) + change + source.slice(at + (next() < 0.5 ? 1 : 0));
      const wholeMutated = parseJsonBody(mutated);
      const partsMutated = await sliced(mutated, false, pieceBytes);
      expect({ mutated, ok: partsMutated.ok }).toEqual({ mutated, ok: wholeMutated.ok });
      if (wholeMutated.ok && partsMutated.ok) sameAs(partsMutated.json, wholeMutated.json);
    }
  });

  it('read concatenated values as parseConcatenatedJson does', async () => {
    const next = random(7);
    for (let n = 0; n < 300; n++) {
      const count = 1 + Math.floor(next() * 3);
      const source = Array.from({ length: count }, () => text(value(next, 1, true), next)).join('');
      const whole = parseConcatenatedJson(source);
      const parts = await sliced(source, true, 1 + Math.floor(next() * 16));
      expect(parts.ok).toBe(whole.ok);
      if (whole.ok && parts.ok) sameAs(parts.json, whole.json);
    }
  });

  it('refuses nesting deeper than 64 levels, and text after the value', async () => {
    expect(await scanLayout(utf8('['.repeat(65) + ']'.repeat(65)), false)).toMatchObject({ ok: false, tooDeep: true });
    expect((await scanLayout(utf8('['.repeat(64) + ']'.repeat(64)), false)).ok).toBe(true);
    expect((await scanLayout(utf8('{} {}'), false)).ok).toBe(false);
    expect((await scanLayout(utf8('{} {}'), true)).ok).toBe(true);
    expect((await scanLayout(utf8('{} 1'), true)).ok).toBe(false);
  });

  it('counts the items of a top-level array, an object as one', async () => {
    const count = async (source: string) => {
      const scan = await scanLayout(utf8(source), false, 4);
      if (!scan.ok) throw new Error(scan.message);
      return countItems(new LargeJson(utf8(source), false, scan.layout));
    };
    expect(await count('[1, [2, 3], {"a": [4, 5, 6]}, "x"]')).toEqual({ ok: true, items: 4 });
    expect(await count('{"a": [1, 2, 3, 4, 5, 6], "b": 2}')).toEqual({ ok: true, items: 1 });
    expect(await count('"a scalar"')).toEqual({ ok: true, items: null });
  });

  it('normalizes tag reads to what the whole body gives, paths included', async () => {
    const bodies = [
      fixtureText('readers/zebra-fx-array.json'),
      fixtureText('readers/zebra-fx-concatenated.txt'),
      fixtureText('readers/zebra-fx-single.json'),
      fixtureText('readers/impinj-r700-webhook.json'),
      '[{"epc": "nothex"}, 5, {"epc": "3074257BF7194E4000001A85"}]',
      '"not records"',
    ];
    const context = {
      principal: 'external:reader',
      defaultReaderId: 'external:reader',
      receivedAt: Date.UTC(2026, 2, 2),
      timeZone: 'UTC',
    };
    for (const source of bodies) {
      const whole = parseConcatenatedJson(source);
      if (!whole.ok) throw new Error(whole.message);
      const expected = normalizeUhfBody(whole.json, context);
      // Unscanned, as the worker's claim of a stored payload is: the scan runs in validation.
      expect(await normalizeLargeUhfBody(new LargeJson(utf8(source), true, null), context)).toEqual(expected);
      const records: number[] = [];
      await forEachRecord(new LargeJson(utf8(source), true, null), (_record, index) => records.push(index));
      expect(records).toEqual(records.map((_, i) => i));
    }
  });
});

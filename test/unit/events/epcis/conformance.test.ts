import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateEpcis } from '../../../../server/events/epcis';
import { suggestedExtensionKey } from '../../../../server/events/epcis/util';
import { LENIENT_MESSAGE, STRICT_MESSAGE, load } from './helpers';

/** A mutation of a GS1 example with the gateway's verdict (see the file's `about`). */
interface ConformanceCase {
  name: string;
  fixture: string;
  mode: 'strict' | 'lenient';
  ops: { op: 'set' | 'delete'; path: string; value?: unknown }[];
  verdict: 'accept' | 'refuse';
  schema: 'accept' | 'refuse';
  reason: string;
  errorPath?: string;
}

const CORPUS = fileURLToPath(new URL('../../../fixtures/epcis/conformance/mutations.json', import.meta.url));
const { cases } = JSON.parse(readFileSync(CORPUS, 'utf8')) as { cases: ConformanceCase[] };

/** Applies `set`/`delete` at a JSON Pointer (`~1` = `/`, `~0` = `~`); an empty last step is the root's child. */
function applyOps(doc: Record<string, unknown>, ops: ConformanceCase['ops']): void {
  for (const { op, path, value } of ops) {
    const steps = path
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = steps.pop() ?? '';
    let parent: unknown = doc;
    for (const step of steps) parent = (parent as Record<string, unknown>)[step];
    const target = parent as Record<string, unknown>;
    if (op === 'delete') delete target[last];
    else target[last] = structuredClone(value);
  }
}

describe('EPCIS conformance corpus (mutations of GS1 examples, verdicts in the fixture)', () => {
  it('holds cases both ways and a reason for each', () => {
    expect(cases.filter((c) => c.verdict === 'accept').length).toBeGreaterThan(5);
    expect(cases.filter((c) => c.verdict === 'refuse').length).toBeGreaterThan(5);
    for (const c of cases) expect(c.reason.length, c.name).toBeGreaterThan(5);
    // Every divergence from GS1's schema is one on purpose, and says so.
    for (const c of cases.filter((c) => c.verdict !== c.schema))
      expect(c.reason, c.name).toMatch(c.mode === 'lenient' ? /lenient/ : /^DIVERGENCE/);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const doc = load(c.fixture);
    applyOps(doc, c.ops);
    const result = validateEpcis(doc, c.mode === 'lenient' ? LENIENT_MESSAGE : STRICT_MESSAGE);
    const errors = result.ok ? [] : result.errors;
    expect({ ok: result.ok, errors }, c.reason).toMatchObject({ ok: c.verdict === 'accept' });
    if (c.errorPath !== undefined) expect(errors.map((e) => e.path)).toContain(c.errorPath);
  });
});

describe('extension key suggestions', () => {
  it('keeps a prefix the key already has and makes the rest a URI', () => {
    expect(suggestedExtensionKey('my field')).toBe('example:my_field');
    expect(suggestedExtensionKey('ex:my field')).toBe('ex:my_field');
    expect(suggestedExtensionKey('weight')).toBe('example:weight');
  });
});

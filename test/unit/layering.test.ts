import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SERVER = join(ROOT, 'server');

/**
 * The layers of `server/`, lowest first: a module imports from its own layer or lower ones,
 * never higher. Files at the top of `server/` are the shared base (errors, time, logger …),
 * except the four that assemble and start the gateway, which sit above everything.
 */
const LAYERS: Record<string, number> = {
  contract: 0,
  base: 0,
  db: 1,
  repositories: 2,
  events: 3,
  tls: 3,
  services: 4,
  delivery: 5,
  auth: 6,
  intake: 7,
  metrics: 8,
  http: 9,
  mqtt: 9,
  top: 10,
};
const TOP_FILES = new Set(['gateway.ts', 'assemble-data-plane.ts', 'start-gateway.ts', 'cli.ts']);

function layerOf(file: string): string {
  const path = relative(SERVER, file);
  if (!path.includes('/')) return TOP_FILES.has(path) ? 'top' : 'base';
  return path.split('/')[0] ?? 'base';
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** A relative import as the file it names (`./x` → x.ts or x/index.ts). */
function resolveImport(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not this one.
    }
  }
  return null;
}

/** Every relative import of each file (type-only imports too: they bind the layers as well). */
function importGraph(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .filter((entry) => entry.fileName.startsWith('.'))
        .map((entry) => resolveImport(file, entry.fileName))
        .filter((target): target is string => target !== null);
      return [file, targets];
    }),
  );
}

/** The import cycles (strongly connected groups of more than one file), by Tarjan's algorithm. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(relative(ROOT, member));
    } while (member !== file);
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('layers of server/', () => {
  const graph = importGraph(sourceFiles(SERVER));

  it('every folder has a layer', () => {
    const unknown = [...new Set([...graph.keys()].map(layerOf))].filter((layer) => !(layer in LAYERS));
    expect(unknown).toEqual([]);
  });

  it('has no import cycles', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('imports only from its own layer or lower ones, and across folders only downwards', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = layerOf(file);
      // Outside server/ are only the migrations, which import nothing of it (tested below).
      for (const target of targets.filter((path) => path.startsWith(`${SERVER}/`))) {
        const to = layerOf(target);
        const sameFolder = from === to;
        const allowed = LAYERS[to] < LAYERS[from] || sameFolder || (LAYERS[to] === 0 && LAYERS[from] === 0);
        if (!allowed) upward.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('migrations import no application code (a migration must not change after it ran)', () => {
    const migrations = sourceFiles(join(ROOT, 'migrations'));
    const appImports = [...importGraph(migrations)].flatMap(([file, targets]) =>
      targets.map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`),
    );
    expect(appImports).toEqual([]);
  });
});

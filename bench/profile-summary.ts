/**
 * Summarizes a V8 `.cpuprofile` (from BENCH_PROFILE=1) as self time per function and per source
 * file / package, which is what finding a hot spot needs without opening DevTools.
 * Usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<pkg> (or <@scope/pkg>), else the path below the project, else the raw URL. */
function where(url: string): string {
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1]) return modules[1];
  const project = /\/(server|bench|bin|migrations)\/.*$/.exec(url);
  if (project) return project[0].slice(1);
  return url || '(native / VM)';
}

export function summarize(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((sum, us) => sum + us, 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const file = where(frame.url);
    const fn = `${frame.functionName || '(anonymous)'}  ${file}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  const list = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, us]) =>
          `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}`,
      )
      .join('\n');
  return `total sampled ${(total / 1000).toFixed(0)} ms\n\nSelf time by file/package:\n${list(byFile)}\n\nSelf time by function:\n${list(byFunction)}\n`;
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]');
  process.stdout.write(summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(top ?? 25)));
}

/** The SQL profile (server/db/sql-profile.ts) as time per kind of statement, largest first. */
export function sqlProfileText(totals: Record<string, { count: number; ms: number }>): string {
  const all = Object.values(totals).reduce((sum, t) => sum + t.ms, 0);
  return Object.entries(totals)
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(
      ([kind, t]) =>
        `${((100 * t.ms) / Math.max(1e-9, all)).toFixed(1).padStart(5)}%  ${t.ms.toFixed(0).padStart(7)} ms  ${String(t.count).padStart(7)} ×  ${(t.ms / Math.max(1, t.count)).toFixed(3)} ms each  ${kind}`,
    )
    .join('\n');
}

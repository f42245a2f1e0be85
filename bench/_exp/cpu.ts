import { readdirSync, readFileSync } from 'node:fs';
/** CPU ms per thread name of a process, from /proc (utime+stime, clock ticks of 10 ms). */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = /\((.*)\)/.exec(stat)?.[1] ?? '?';
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      const key = tid === String(pid) ? 'main' : name.replace(/\d+$/, '#') + ':' + tid;
      out.set(key, (out.get(key) ?? 0) + ms);
    } catch { /* thread gone */ }
  }
  return out;
}
export function diff(a: Map<string, number>, b: Map<string, number>, requests: number): string {
  return [...b].map(([k, v]) => [k, v - (a.get(k) ?? 0)] as const).filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${v}ms (${((v * 1000) / requests).toFixed(0)}µs/req)`).join(', ');
}

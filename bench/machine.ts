import { readFileSync } from 'node:fs';

/**
 * CPU accounting for one measured run, from /proc (Linux; zeros elsewhere). On a 2-core box the
 * load generator, the server and anything else running (a CI job, a compiler) all compete, so
 * every run records how much CPU the server, this process and *other* processes used: a run
 * with other processes busy is not comparable to one without.
 */
export interface CpuShare {
  /** Percent of one core, averaged over the run. */
  server: number;
  loadGenerator: number;
  other: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function systemBusyMs(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) * TICK_MS;
  } catch {
    return 0;
  }
}

function processMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Starts measuring; the returned function stops and gives the shares. */
export function meterCpu(serverPid: number | undefined): () => CpuShare {
  const started = performance.now();
  const busy = systemBusyMs();
  const server = serverPid ? processMs(serverPid) : 0;
  const self = process.cpuUsage();
  return () => {
    const wallMs = Math.max(1, performance.now() - started);
    const ownUse = process.cpuUsage(self);
    const loadGenerator = (ownUse.user + ownUse.system) / 1000;
    const serverUsed = serverPid ? processMs(serverPid) - server : 0;
    const other = Math.max(0, systemBusyMs() - busy - serverUsed - loadGenerator);
    const percent = (ms: number) => Math.round((100 * ms) / wallMs);
    return { server: percent(serverUsed), loadGenerator: percent(loadGenerator), other: percent(other) };
  };
}

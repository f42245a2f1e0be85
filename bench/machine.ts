import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU accounting for one measured run, from /proc (Linux; zeros elsewhere). On a 2-core box the
 * load generator, the server and anything else running (a CI job, a compiler) all compete, so
 * every run records how much CPU the server, the load generator and *other* processes used: a run
 * with other processes busy is not comparable to one without.
 */
export interface CpuShare {
  /** Percent of one core, averaged over the run. */
  server: number;
  /**
   * The server's main (JavaScript) thread alone. Below ~95 % while the server total is higher,
   * the main thread is waiting on its database thread rather than out of time.
   */
  serverMain: number;
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

/** The fields of /proc/<pid>/stat after the command name (so index 1 is the parent's pid), or null. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A process's (or, as `<pid>/task/<tid>`, one thread's) CPU time so far: utime + stime, in ms. */
export function processMs(pid: number | string): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : 0;
}

/**
 * CPU of a process and its children, for a database server (PostgreSQL's postmaster and its
 * backends): its own time, what its ended children used (cutime, cstime), and its live children.
 */
function processTreeMs(pid: number): number {
  const own = statFields(pid);
  if (!own) return 0;
  let total = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) * TICK_MS;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[1]) === pid) total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
  return total;
}

/**
 * Starts measuring; the returned function stops and gives the shares. A database server the
 * gateway uses (`databasePid`, PostgreSQL) is part of the system under test: its CPU counts as
 * the server's, not as other processes'.
 */
export function meterCpu(serverPid: number | undefined, databasePid?: number): (generatorPercent?: number) => CpuShare {
  const started = performance.now();
  const busy = systemBusyMs();
  const serverMs = () => (serverPid ? processMs(serverPid) : 0) + (databasePid ? processTreeMs(databasePid) : 0);
  const server = serverMs();
  // A process's main thread is the task whose id is the process id.
  const mainMs = () => (serverPid ? processMs(`${serverPid}/task/${serverPid}`) : 0);
  const main = mainMs();
  const self = process.cpuUsage();
  // `generatorPercent`: a load generator in its own process (wrk) measured itself; without it the
  // load generator is this process (autocannon).
  return (generatorPercent?: number) => {
    const wallMs = Math.max(1, performance.now() - started);
    const ownUse = process.cpuUsage(self);
    const generatorMs =
      generatorPercent !== undefined && generatorPercent >= 0
        ? (generatorPercent * wallMs) / 100
        : (ownUse.user + ownUse.system) / 1000;
    const serverUsed = serverMs() - server;
    const other = Math.max(0, systemBusyMs() - busy - serverUsed - generatorMs);
    const percent = (ms: number) => Math.round((100 * ms) / wallMs);
    return {
      server: percent(serverUsed),
      serverMain: percent(mainMs() - main),
      loadGenerator: percent(generatorMs),
      other: percent(other),
    };
  };
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { caseTarget, CASES, type Bases } from './cases';
import { ROUTES, type AdminClient, type GatewaySetup } from './gateway-setup';
import { load, type RunFigures } from './load';
import { instrumentBound } from './report';

export interface GrowthSettings {
  phases: number;
  phaseSeconds: number;
  getSeconds: number;
  connections: number;
}

export interface GrowthPhase {
  phase: number;
  load: RunFigures;
  instrumentBound: boolean;
  /** Events stored since the gateway started (`gateway_events_received_total`). */
  stored: number;
  queued: number;
  inventory: number;
  databaseBytes: number;
  rssBytes: number;
}

export interface GrowthReport {
  settings: GrowthSettings;
  phases: GrowthPhase[];
  gets: { label: string; load: RunFigures }[];
}

/** Bytes of every file under `dir` (the SQLite database, its WAL and shared memory, logs). */
export function directoryBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directoryBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

function rssBytes(pid: number | undefined): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Rows in the inventory, read from the gateway's SQLite file (read-only) beside the running
 * server: the gateway has no API that counts the inventory.
 */
function inventorySize(databaseFile: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(databaseFile, sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return reject(openError);
      db.get('SELECT COUNT(*) AS n FROM tag_inventory', (error: Error | null, row: { n: number } | undefined) => {
        db.close();
        if (error) reject(error);
        else resolve(row?.n ?? 0);
      });
    });
  });
}

/** An EPC that is in the inventory (wrk's first serials are not predictable: it builds requests ahead). */
/** The newest inventory item's EPC, as hex and as its URI. */
async function someInventoryEpc(inventoryUrl: string): Promise<{ epc: string; epcUri: string }> {
  const res = await fetch(`${inventoryUrl}?limit=1`);
  const body = (await res.json()) as { items?: { epc: string; epcUri: string }[] };
  const item = body.items?.[0];
  if (res.status !== 200 || !item) throw new Error(`GET inventory ?limit=1 → ${res.status}, no EPC to look up`);
  return item;
}

const distinctCase = () => {
  const def = CASES.find((c) => c.key === 'asyncOpenDistinct');
  if (!def) throw new Error('the async distinct-tag case is missing');
  return def;
};

/**
 * `BENCH_GROWTH=1`: loads one gateway (SQLite, raised queue cap) in phases with async distinct
 * tags and records after each phase how far it has grown; then times GET inventory at that size.
 */
export async function growthRun(
  admin: AdminClient,
  context: {
    bases: Bases;
    setup: GatewaySetup;
    serverPid: number | undefined;
    dataDir: string;
    settings: GrowthSettings;
  },
  log: (message: string) => void,
): Promise<GrowthReport> {
  const { settings } = context;
  const target = caseTarget(distinctCase(), context.bases, context.setup);
  const phases: GrowthPhase[] = [];
  for (let phase = 1; phase <= settings.phases; phase++) {
    log(`growth phase ${phase}/${settings.phases}`);
    const figures = await load(target, settings.phaseSeconds, settings.connections);
    const metrics = await admin.metrics();
    phases.push({
      phase,
      load: figures,
      instrumentBound: instrumentBound(figures),
      stored: metrics.gateway_events_received_total ?? 0,
      queued: metrics.gateway_queue_depth ?? NaN,
      inventory: await inventorySize(join(context.dataDir, 'gateway.db')),
      databaseBytes: directoryBytes(context.dataDir),
      rssBytes: rssBytes(context.serverPid),
    });
  }
  const base = context.bases.http ?? '';
  const inventoryUrl = `${base}/bench/${ROUTES.inventory}`;
  const { epc, epcUri } = await someInventoryEpc(inventoryUrl);
  const gets = [
    { label: 'GET inventory ?limit=100', url: `${inventoryUrl}?limit=100` },
    { label: `GET inventory ?epc=${epc}`, url: `${inventoryUrl}?epc=${epc}` },
    { label: `GET inventory ?epc=${epcUri}`, url: `${inventoryUrl}?epc=${encodeURIComponent(epcUri)}` },
  ];
  const timed: GrowthReport['gets'] = [];
  for (const get of gets) {
    log(get.label);
    timed.push({
      label: get.label,
      load: await load({ url: get.url, method: 'GET' }, settings.getSeconds, settings.connections),
    });
  }
  return { settings, phases, gets: timed };
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

export function growthText(report: GrowthReport): string {
  const head = ['phase', 'req/s', 'p99 ms', 'gen %', 'stored', 'queued', 'inventory', 'db MB', 'RSS MB'];
  const rows = report.phases.map((p) => [
    String(p.phase),
    p.load.rps.toFixed(0),
    p.load.p99.toFixed(1),
    `${p.load.generatorCpu}${p.instrumentBound ? ' BOUND' : ''}`,
    String(p.stored),
    String(p.queued),
    String(p.inventory),
    mb(p.databaseBytes),
    mb(p.rssBytes),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  const gets = report.gets.map(
    (g) =>
      `${g.label}: ${g.load.rps.toFixed(0)} req/s, p50 ${g.load.p50.toFixed(1)} ms, p99 ${g.load.p99.toFixed(1)} ms` +
      (g.load.non2xx + g.load.errors > 0 ? `, ${g.load.non2xx} non-2xx, ${g.load.errors} errors` : ''),
  );
  return [
    `Growth: ${report.settings.phases} × ${report.settings.phaseSeconds} s of async noauth with distinct EPCs, ${report.settings.connections} connections`,
    line(head),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map(line),
    '',
    `At the grown size (${report.settings.getSeconds} s each):`,
    ...gets,
  ].join('\n');
}

// throwaway experiment: gateway with flush instrumentation (not part of the deliverable)
import { createGateway } from '../../server/gateway';
import { startServer } from '../../server/http/start-server';
import { createLogger } from '../../server/logger';
const dataDir = process.argv[2] ?? '';
const gateway = await createGateway({ database: { kind: 'sqlite', filename: dataDir + '/gateway.db' }, adminPassword: process.env.GATEWAY_ADMIN_PASSWORD, logger: createLogger({ quiet: true }), processQueue: process.env.EXP_WORKER !== '0' });
let statements = 0;
const counts = new Map<string, number>();
const started = new Map<string, [string, number]>();
const lat = new Map<string, number>();
gateway.db.knex.on('query', (q: { sql: string; __knexQueryUid: string }) => { statements++; const k = q.sql.slice(0, 40); counts.set(k, (counts.get(k) ?? 0) + 1); started.set(q.__knexQueryUid, [k, performance.now()]); });
gateway.db.knex.on('query-response', (_r: unknown, q: { __knexQueryUid: string }) => { const s = started.get(q.__knexQueryUid); if (s) { started.delete(q.__knexQueryUid); lat.set(s[0], (lat.get(s[0]) ?? 0) + performance.now() - s[1]); } });
const commit = gateway.commit as unknown as { flush(batch: unknown[]): Promise<void> };
const original = commit.flush.bind(commit);
const hist: number[] = []; let stmtInFlush = 0; let inFlushMs = 0;
commit.flush = async (batch) => { const s0 = statements; const t = performance.now(); await original(batch); const d = performance.now() - t; hist.push(d); inFlushMs += d; stmtInFlush += statements - s0; };
const t0 = performance.now();
setInterval(() => {
  if (hist.length === 0) return;
  const sorted = [...hist].sort((a, b) => a - b);
  const wall = performance.now() - t0;
  process.stderr.write(`EXP flushes=${hist.length} p50=${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} p90=${sorted[Math.floor(sorted.length * 0.9)]?.toFixed(1)} max=${sorted[sorted.length - 1]?.toFixed(1)} busy=${(100 * inFlushMs / wall).toFixed(0)}% stmts/flush=${(stmtInFlush / hist.length).toFixed(1)} stmtsOutside=${statements - stmtInFlush}\n`);
  process.stderr.write('EXP top ' + [...counts].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, n]) => `${n}×${k} ${((lat.get(k) ?? 0) / n).toFixed(2)}ms`).join(' | ') + '\n');
  hist.length = 0; stmtInFlush = 0; inFlushMs = 0; statements = 0; counts.clear(); lat.clear();
}, 5000).unref();
const server = await startServer(gateway.app, { port: 0, host: '127.0.0.1' });
process.stdout.write(`Gateway listening on http://127.0.0.1:${server.port}/GWENDPOINTAPI\n`);
process.on('SIGTERM', () => void server.stop(1000).then(() => gateway.close()).then(() => process.exit(0)));

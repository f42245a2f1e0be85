// throwaway experiment driver: start a server variant, configure, load one route, print figures.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { AdminClient, configureGateway } from '../gateway-setup';
import { load } from '../load';
import { ADMIN_PASSWORD, ROOT } from '../children';
import { diff, threadCpu } from './cpu';

const [script = 'bin', ...routes] = process.argv.slice(2);
const dataDir = mkdtempSync(join(tmpdir(), 'gwexp-'));
const flags = process.env.EXP_PROF ? ['--cpu-prof', '--cpu-prof-dir', '/tmp/gwb/prof'] : [];
const args = script === 'baseline' ? ['--import', 'tsx', join(ROOT, 'bench/baseline-server.ts')] : script === 'bin' ? [...flags, join(ROOT, 'bin/gateway.js'), 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir] : [...flags, '--import', 'tsx', join(ROOT, 'bench/_exp/serve.ts'), dataDir];
const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, GATEWAY_ADMIN_PASSWORD: ADMIN_PASSWORD }, stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise<string>((resolve) => { let out = ''; child.stdout.on('data', (c: Buffer) => { out += c.toString(); const m = /listening on (http:\/\/\S+\/GWENDPOINTAPI)/.exec(out); if (m?.[1]) resolve(m[1]); }); });
const admin = new AdminClient(base);
const baseline = script === 'baseline';
if (!baseline) await admin.login();
const setup = baseline ? { accessToken: '', basic: '' } : await configureGateway(admin);
const secs = Number(process.env.EXP_SECS ?? 5);
for (const route of routes) {
  const headers = route === 'asyncToken' ? { authorization: setup.accessToken } : route === 'asyncBasic' ? { authorization: setup.basic } : undefined;
  const target = route === 'inventory' ? { url: `${base}/bench/inventory?limit=100`, method: 'GET' as const } : { url: `${base}/bench/${route}`, method: 'POST' as const, headers };
  await load(target, 1, 50);
  const zero = { flushes: 0, events: 0, jobs: 0 };
  const before = baseline ? zero : await admin.commitStats();
  const cpu0 = threadCpu(child.pid ?? 0); const self0 = process.cpuUsage();
  const r = await load(target, secs, 50);
  const cpu1 = threadCpu(child.pid ?? 0); const self1 = process.cpuUsage(self0);
  const after = baseline ? zero : await admin.commitStats();
  const total = r.rps * secs;
  console.log('  server threads:', diff(cpu0, cpu1, total), '| autocannon', ((self1.user + self1.system) / 1000).toFixed(0), 'ms', (((self1.user + self1.system)) / total).toFixed(0), 'µs/req');
  console.log(route, Math.round(r.rps), 'req/s p50', r.p50, 'p99', r.p99, 'non2xx', r.non2xx, 'flushes', after.flushes - before.flushes, 'events', after.events - before.events, 'jobs', after.jobs - before.jobs);
}
child.kill('SIGTERM');

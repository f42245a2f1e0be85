// Throwaway measurement script (not committed).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CASES } from './cases';
import { startBaseline, startGateway } from './children';
import { AdminClient, configureGateway } from './gateway-setup';
import { load } from './load';
const secs = Number(process.env.Q_SECS ?? 6);
const base = await startBaseline();
const gw = await startGateway(mkdtempSync(join(tmpdir(), 'gwq-')), false);
const admin = new AdminClient(gw.base);
await admin.login();
const setup = await configureGateway(admin);
const keys = (process.env.Q_CASES ?? 'asyncOpen').split(',');
const b = (await load({ url: `${base.base}/bench/x`, method: 'POST' }, secs, 50));
for (const key of keys) {
  const def = CASES.find((c) => c.key === key)!;
  await load(def.target(gw.base, setup), 2, 50);
  const r = await load(def.target(gw.base, setup), secs, 50);
  const b2 = await load({ url: `${base.base}/bench/x`, method: 'POST' }, secs, 50);
  console.log(`${key}: ${r.rps.toFixed(0)} req/s p50 ${r.p50} p99 ${r.p99} | baseline ${b.rps.toFixed(0)}/${b2.rps.toFixed(0)} p99 ${b.p99} | ratio ${(r.rps / ((b.rps + b2.rps) / 2)).toFixed(2)}`);
}
await gw.stop();
await base.stop();
process.exit(0);

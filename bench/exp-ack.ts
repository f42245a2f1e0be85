import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from './children';
import { AdminClient, configureGateway, ROUTES } from './gateway-setup';
import { load } from './load';

const dataDir = mkdtempSync(join(tmpdir(), 'exp-'));
const gw = await startGateway(dataDir, false);
try {
  const admin = new AdminClient(gw.base);
  await admin.login();
  await configureGateway(admin);
  const target = { url: `${gw.base}/bench/${process.env.EXP_ROUTE ?? ROUTES.asyncOpen}`, method: 'POST' as const, tagPool: 5000 };
  await load(target, 3, 50);
  for (let i = 0; i < 2; i++) {
    const r = await load(target, 10, 50);
    console.log(`req/s ${r.rps.toFixed(0)} p99 ${r.p99}`);
  }
} finally {
  await gw.stop();
}

import { startPostgresCluster, createDatabase } from '../helpers/postgres-cluster';
import { createGateway } from '../../server/gateway';
import { silentLogger } from '../../server/logger';
const cluster = await startPostgresCluster();
try {
  const url = await createDatabase(cluster.url, 'g1');
  const gw = await createGateway({ database: { kind: 'postgres', url }, logger: silentLogger, adminPassword: 'admin-password-1' });
  console.log(await gw.handlers.listRoles(undefined, { actor: 'x' }));
  const e = await gw.handlers.createEndpoint({ name: 'A', baseRoutePath: 'a', routes: [{ name: 'r1', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' }] }, { actor: 'x' });
  console.log(e.routes[0]);
  console.log(await gw.handlers.getStatus(undefined, { actor: 'x' }));
  await gw.close();
} finally { await cluster.stop(); }

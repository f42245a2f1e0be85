import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { ConfigChanges } from '../../server/db/config-changes';
import { LiveRoutes } from '../../server/intake/route-table';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ dataDir: mkdtempSync(join(tmpdir(), 'gateway-routes-')) });
  await gw.admin('POST', '/endpoints', {
    name: 'Lenient',
    baseRoutePath: 'lenient',
    routes: [
      {
        name: 'capture',
        eventType: 'EpcisObject',
        requestType: 'HttpPost',
        authType: 'noauth',
        async: true,
        epcisLenient: true,
      },
    ],
  });
});
afterAll(() => gw.close());

describe('the live route table', () => {
  it('answers a route by id from the reloaded table while it reloads, never "not there" (issue 38.10)', async () => {
    const changes = new ConfigChanges();
    const routes = new LiveRoutes(gw.gateway.db, changes);
    const [live] = (await routes.get()).values();
    expect(live?.route.epcisLenient).toBe(true);
    // A change marks the table stale: the worker asking now must wait for the new table.
    changes.publish('endpoints');
    expect(routes.get()).toBeInstanceOf(Promise);
    expect((await routes.byId(live?.route.id ?? -1))?.route.epcisLenient).toBe(true);
    expect(await routes.byId(-1)).toBeNull();
    await routes.settle();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startRig, type BrowserRig } from './browser';

/**
 * The desktop transport: when the preload has exposed `window.api` (an IpcBridge), the renderer
 * uses it instead of HTTP, with no login, unwrapping `{ok:true,data}` and turning `{ok:false}`
 * into field errors. The bridge here is a stand-in that copies every input with structuredClone,
 * as Electron's IPC does, so a Svelte state proxy leaking into a call fails the test.
 */
const FAKE_BRIDGE = `
  window.__calls = [];
  const ok = (data) => ({ ok: true, data });
  const endpoints = [];
  let attempts = 0;
  const answers = {
    getStatus: () => ok({ version: '9.9.9', uptimeSeconds: 3725, listenUrls: ['http://192.168.1.20:8080/GWENDPOINTAPI'],
      database: 'postgres', queueDepth: 4, eventsPerMinute: 12,
      mqtt: { mode: 'off', clients: 0 }, readers: { total: 0, online: 0, silent: 0, untracked: 0 },
      destinations: [{ id: 1, name: 'WMS', state: 'retrying', backlog: 42, oldestPendingAt: '2026-11-25T10:00:00.000Z',
        lastError: { at: '2026-11-25T10:00:05.000Z', status: 503, message: 'HTTP 503' }, routeCount: 1 }] }),
    getTraffic: () => ok({ minutes: Array.from({ length: 60 }, (_, i) => ({
      start: new Date(Date.now() - (59 - i) * 60000).toISOString(), count: (i * 7) % 11 })) }),
    listEndpoints: () => ok(endpoints),
    listRoles: () => ok([{ id: 1, name: 'admin', description: '', builtIn: true }, { id: 2, name: 'scanner', description: '', builtIn: false }]),
    createEndpoint: (input) => {
      attempts += 1;
      if (attempts === 1) {
        const message = 'Route name "' + input.routes[0].name + '" is already used';
        return { ok: false, code: 'route_name_taken', message, errors: [{ path: '/routes/0/name', message }] };
      }
      const endpoint = { id: 7, name: input.name, baseRoutePath: input.baseRoutePath, active: input.active,
        routes: input.routes.map((r, i) => ({ ...r, id: 70 + i, payloadType: 'GenericJson' })) };
      endpoints.push(endpoint);
      return ok(endpoint);
    },
  };
  window.api = new Proxy({}, {
    get: (_, name) => async (input) => {
      const copy = input === undefined ? undefined : structuredClone(input);
      window.__calls.push({ name, input: copy });
      const answer = answers[name];
      return answer ? answer(copy) : { ok: false, code: 'internal_error', message: name + ' is not part of this test' };
    },
  });
`;

describe('desktop transport (window.api)', { timeout: 120_000 }, () => {
  let rig: BrowserRig;
  const httpCalls: string[] = [];

  beforeAll(async () => {
    rig = await startRig();
    await rig.page.addInitScript(FAKE_BRIDGE);
    rig.page.on('request', (request) => {
      if (request.url().includes('/_admin/api') || request.url().endsWith('/token')) httpCalls.push(request.url());
    });
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('opens without a login and shows the state the bridge answers', async () => {
    const { page, adminUrl } = rig;
    await page.goto(adminUrl);
    await page.getByRole('heading', { level: 1, name: 'Dashboard', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await page.getByText('PostgreSQL', { exact: true }).waitFor();
    await page.getByText('1 h 2 min', { exact: true }).waitFor();
    await page.getByRole('listitem', { name: 'WMS' }).getByText('Retrying', { exact: true }).waitFor();
    await page.getByRole('img', { name: 'QR code for http://192.168.1.20:8080/GWENDPOINTAPI' }).waitFor();
    await screenshot(page, '19-desktop-dashboard');
  });

  it('sends plain inputs over IPC and shows an {ok:false} answer next to the field', async () => {
    const { page } = rig;
    await page.getByRole('link', { name: 'Endpoints', exact: true }).click();
    await page.getByRole('button', { name: '+ New Endpoint' }).click();
    await page.getByLabel('Endpoint Name', { exact: true }).fill('Scanners');
    await page.getByLabel('Base Route Path', { exact: true }).fill('scanners');
    await page.getByLabel('Route Name', { exact: true }).fill('docs');
    await page.getByLabel('Auth Type', { exact: true }).selectOption('OAuth2');
    await page.getByRole('group', { name: 'Roles', exact: true }).getByRole('checkbox', { name: 'scanner' }).check();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();

    const routeName = page.getByLabel('Route Name', { exact: true });
    await page.locator('[id$="-name-error"]').filter({ hasText: 'Route name "docs" is already used' }).waitFor();
    expect(await routeName.getAttribute('aria-invalid')).toBe('true');

    await routeName.fill('docs2');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Created “Scanners”' }).waitFor();

    const calls = await page.evaluate<{ name: string; input: unknown }[]>('window.__calls');
    const creates = calls.filter((call) => call.name === 'createEndpoint');
    expect(creates).toHaveLength(2);
    expect(creates[1]?.input).toEqual({
      name: 'Scanners',
      baseRoutePath: 'scanners',
      active: true,
      routes: [
        {
          name: 'docs2',
          eventType: 'AllData',
          requestType: 'HttpPost',
          authType: 'OAuth2',
          active: true,
          async: false,
          roles: ['scanner'],
          epcisLenient: false,
          mqttTopic: null,
          destinations: [],
        },
      ],
    });
    // Everything went through the bridge: no HTTP admin call, no login.
    expect(httpCalls).toEqual([]);
    expect(rig.problems).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, settledReceipt } from '../helpers/test-gateway';
import { axeViolations, screenshot, signIn, startRig, type BrowserRig } from './browser';

/**
 * Issue 40, "a technician's first hour": what a new user met that hid a change or misled. One
 * real gateway and one Chromium page for the file; each test names the item it guards.
 */
describe('web admin: a technician’s first hour (issue 40)', { timeout: 120_000 }, () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startRig();
    await signIn(rig.page, rig.adminUrl);
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('1. the import preview shows every resource of the dry run, destinations and unknown keys included', async () => {
    const { page, gateway } = rig;
    const exported = await fetch(`${gateway.base}/_admin/api/backup/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await gateway.adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ passphrase: 'backup-passphrase-1' }),
    });
    expect(exported.status).toBe(200);
    const file = Buffer.from(await exported.arrayBuffer());
    // Added after the export: applying the backup would delete it, and the preview must say so.
    expect((await gateway.admin('POST', '/destinations', { name: 'ERP', url: 'https://erp.example/in' })).status).toBe(
      201,
    );

    await page.setViewportSize({ width: 390, height: 844 });
    // At 390 px the navigation is folded into a menu: go by the address, as a bookmark would.
    await page.goto(`${rig.adminUrl}#/backup`);
    await page.getByRole('heading', { level: 1, name: 'Backup', exact: true }).waitFor();
    await page.getByText('Endpoints, routes, destinations,').waitFor();
    await page
      .getByLabel('Backup file', { exact: true })
      .setInputFiles({ name: 'gateway.gwbackup', mimeType: 'application/octet-stream', buffer: file });
    await page.getByLabel('Import passphrase', { exact: true }).fill('backup-passphrase-1');
    const preview = page.getByRole('button', { name: 'Preview changes' });
    await preview.click();
    const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
    // Columns: resource, added, changed, removed.
    await row('Destinations').getByRole('cell').nth(2).getByText('ERP', { exact: true }).waitFor();
    expect(await page.getByText('applying it changes nothing').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'first-hour-1-backup-destinations-390');

    // A key this screen has never heard of (a resource added to backups later) is still shown.
    type Lists = { added: string[]; changed: string[]; removed: string[] };
    const empty: Lists = { added: [], changed: [], removed: [] };
    const base = ['endpoints', 'roles', 'users', 'externalUsers', 'accessTokens', 'settings', 'destinations'];
    const answer = (extra: Record<string, Lists>) => ({
      dryRun: true,
      changes: { ...Object.fromEntries(base.map((key) => [key, empty])), ...extra },
      settingChanges: [],
    });
    let body = answer({ readerProfiles: { added: [], changed: [], removed: ['Dock reader'] } });
    await page.route('**/_admin/api/backup/import', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(body) }),
    );
    await preview.click();
    await row('Reader profiles').getByRole('cell').nth(2).getByText('Dock reader', { exact: true }).waitFor();
    expect(await page.getByText('applying it changes nothing').count()).toBe(0);

    // "Changes nothing" only when the server's diff is empty.
    body = answer({ readerProfiles: empty });
    await preview.click();
    await page.getByText('The backup matches the current configuration: applying it changes nothing.').waitFor();
    await page.unroute('**/_admin/api/backup/import');
    expect(rig.problems).toEqual([]);
  });

  it('2. one form state on Settings: the unsaved-changes guard names HTTPS mode and the dedup window', async () => {
    const { page, gateway } = rig;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${rig.adminUrl}#/settings`);
    await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor();
    await page.getByLabel('HTTPS mode', { exact: true }).selectOption('off');
    await page.getByLabel('Tag dedup window (ms)', { exact: true }).fill('500');
    await page.getByText('2 unsaved changes: HTTPS mode, Tag dedup window (ms)').waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Roles', exact: true }).click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.getByText('2 unsaved changes: HTTPS mode, Tag dedup window (ms).').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await leave.getByRole('button', { name: 'Cancel' }).click();

    // One Submit stores both.
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByText('No unsaved changes.').waitFor();
    expect((await gateway.admin('GET', '/settings')).body).toMatchObject({ tlsMode: 'off', tagDedupWindowMs: 500 });
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'first-hour-2-settings-1280');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Roles', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Roles', exact: true }).waitFor();
    expect(rig.problems).toEqual([]);
  });

  it('3. refused requests: who, what and why on Events, filtered by source, counted per route, bounded', async () => {
    const { page, gateway } = rig;
    expect(
      (
        await gateway.admin('POST', '/endpoints', {
          name: 'Dock door 4',
          baseRoutePath: 'dock4',
          routes: [{ name: 'dock4-tags', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'basic' }],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await gateway.admin('POST', '/external-users', {
          username: 'reader4',
          password: 'right-password-1',
          routes: ['dock4-tags'],
        })
      ).status,
    ).toBe(201);
    // The test's requests all come from 127.0.0.1: trusting it as a proxy lets each name a source.
    expect((await gateway.admin('PUT', '/settings', { trustedProxies: ['127.0.0.1'] })).status).toBe(200);
    const send = (path: string, from: string, headers: Record<string, string>, body = 'SECRET-BODY-1') =>
      fetch(`${gateway.base}${path}`, { method: 'POST', headers: { 'x-forwarded-for': from, ...headers }, body });
    const good = basic('reader4', 'right-password-1');
    expect(
      (await send('/dock4/dock4-tags', '10.0.0.7', { authorization: good, 'content-type': 'text/plain' })).status,
    ).toBe(415);
    expect((await send('/dock4/wrong-route', '10.0.0.7', { 'content-type': 'application/json' })).status).toBe(404);
    const wrong = basic('reader4', 'WRONG-PASSWORD-9');
    expect(
      (await send('/dock4/dock4-tags', '10.0.0.8', { authorization: wrong, 'content-type': 'application/json' }))
        .status,
    ).toBe(401);

    // The admin contract: newest first, plain words, nothing the client sent but method and path.
    const listed = await gateway.admin('GET', '/refusals');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: { status: number }) => r.status)).toEqual([401, 404, 415]);
    expect(listed.body.items[2]).toMatchObject({
      source: '10.0.0.7',
      method: 'POST',
      path: '/GWENDPOINTAPI/dock4/dock4-tags',
      code: 'unsupported_media_type',
      route: 'dock4-tags',
    });
    const text = JSON.stringify(listed.body);
    for (const secret of ['SECRET-BODY-1', 'WRONG-PASSWORD-9', good.slice(6), wrong.slice(6), 'text/plain'])
      expect(text).not.toContain(secret);
    expect((await gateway.admin('GET', '/refusals?source=10.0.0.8')).body.items).toHaveLength(1);

    // Counted per route in /_metrics.
    const metrics = await (await fetch(`${gateway.base}/_metrics`)).text();
    expect(metrics).toMatch(/gateway_refused_requests_total\{route="dock4-tags",code="unsupported_media_type"\} 1/);
    expect(metrics).toMatch(/gateway_refused_requests_total\{route="dock4-tags",code="credentials_invalid"\} 1/);
    expect(metrics).toMatch(/gateway_refused_requests_total\{route="",code="route_not_found"\} 1/);

    // On the Events screen, at a phone's width and a laptop's.
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${rig.adminUrl}#/events`);
      const panel = page.getByRole('region', { name: 'Refused requests' });
      await panel
        .getByText('The body was not sent as JSON: set the client’s Content-Type to application/json.')
        .waitFor();
      await panel.getByText('The username, password or token was not accepted', { exact: false }).waitFor();
      await panel.getByText('No active route at this address', { exact: false }).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `first-hour-3-refused-${width}`);
    }
    const panel = page.getByRole('region', { name: 'Refused requests' });
    await panel.getByLabel('Source address', { exact: true }).selectOption('10.0.0.8');
    await panel.getByText('No active route at this address', { exact: false }).waitFor({ state: 'detached' });
    expect(await panel.getByRole('row').count()).toBe(2);
    await panel.getByText('The username, password or token was not accepted', { exact: false }).waitFor();
    expect(await page.locator('body').innerText()).not.toContain('WRONG-PASSWORD-9');

    // One noisy source cannot push the others out: it replaces its own oldest entries.
    for (let i = 0; i < 130; i += 1) await send(`/noise/${i}`, '10.0.0.99', { 'content-type': 'application/json' });
    const after = (await gateway.admin('GET', '/refusals')).body;
    expect(after.items.filter((r: { source: string }) => r.source === '10.0.0.99')).toHaveLength(100);
    expect(after.items[0].path).toBe('/GWENDPOINTAPI/noise/129');
    expect(after.items.filter((r: { source: string }) => r.source !== '10.0.0.99')).toHaveLength(3);
    expect((await gateway.admin('PUT', '/settings', { trustedProxies: [] })).status).toBe(200);
    expect(rig.problems).toEqual([]);
  });

  it('4. an async rejection reads as field → sentence, the JSON Pointer in small print; the form says why', async () => {
    const { page, gateway } = rig;
    expect(
      (
        await gateway.admin('POST', '/endpoints', {
          name: 'Dock door 5',
          baseRoutePath: 'dock5',
          routes: [
            {
              name: 'dock5-tags',
              eventType: 'CustomTrigger',
              requestType: 'HttpPost',
              authType: 'noauth',
              async: true,
            },
          ],
        })
      ).status,
    ).toBe(201);
    const answer = await fetch(`${gateway.base}/dock5/dock5-tags`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ trigger: 'door-open', occurredAt: 'yesterday', params: {} }),
    });
    expect(answer.status).toBe(202);
    const receipt = await settledReceipt(gateway, answer.headers.get('location') ?? '');
    expect(receipt.status).toBe('rejected');
    const [first] = receipt.errors as { path: string; message: string }[];
    expect(first?.path).toMatch(/^\/./);

    await page.setViewportSize({ width: 390, height: 844 });
    // Test 3 left the page on Events: reload it so the list holds the newest events.
    await page.goto(`${rig.adminUrl}#/events`);
    await page.reload();
    await page
      .getByRole('button', { name: /Open event received/ })
      .first()
      .click();
    const detail = page.getByRole('region', { name: /^Event / });
    const item = detail.locator('.event-errors li').first();
    await item.getByText(first?.message ?? '', { exact: false }).waitFor();
    const pointer = item.locator('small.error-pointer');
    expect(await pointer.innerText()).toBe(`JSON Pointer ${first?.path}`);
    // Small print on a line of its own, under the sentence.
    const [pointerSize, itemSize, display] = await page.evaluate<[string, string, string]>(
      `(() => { const el = document.querySelector('.event-errors li small.error-pointer'); const style = getComputedStyle(el); return [style.fontSize, getComputedStyle(el.parentElement).fontSize, style.display]; })()`,
    );
    expect(parseFloat(pointerSize)).toBeLessThan(parseFloat(itemSize));
    expect(display).toBe('block');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'first-hour-4-async-rejection-390');

    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${rig.adminUrl}#/endpoints`);
    await page.getByRole('button', { name: '+ New Endpoint' }).click();
    await page
      .getByText('Answers 202 before validating: a payload the event type refuses shows later in Events', {
        exact: false,
      })
      .first()
      .waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(rig.problems).toEqual([]);
  });
});

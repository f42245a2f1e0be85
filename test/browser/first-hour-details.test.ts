import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatZonedTime } from '../../renderer/src/events/event-text';
import { childAdminToken, startChildGateway, type ChildGateway } from '../helpers/child-gateway';
import { axeViolations, goTo, launchChromium, screenshot, signIn, startRig, type BrowserRig } from './browser';

const WIDTHS = [390, 1280, 1920] as const;
const HEIGHTS: Record<(typeof WIDTHS)[number], number> = { 390: 844, 1280: 800, 1920: 1080 };

/** Whether the element is wholly inside the window as it is scrolled now. */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  if (!box || !viewport) return false;
  return box.y >= 0 && box.y + box.height <= viewport.height && box.x >= 0 && box.x + box.width <= viewport.width;
}

/** A confirmation in the toast region (a status live region), by its text. */
const toast = (page: Page, text: string): Locator =>
  page.getByRole('status').locator('.toast').filter({ hasText: text }).last();

const noSidewaysScroll = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');

/** Where the web admin goes at a phone's width: by the address, as the navigation is folded into a menu. */
async function open(page: Page, adminUrl: string, hash: string, heading: string): Promise<void> {
  await page.goto(`${adminUrl}#/${hash}`);
  await page.reload();
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
}

/**
 * Issue 40 item 7, "small things that cost minutes": each test names the thing it guards, at the
 * widths where it matters. One real gateway (listening on 127.0.0.1) and one Chromium page.
 */
describe('web admin: small things that cost minutes (issue 40.7)', { timeout: 180_000 }, () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startRig();
    await signIn(rig.page, rig.adminUrl);
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('an empty dashboard shows the first steps until an endpoint exists and something has arrived', async () => {
    const { page, gateway } = rig;
    const steps = page.getByRole('region', { name: 'First steps' });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: HEIGHTS[width] });
      await open(page, rig.adminUrl, 'dashboard', 'Dashboard');
      await steps.getByText('Create an endpoint').waitFor();
      expect(await steps.getByRole('link', { name: 'Client Settings › Endpoints' }).getAttribute('href')).toBe(
        '#/endpoints',
      );
      await steps.getByText('Point a reader at the route').waitFor();
      expect(await noSidewaysScroll(page)).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `first-hour-7-first-steps-${width}`);
    }

    // An endpoint exists: step 1 is done, step 2 gives the route's full address to copy.
    const created = await gateway.admin('POST', '/endpoints', {
      name: 'Dock',
      baseRoutePath: 'dock',
      routes: [{ name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' }],
    });
    expect(created.status).toBe(201);
    await page.reload();
    await steps.getByText('Done: an endpoint exists').waitFor();
    await steps.getByRole('button', { name: `Copy ${gateway.base}/dock/reads`, exact: true }).waitFor();
    expect(await steps.locator('.copy-url code').innerText()).toBe(`POST ${gateway.base}/dock/reads`);

    // Something arrived: the steps are done and leave the dashboard.
    const read = await fetch(`${gateway.base}/dock/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ epc: '3074257BF7194E4000001A85', antenna: 1, rssi: -52 }),
    });
    expect(read.ok).toBe(true);
    await page.reload();
    await page.getByRole('region', { name: 'Listen URLs' }).waitFor();
    expect(await steps.count()).toBe(0);
    expect(rig.problems).toEqual([]);
  });

  it('Create and Save on Endpoints confirm in view; Copy only for saved routes, "POST http://…" spaced', async () => {
    const { page, gateway } = rig;
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: HEIGHTS[width] });
      await open(page, rig.adminUrl, 'endpoints', 'Endpoints');
      await page.getByRole('button', { name: '+ New Endpoint' }).click();
      await page.getByLabel('Endpoint Name', { exact: true }).fill(`Door ${width}`);
      await page.getByLabel('Base Route Path', { exact: true }).fill(`door${width}`);
      const first = page.getByRole('group', { name: 'Route 1', exact: true });
      await first.getByLabel('Route Name', { exact: true }).fill(`door${width}-tags`);
      // Not saved yet: the path to expect, no full address to copy.
      await first.getByText('Full addresses to copy appear once the endpoint is saved.').waitFor();
      expect(await first.getByRole('button', { name: /^Copy / }).count()).toBe(0);

      await page.getByRole('button', { name: 'Submit', exact: true }).click();
      // The confirmation is where the technician looks, whatever the scroll after Submit.
      const created = toast(page, `Created “Door ${width}”. Its routes are live now.`);
      await created.waitFor();
      expect(await inView(page, created)).toBe(true);
      const url = `${gateway.base}/door${width}/door${width}-tags`;
      await first.getByRole('button', { name: `Copy ${url}`, exact: true }).waitFor();
      expect(await first.locator('.copy-url code').first().innerText()).toBe(`POST ${url}`);
      expect(await noSidewaysScroll(page)).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `first-hour-7-created-toast-${width}`);

      // A route added to the saved endpoint answers only once saved: no Copy on its card until then.
      await page.getByRole('button', { name: 'Add Route' }).click();
      const second = page.getByRole('group', { name: 'Route 2', exact: true });
      await second.getByLabel('Route Name', { exact: true }).fill(`door${width}-docs`);
      await second.getByText('Full addresses to copy appear once the endpoint is saved.').waitFor();
      expect(await second.getByRole('button', { name: /^Copy / }).count()).toBe(0);
      expect(await first.getByRole('button', { name: `Copy ${url}`, exact: true }).count()).toBe(1);
      // Renaming a saved route makes its address a new one: no Copy until saved either.
      await first.getByLabel('Route Name', { exact: true }).fill(`door${width}-reads`);
      expect(await first.getByRole('button', { name: /^Copy / }).count()).toBe(0);

      await page.getByRole('button', { name: 'Submit', exact: true }).click();
      const saved = toast(page, `Saved “Door ${width}”`);
      await saved.waitFor();
      expect(await inView(page, saved)).toBe(true);
      await second
        .getByRole('button', { name: `Copy ${gateway.base}/door${width}/door${width}-docs`, exact: true })
        .waitFor();
      await first
        .getByRole('button', { name: `Copy ${gateway.base}/door${width}/door${width}-reads`, exact: true })
        .waitFor();
      await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    }
    expect(rig.problems).toEqual([]);
  });

  it('Settings confirms its save in view, and names HTTP’s port apart from HTTPS’s', async () => {
    const { page, gateway } = rig;
    const port = new URL(gateway.base).port;
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: HEIGHTS[width] });
      await open(page, rig.adminUrl, 'settings', 'Settings');
      // This gateway listens on a free port for HTTP and has no HTTPS listener: one line, HTTP's.
      const banner = page.getByRole('status').filter({ hasText: 'Not listening on the stored port' });
      await banner.getByText(`HTTP: listens on port ${port} now; stored HTTP port 8080.`).waitFor();
      expect(await banner.getByText('HTTPS:').count()).toBe(0);
      const dedup = page.getByLabel('Tag dedup window (ms)', { exact: true });
      await dedup.fill(String(1000 + width));
      await page.getByRole('button', { name: 'Submit', exact: true }).click();
      const saved = toast(page, 'Settings saved.');
      await saved.waitFor();
      expect(await inView(page, saved)).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `first-hour-7-settings-saved-${width}`);
    }
    expect((await gateway.admin('GET', '/settings')).body.tagDedupWindowMs).toBe(1000 + 1920);
    expect(rig.problems).toEqual([]);
  });

  it('a route-name clash says which endpoint holds the name, beside the field', async () => {
    const { page, gateway } = rig;
    const holder = await gateway.admin('POST', '/endpoints', {
      name: 'Gate',
      baseRoutePath: 'gate',
      routes: [{ name: 'gate-reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' }],
    });
    expect(holder.status).toBe(201);
    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: HEIGHTS[width] });
      await open(page, rig.adminUrl, 'endpoints', 'Endpoints');
      await page.getByRole('button', { name: '+ New Endpoint' }).click();
      await page.getByLabel('Endpoint Name', { exact: true }).fill('Yard');
      await page.getByLabel('Base Route Path', { exact: true }).fill('yard');
      const route = page.getByRole('group', { name: 'Route 1', exact: true });
      const name = route.getByLabel('Route Name', { exact: true });
      await name.fill('gate-reads');
      await page.getByRole('button', { name: 'Submit', exact: true }).click();
      await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await name.getAttribute('aria-describedby')) ?? '';
      expect(await page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).innerText()).toContain(
        'Route name "gate-reads" is already used by endpoint "Gate"',
      );
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `first-hour-7-route-clash-${width}`);
      await page.getByRole('button', { name: 'Cancel', exact: true }).click();
      // Leaving the unsaved endpoint: confirm.
      const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
      if (await leave.isVisible()) await leave.getByRole('button', { name: 'Leave' }).click();
    }
    expect(rig.problems).toEqual([]);
  });

  it('every screen shows times in one format, in the gateway’s time zone, with the zone named', async () => {
    const { page, gateway } = rig;
    // A zone this machine is not in, so a time shown in the computer's zone cannot pass for it.
    const local = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const zone = local === 'Asia/Kolkata' ? 'America/Santiago' : 'Asia/Kolkata';
    expect((await gateway.admin('PUT', '/settings', { timeZone: zone })).status).toBe(200);
    expect((await gateway.admin('POST', '/roles', { name: 'scanner' })).status).toBe(201);
    const token = await gateway.admin('POST', '/access-tokens', {
      name: 'erp',
      role: 'scanner',
      expiryDate: '2099-12-31',
    });
    expect(token.status).toBe(201);
    const [admin] = (await gateway.admin('GET', '/users')).body as { username: string; createdAt: string }[];
    const shown = (iso: string) => `${formatZonedTime(iso, zone)} ${zone}`;
    const format = new RegExp(`^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} ${zone.replace('/', '\\/')}$`);

    for (const width of [390, 1280] as const) {
      await page.setViewportSize({ width, height: HEIGHTS[width] });
      await open(page, rig.adminUrl, 'users', 'Users');
      const userRow = page.getByRole('row').filter({ hasText: admin?.username ?? 'admin' });
      await userRow.getByText(shown(admin?.createdAt ?? '')).waitFor();
      expect(shown(admin?.createdAt ?? '')).toMatch(format);
      expect(await axeViolations(page)).toEqual([]);

      await open(page, rig.adminUrl, 'access-tokens', 'Access Token');
      const tokenRow = page.getByRole('row').filter({ hasText: 'erp' });
      await tokenRow.getByText(shown(token.body.createdDate)).waitFor();
      await tokenRow.getByText('2099-12-31', { exact: true }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, `first-hour-7-dates-tokens-${width}`);

      // Events: the same format, the zone named once in the column's head.
      await open(page, rig.adminUrl, 'events', 'Events');
      const events = page.locator('table.events-table');
      await events.locator('thead').getByText(zone).waitFor();
      const cell = await events.locator('tbody time').first().innerText();
      expect(`${cell} ${zone}`).toMatch(format);
    }
    expect(rig.problems).toEqual([]);
  });
});

/** The machine's LAN IPv4 addresses: where a gateway bound to 0.0.0.0 is reached from the LAN. */
function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry.address);
}

/**
 * A real `gateway serve` bound to every address with HTTPS beside HTTP (the defaults a site
 * gets), as a child process: its startup lines (item 8) and the dashboard's listen URLs (item 7).
 */
describe(
  'gateway serve on every address: startup lines and the dashboard’s addresses (issue 40.7, 40.8)',
  {
    timeout: 180_000,
  },
  () => {
    let child: ChildGateway;
    let dataDir: string;
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'gateway-first-hour-'));
      child = await startChildGateway(['--data-dir', dataDir, '--host', '0.0.0.0']);
      // The web admin's lines follow the listening lines: wait for the last of them (loopback HTTPS).
      for (let waited = 0; !/Web admin: https:\/\/127\.0\.0\.1/.test(child.stdout()) && waited < 20_000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.on('pageerror', (error) => problems.push(error.message));
    });

    afterAll(async () => {
      await browser?.close();
      if (child) {
        child.process.kill('SIGTERM');
        await child.exited;
      }
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('prints the web admin’s URL for every address, HTTP and HTTPS, once listening', async () => {
      const lines = child.stdout().split('\n');
      const httpsPort = Number(/Gateway listening on https:\/\/[^:]+:(\d+)\//.exec(child.stdout())?.[1]);
      expect(httpsPort).toBeGreaterThan(0);
      const admin = lines.filter((line) => line.startsWith('Web admin: '));
      const expected = [...lanAddresses(), '127.0.0.1'].flatMap((address) => [
        `Web admin: http://${address}:${child.port}/GWENDPOINTAPI/_admin/`,
        `Web admin: https://${address}:${httpsPort}/GWENDPOINTAPI/_admin/`,
      ]);
      expect([...admin].sort()).toEqual([...expected].sort());
      // After the listening lines.
      const last = lines.findLastIndex((line) => line.startsWith('Gateway listening'));
      expect(lines.findIndex((line) => line.startsWith('Web admin: '))).toBeGreaterThan(last);
      // Each printed address opens the web admin.
      const first = admin.find((line) => line.includes('http://'))?.slice('Web admin: '.length) ?? '';
      const answer = await fetch(first);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain('<title>');
    });

    it('the dashboard shows one QR code, for the LAN address; the others are folded', async () => {
      const adminUrl = `${child.base}/_admin/`;
      await signIn(page, adminUrl);
      const status = (await (
        await fetch(`${child.base}/_admin/api/status`, {
          headers: { authorization: `Bearer ${await childAdminToken(child.base)}` },
        })
      ).json()) as { listenUrls: string[] };
      const web = status.listenUrls.filter((url) => url.startsWith('http'));
      expect(web.length).toBeGreaterThanOrEqual(2);
      const lan = lanAddresses()[0];
      const primary = lan ? `http://${lan}:${child.port}/GWENDPOINTAPI` : web[0];
      const listen = page.getByRole('region', { name: 'Listen URLs' });
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: HEIGHTS[width] });
        await page.reload();
        const qr = listen.getByRole('img', { name: `QR code for ${primary}` });
        await qr.waitFor();
        expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
        const visible = await listen
          .getByRole('img')
          .evaluateAll((images) =>
            images
              .filter((image) => (image as unknown as { offsetParent: unknown }).offsetParent !== null)
              .map((image) => image.getAttribute('alt')),
          );
        expect(visible).toEqual([`QR code for ${primary}`]);
        // No QR code for this machine's loopback: another device cannot reach it.
        expect(await page.locator('img[alt*="127.0.0.1"]').count()).toBe(0);
        const others = listen.locator('details');
        expect(await others.getAttribute('open')).toBeNull();
        await others.getByText(`Other addresses (${status.listenUrls.length - 1})`).waitFor();
        expect(await noSidewaysScroll(page)).toBe(true);
        expect(await axeViolations(page)).toEqual([]);
        await screenshot(page, `first-hour-7-dashboard-listen-${width}`);
      }
      // Unfolded, every other address is there to copy.
      await listen.getByText(/^Other addresses/).click();
      for (const url of status.listenUrls)
        if (url !== primary) await listen.getByRole('button', { name: `Copy ${url}`, exact: true }).waitFor();
      expect(await axeViolations(page)).toEqual([]);

      // Started with --port 0: HTTP and HTTPS each differ from their stored port, each on its own line.
      await goTo(page, 'Settings');
      const httpsPort = new URL(web.find((url) => url.startsWith('https:')) ?? '').port;
      const banner = page.getByRole('status').filter({ hasText: 'Not listening on the stored port' });
      await banner.getByText(`HTTP: listens on port ${child.port} now; stored HTTP port 8080.`).waitFor();
      await banner.getByText(`HTTPS: listens on port ${httpsPort} now; stored HTTPS port 8443.`).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'first-hour-7-settings-ports-1920');
      expect(problems).toEqual([]);
    });
  },
);

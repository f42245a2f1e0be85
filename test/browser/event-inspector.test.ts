import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../helpers/test-gateway';
import { goTo, screenshot, signIn, startRig, type BrowserRig } from './browser';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const COLUMNS = ['Received', 'Route', 'Endpoint', 'Event Type', 'Status', 'Result', 'Sender', 'Source address'];
/** Zones without daylight saving time, so the expected wall clock is a fixed offset from UTC. */
const KATHMANDU = { zone: 'Asia/Kathmandu', offsetMinutes: 5 * 60 + 45 };
const CARACAS = { zone: 'America/Caracas', offsetMinutes: -4 * 60 };
/** The longest sender and source address there can be: they must wrap, not widen the table. */
const LONG_USERNAME = 'a_technician_with_the_longest_username_the_gateway_allows_at_all'.slice(0, 64);
const IPV6_CLIENT = '2001:db8:85a3:1234:5678:8a2e:370:7334';

/** `2026-11-24 11:42:07.123`: the instant at a fixed offset, worked out without Intl (the oracle). */
function wallClock(iso: string, offsetMinutes: number): string {
  return new Date(Date.parse(iso) + offsetMinutes * 60_000).toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * The event inspector (issue 26 item 7): every column kept beside an open detail at 1920 px,
 * filters that close a detail they no longer list, times in the gateway's named zone with
 * milliseconds, readable error paths, and an auto-refresh that is off until asked for.
 */
describe('web admin: event inspector', { timeout: 120_000 }, () => {
  let rig: BrowserRig;

  const post = (route: string, body: string) =>
    fetch(`${rig.gateway.base}/dock3/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  const eventRows = () => rig.page.locator('.events-table tbody tr');
  const detail = () => rig.page.getByRole('region', { name: /^Event / });
  const rowOf = (text: string) => rig.page.getByRole('row').filter({ hasText: text });
  /** The Events screen at a width where the phone menu may hide the navigation. */
  const openEventsAt = async (width: number) => {
    const { page } = rig;
    for (const name of ['Dashboard', 'Events']) {
      if (width < 720 && !(await page.getByRole('navigation', { name: 'Main' }).isVisible())) {
        await page.getByRole('button', { name: 'Menu' }).click();
      }
      await goTo(page, name);
    }
  };
  /** A fresh Events screen (no filters, nothing open): by way of the dashboard. */
  const openEvents = async () => {
    await goTo(rig.page, 'Dashboard');
    await goTo(rig.page, 'Events');
  };

  beforeAll(async () => {
    rig = await startRig();
    const { gateway, page } = rig;
    // The loopback peer is a trusted proxy: a client's address comes from X-Forwarded-For.
    const settings = await gateway.admin('PUT', '/settings', {
      timeZone: KATHMANDU.zone,
      trustedProxies: ['127.0.0.1'],
    });
    expect(settings.status).toBe(200);
    const created = await gateway.admin('POST', '/endpoints', {
      name: 'Dock door 3 with a long endpoint name',
      baseRoutePath: 'dock3',
      routes: [
        { name: 'dock3-docs', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' },
        {
          name: 'dock3-tags-from-the-reader-at-the-door',
          eventType: 'UHFTagRead',
          requestType: 'HttpPost',
          authType: 'noauth',
        },
        { name: 'dock3-secure', eventType: 'AllData', requestType: 'HttpPost', authType: 'basic' },
      ],
    });
    expect(created.status).toBe(201);
    const reader = { username: LONG_USERNAME, password: 'reader-password-1', routes: ['dock3-secure'] };
    expect((await gateway.admin('POST', '/external-users', reader)).status).toBe(201);
    const secure = await fetch(`${gateway.base}/dock3/dock3-secure`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: basic(LONG_USERNAME, 'reader-password-1'),
        'x-forwarded-for': IPV6_CLIENT,
      },
      body: JSON.stringify([{ document: 'a' }, { document: 'b' }]),
    });
    expect(secure.status, await secure.clone().text()).toBe(200);
    expect((await post('dock3-docs', JSON.stringify({ document: 'delivery-note', lines: 3 }))).status).toBe(200);
    // A scalar is no AllData document: rejected with an error about the whole document (path "").
    expect((await post('dock3-docs', '42')).status).toBe(422);
    const tags = await post(
      'dock3-tags-from-the-reader-at-the-door',
      JSON.stringify([{ epc: '3074257BF7194E4000001A85', antenna: 2, rssi: -51 }]),
    );
    expect(tags.status).toBe(200);
    await page.setViewportSize({ width: 1920, height: 1080 });
    await signIn(page, rig.adminUrl);
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('1920×1080 with a detail open: every column header is on screen and nothing overflows', async () => {
    const { page } = rig;
    await openEvents();
    await eventRows().nth(3).waitFor();
    await rowOf(IPV6_CLIENT).getByText(`external:${LONG_USERNAME}`).waitFor();
    await rowOf('1 item')
      .getByRole('button', { name: /Open event/ })
      .click();
    await detail().waitFor();
    await page.waitForTimeout(200);

    const wrap = page.locator('.events-table-wrap');
    const wrapBox = await wrap.boundingBox();
    expect(wrapBox).not.toBeNull();
    const headers = page.locator('.events-table').getByRole('columnheader');
    expect(await headers.count()).toBe(COLUMNS.length);
    for (const [i, name] of COLUMNS.entries()) {
      const header = headers.nth(i);
      expect((await header.textContent())?.trim().startsWith(name), `column ${i}`).toBe(true);
      expect(await header.isVisible(), name).toBe(true);
      const box = await header.boundingBox();
      expect(box, name).not.toBeNull();
      expect(box!.x + box!.width, `${name} ends inside the table`).toBeLessThanOrEqual(
        wrapBox!.x + wrapBox!.width + 0.5,
      );
    }
    // The detail sits beside the table, not over or under it.
    const detailBox = await detail().boundingBox();
    expect(detailBox!.x).toBeGreaterThanOrEqual(wrapBox!.x + wrapBox!.width);
    expect(detailBox!.x + detailBox!.width).toBeLessThanOrEqual(1920);
    const sizes = await wrap.evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }));
    expect(sizes.scroll, 'the table scrolls sideways').toBeLessThanOrEqual(sizes.client);
    expect(
      await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
    ).toBeLessThanOrEqual(0);

    const violations = await page.evaluate<{ id: string }[]>(
      `${AXE_SOURCE}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target) })))`,
    );
    expect(violations).toEqual([]);
    await screenshot(page, 'event-inspector-1920-detail');
  });

  for (const width of [1280, 390]) {
    it(`${width} px: the detail opens below the table, in view, and nothing scrolls sideways`, async () => {
      const { page } = rig;
      await page.setViewportSize({ width, height: 800 });
      try {
        await openEventsAt(width);
        await rowOf(IPV6_CLIENT)
          .getByRole('button', { name: /Open event/ })
          .click();
        await detail().getByText(`external:${LONG_USERNAME}`).waitFor();
        await page.waitForTimeout(200);
        const box = await detail().boundingBox();
        expect(box).not.toBeNull();
        // Scrolled to: its heading is on screen where the technician tapped, not below the fold.
        const heading = await detail().getByRole('heading', { level: 2 }).boundingBox();
        expect(heading!.y).toBeGreaterThanOrEqual(0);
        expect(heading!.y + heading!.height).toBeLessThanOrEqual(800);
        const wrap = await page
          .locator('.events-table-wrap')
          .evaluate((element) => element.scrollWidth - element.clientWidth);
        expect(wrap, 'the table scrolls sideways').toBeLessThanOrEqual(0);
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
        ).toBeLessThanOrEqual(0);
        await screenshot(page, `event-inspector-${width}-detail`);
      } finally {
        await page.setViewportSize({ width: 1920, height: 1080 });
      }
    });
  }

  it('shows times with milliseconds in the gateway’s time zone, named, and follows a zone change', async () => {
    const { page, gateway } = rig;
    const listed = await gateway.admin('GET', '/events?route=dock3-docs&status=processed');
    const [doc] = listed.body.items as { id: string; receivedAt: string; processedAt: string }[];
    expect(doc).toBeDefined();

    await openEvents();
    const time = page.locator(`tbody time[datetime="${doc.receivedAt}"]`);
    await expect.poll(() => time.textContent()).toBe(wallClock(doc.receivedAt, KATHMANDU.offsetMinutes));
    expect(await page.getByRole('columnheader', { name: /^Received/ }).textContent()).toContain(KATHMANDU.zone);

    await time.click();
    const received = detail().locator('dt:text-is("Received") + dd time');
    await expect
      .poll(() => received.textContent())
      .toBe(`${wallClock(doc.receivedAt, KATHMANDU.offsetMinutes)} ${KATHMANDU.zone}`);
    await expect
      .poll(() => detail().locator('dt:text-is("Processed") + dd time').textContent())
      .toBe(`${wallClock(doc.processedAt, KATHMANDU.offsetMinutes)} ${KATHMANDU.zone}`);

    // Changed on the gateway while the screen is open: Refresh shows the new zone.
    expect((await gateway.admin('PUT', '/settings', { timeZone: CARACAS.zone })).status).toBe(200);
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expect.poll(() => time.textContent()).toBe(wallClock(doc.receivedAt, CARACAS.offsetMinutes));
    expect(await page.getByRole('columnheader', { name: /^Received/ }).textContent()).toContain(CARACAS.zone);
    await expect
      .poll(() => received.textContent())
      .toBe(`${wallClock(doc.receivedAt, CARACAS.offsetMinutes)} ${CARACAS.zone}`);
    expect((await gateway.admin('PUT', '/settings', { timeZone: KATHMANDU.zone })).status).toBe(200);
  });

  it('words an error about the whole document as such, in the Result column and the detail', async () => {
    const { page } = rig;
    await openEvents();
    const rejected = page.getByRole('row').filter({ has: page.getByText('rejected', { exact: true }) });
    await rejected.waitFor();
    expect(await rejected.locator('td.event-result').textContent()).toContain(
      'the whole document: AllData requires a JSON object or array',
    );
    // The other rows say what processing made of them.
    await rowOf('1 item').waitFor();
    await rowOf('1 read').waitFor();

    await rejected.getByRole('button', { name: /Open event/ }).click();
    const errors = detail().getByRole('listitem');
    await expect.poll(() => errors.first().textContent()).toContain('the whole document');
    expect(await errors.count()).toBe(1);
    expect(await errors.first().locator('code').count()).toBe(0);
    expect(await errors.first().textContent()).not.toMatch(/(^|\s)\/(\s|$)/);
  });

  it('closes an open detail when a filter change no longer lists its event, and keeps one still listed', async () => {
    const { page } = rig;
    await openEvents();
    await rowOf('1 read')
      .getByRole('button', { name: /Open event/ })
      .click();
    await detail().getByText('UHFTagRead', { exact: true }).waitFor();

    await page.getByLabel('Route', { exact: true }).selectOption('dock3-docs');
    await expect.poll(() => eventRows().count()).toBe(2);
    await expect.poll(() => detail().count()).toBe(0);

    await rowOf('1 item')
      .getByRole('button', { name: /Open event/ })
      .click();
    await detail().getByText('AllData', { exact: true }).waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('processed');
    await expect.poll(() => eventRows().count()).toBe(1);
    expect(await detail().count()).toBe(1);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => eventRows().count()).toBe(4);
    expect(await detail().count()).toBe(1);
  });

  it('auto-refresh: off by default; when on it lists new events, paused while a detail is open or the tab is hidden', async () => {
    const { page } = rig;
    await openEvents();
    const toggle = page.getByLabel('Auto-refresh', { exact: true });
    expect(await toggle.isChecked()).toBe(false);
    await expect.poll(() => eventRows().count()).toBe(4);

    expect((await post('dock3-docs', JSON.stringify({ document: 'late-1' }))).status).toBe(200);
    // Longer than the refresh interval: without the toggle nothing changes.
    await page.waitForTimeout(6_500);
    expect(await eventRows().count()).toBe(4);

    await toggle.check();
    await expect.poll(() => eventRows().count(), { timeout: 15_000 }).toBe(5);

    // While a detail is open the list holds still.
    await eventRows()
      .first()
      .getByRole('button', { name: /Open event/ })
      .click();
    await detail().waitFor();
    await page.getByText('Paused while an event is open.').waitFor();
    expect((await post('dock3-docs', JSON.stringify({ document: 'late-2' }))).status).toBe(200);
    await page.waitForTimeout(6_500);
    expect(await eventRows().count()).toBe(5);
    await detail().getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => eventRows().count(), { timeout: 15_000 }).toBe(6);

    // A hidden tab asks nothing (the page's visibility is stood in for: headless tabs never hide).
    await page.evaluate(`
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    `);
    expect((await post('dock3-docs', JSON.stringify({ document: 'late-3' }))).status).toBe(200);
    await page.waitForTimeout(6_500);
    expect(await eventRows().count()).toBe(6);
    await page.evaluate(`
      delete document.hidden;
      document.dispatchEvent(new Event('visibilitychange'));
    `);
    await expect.poll(() => eventRows().count(), { timeout: 15_000 }).toBe(7);
    expect(rig.problems).toEqual([]);
  });

  it('says what carried an event: transport MQTT with its topic, or HTTP with none', async () => {
    const { page, gateway } = rig;
    // The broker as `gateway serve` starts it, on a free port, switched on by the setting.
    await gateway.gateway.mqtt.listen({ host: '127.0.0.1', port: 0, mqttsPort: 0 });
    expect((await gateway.admin('PUT', '/settings', { mqttMode: 'on' })).status).toBe(200);
    const created = await gateway.admin('POST', '/endpoints', {
      name: 'Yard gate',
      baseRoutePath: 'yard',
      routes: [
        {
          name: 'yard-reads',
          eventType: 'UHFTagRead',
          requestType: 'HttpPost',
          authType: 'noauth',
          mqttTopic: 'yard/+/reads',
        },
      ],
    });
    expect(created.status).toBe(201);
    await expect.poll(() => gateway.gateway.mqtt.urls().length).toBe(1);
    const [broker] = gateway.gateway.mqtt.urls();
    const reader = await mqtt.connectAsync(broker, { reconnectPeriod: 0, clientId: 'rfd40-gate' });
    try {
      // QoS 1: acknowledged once stored (SPEC §15). Two reads here, one over HTTP, to tell them apart.
      const reads = [
        { epc: '3074257BF7194E4000001B01', antenna: 1, rssi: -48 },
        { epc: '3074257BF7194E4000001B02', antenna: 1, rssi: -50 },
      ];
      await reader.publishAsync('yard/gate1/reads', JSON.stringify(reads), { qos: 1 });
    } finally {
      await reader.endAsync();
    }
    const overHttp = await fetch(`${gateway.base}/yard/yard-reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ epc: '3074257BF7194E4000001B03', antenna: 2, rssi: -55 }]),
    });
    expect(overHttp.status).toBe(200);

    await openEvents();
    await page.getByLabel('Route', { exact: true }).selectOption('yard-reads');
    await expect.poll(() => eventRows().count()).toBe(2);
    const fact = (term: string) => detail().locator(`dt:text-is("${term}") + dd`);

    await rowOf('2 reads')
      .getByRole('button', { name: /Open event/ })
      .click();
    await expect.poll(() => fact('Transport').textContent()).toBe('MQTT');
    expect(await fact('Topic').textContent()).toBe('yard/gate1/reads');
    expect(await fact('Request ID').textContent()).toBe('mqtt:rfd40-gate:1');
    const violations = await page.evaluate<{ id: string }[]>(
      `${AXE_SOURCE}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target) })))`,
    );
    expect(violations).toEqual([]);
    await screenshot(page, 'event-inspector-mqtt-detail');

    await rowOf('1 read')
      .getByRole('button', { name: /Open event/ })
      .click();
    await expect.poll(() => fact('Transport').textContent()).toBe('HTTP');
    expect(await detail().locator('dt:text-is("Topic")').count()).toBe(0);
    expect(rig.problems).toEqual([]);
  });
});

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../helpers/receiver';
import {
  axeViolations,
  goToAtAnyWidth,
  screenshot,
  sidewaysOverflow,
  signIn,
  startRig,
  type BrowserRig,
} from './browser';

const ZONE = 'Europe/Berlin';
const WIDTHS = [390, 1280, 1920] as const;
const read = (n: number) => ({
  epc: (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase(),
  antenna: 1,
  readerId: 'r1',
  rssi: -50,
  readAt: new Date().toISOString(),
});

/** Words of `selector`'s text that the layout cut in two (a word drawn on more than one line). */
async function wordsBroken(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(`(() => {
    const broken = [];
    for (const element of document.querySelectorAll(${JSON.stringify(selector)})) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent;
        for (const match of text.matchAll(/[^\\s-]+-?/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (tops.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  })()`);
}

/**
 * Issue 40 item 6 in the web admin: a destination no route feeds says so, a failure is said in
 * plain words with the raw code apart, the next retry shows with Retry now, a test batch shows the
 * receiver's answer, and the dashboard's retrying card names the error and links to the destination.
 */
describe('web admin: destinations explain themselves (issue 40)', { timeout: 180_000 }, () => {
  let rig: BrowserRig;
  let receiver: Receiver;
  let refused: Receiver;
  let refusedPort = '';
  let answer = 503;

  const row = (name: string) => rig.page.locator('.resource-table tbody tr').filter({ hasText: name });

  beforeAll(async () => {
    rig = await startRig();
    const { gateway } = rig;
    receiver = await Receiver.start();
    receiver.reply = (request) =>
      request.headers['x-gateway-test'] === '1'
        ? { status: 202, body: '{"received":"test batch","ok":true}' }
        : answer === 503
          ? { status: 503, headers: { 'retry-after': '3600' } }
          : { status: 200 };
    // A receiver whose port is closed: connections are refused.
    refused = await Receiver.start();
    refusedPort = new URL(refused.url).port;
    await refused.down();
    await gateway.admin('PUT', '/settings', { timeZone: ZONE });
    const ids: number[] = [];
    for (const [name, url] of [
      ['WMS', receiver.url],
      ['Yard ERP with a long name', `${refused.url}/v2/inbound/events/rfid-gateway-deliveries`],
      ['Unused archive', 'https://archive.example/ingest'],
    ] as const) {
      const created = await gateway.admin('POST', '/destinations', { name, url, batchMaxWaitMs: 0 });
      expect(created.status).toBe(201);
      ids.push(created.body.id as number);
    }
    const endpoint = await gateway.admin('POST', '/endpoints', {
      name: 'Dock door 3',
      baseRoutePath: 'dock3',
      routes: [
        {
          name: 'reads',
          eventType: 'UHFTagRead',
          requestType: 'HttpPost',
          authType: 'noauth',
          destinations: ids.slice(0, 2),
        },
      ],
    });
    expect(endpoint.status).toBe(201);
    const posted = await fetch(`${gateway.base}/dock3/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([read(1), read(2)]),
    });
    expect(posted.status).toBe(200);
    await receiver.waitFor((r) => r.requests.length >= 1, 10_000);
    await signIn(rig.page, rig.adminUrl);
  });

  afterAll(async () => {
    await receiver?.close();
    await rig?.close();
  });

  it('says “No route sends to it” for a destination no route feeds, with a link to the route form', async () => {
    const { page } = rig;
    await goToAtAnyWidth(page, 'Destinations');
    const unused = row('Unused archive');
    await unused.getByText('No route sends to it', { exact: true }).waitFor();
    expect(await unused.getByText('Healthy', { exact: true }).count()).toBe(0);
    const link = unused.getByRole('link', { name: 'Choose it on a route under Endpoints' });
    expect(await link.getAttribute('href')).toBe('#/endpoints');
    // The fed ones name their route; the screen says duplicates are not forwarded.
    await row('WMS').getByText('Route: reads').waitFor();
    await page.getByText('Suppressed duplicate tag reads are not forwarded.').waitFor();
    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Endpoints' }).waitFor();
  });

  it('words the last error, keeps the raw code in small print, and shows the next try with Retry now', async () => {
    const { page } = rig;
    await goToAtAnyWidth(page, 'Destinations');
    const yard = row('Yard ERP with a long name');
    await yard.getByText(`The receiver refused the connection (127.0.0.1:${refusedPort})`).waitFor({ timeout: 15_000 });
    await yard.locator('.error-code').getByText('ECONNREFUSED', { exact: true }).waitFor();
    expect(await yard.textContent()).not.toContain('connect ECONNREFUSED');

    const wms = row('WMS');
    await wms.getByText('The receiver is unavailable for now (HTTP 503).').waitFor({ timeout: 15_000 });
    const next = await wms.locator('.next-attempt').textContent();
    expect(next).toMatch(new RegExp(`^Next try \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} ${ZONE}$`));
    expect(receiver.requests.filter((r) => !r.headers['x-gateway-test'])).toHaveLength(1);
    answer = 200;
    await wms.getByRole('button', { name: 'Retry now WMS' }).click();
    await page.getByText('“WMS”: the waiting batch is being sent now.').waitFor();
    await receiver.waitFor((r) => r.requests.length >= 2, 5_000);
    await wms.getByText('Healthy', { exact: true }).waitFor({ timeout: 10_000 });
    expect(await wms.getByRole('button', { name: 'Retry now WMS' }).count()).toBe(0);
  });

  it('sends a test batch and shows the receiver’s answer; the refused one is said in words', async () => {
    const { page } = rig;
    const before = receiver.requests.length;
    await row('WMS').getByRole('button', { name: 'Send test batch to WMS' }).click();
    const dialog = page.getByRole('dialog', { name: 'Test batch to “WMS”' });
    await dialog.getByText(/^The receiver accepted the test batch \(HTTP 202\) in \d+ ms\.$/).waitFor();
    await dialog.getByText('{"received":"test batch","ok":true}').waitFor();
    expect(receiver.requests).toHaveLength(before + 1);
    expect(receiver.requests.at(-1)?.body).toMatchObject({ test: true });
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'destination-test-batch');
    await dialog.getByRole('button', { name: 'Close' }).click();

    await row('Yard ERP').getByRole('button', { name: 'Send test batch to Yard ERP with a long name' }).click();
    const failed = page.getByRole('dialog', { name: 'Test batch to “Yard ERP with a long name”' });
    await failed.getByText(`The receiver refused the connection (127.0.0.1:${refusedPort})`).waitFor();
    await failed.getByRole('button', { name: 'Close' }).click();
    // Not in the outbox: the healthy destination stays healthy with nothing waiting.
    expect(
      (await rig.gateway.admin('GET', '/destinations')).body.find((d: any) => d.name === 'WMS').status.backlog,
    ).toBe(0);
  });

  it('the dashboard’s retrying card names the error and links to the destination', async () => {
    const { page } = rig;
    await goToAtAnyWidth(page, 'Dashboard');
    const card = page.getByRole('listitem', { name: 'Yard ERP with a long name' });
    await card.getByText(`The receiver refused the connection (127.0.0.1:${refusedPort})`).waitFor({ timeout: 15_000 });
    await card.getByRole('link', { name: 'Open Yard ERP with a long name in Destinations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Destinations' }).waitFor();
    const target = row('Yard ERP with a long name');
    // A locator, not a string predicate: the admin's CSP refuses evaluating strings.
    await page.locator('.resource-table tr.selected', { hasText: 'Yard ERP' }).waitFor();
    expect(await target.isVisible()).toBe(true);
    // A healthy card has no error and no link; one no route feeds says so, not "Healthy".
    await goToAtAnyWidth(page, 'Dashboard');
    expect(await page.getByRole('listitem', { name: 'WMS' }).getByRole('link').count()).toBe(0);
    const unused = page.getByRole('listitem', { name: 'Unused archive' });
    await unused.getByText('No route sends to it', { exact: true }).waitFor();
    expect(await unused.getByText('Healthy', { exact: true }).count()).toBe(0);
  });

  for (const width of WIDTHS) {
    it(`${width} px: the error and the URL wrap between words, axe-core finds nothing, nothing scrolls sideways`, async () => {
      const { page } = rig;
      await page.setViewportSize({ width, height: 900 });
      await goToAtAnyWidth(page, 'Destinations');
      await row('Yard ERP').getByText('The receiver refused the connection').waitFor();
      expect(await wordsBroken(page, 'td.last-error')).toEqual([]);
      // The URL breaks at its slashes: no part of it between two slashes is cut.
      expect(await wordsBroken(page, '.destination-url')).toEqual([]);
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `destinations-explained-${width}`);
      await goToAtAnyWidth(page, 'Dashboard');
      await page.getByRole('listitem', { name: 'Yard ERP with a long name' }).getByRole('link').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `dashboard-retrying-card-${width}`);
    });
  }
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
const IMPINJ = readFileSync(join(import.meta.dirname, '../fixtures/readers/impinj-r700-webhook.json'), 'utf8');
const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();
const read = (n: number, readerId: string, antenna: number, second: number) => ({
  epc: epc(n),
  antenna,
  readerId,
  rssi: -40 - (n % 10),
  readAt: `2026-11-25T10:${String(Math.floor(second / 60)).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}.000Z`,
});

/**
 * Issue 40 item 5 in the web admin: the live inventory as a screen (the GET route's table, its
 * filters, pages, live), and the event inspector's decoded reads and each event's own link.
 */
describe('web admin: inventory and decoded reads (issue 40)', { timeout: 180_000 }, () => {
  let rig: BrowserRig;
  let impinjEvent = '';

  const post = async (body: string) => {
    const res = await fetch(`${rig.gateway.base}/dock3/reads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const snapshot = async (query = '') => {
    const res = await fetch(`${rig.gateway.base}/dock3/inventory?limit=1000${query}`);
    return ((await res.json()) as { items: { epc: string }[] }).items;
  };
  const rows = () => rig.page.getByRole('region', { name: 'Inventory' }).locator('tbody tr');
  // A function, not a string: the admin's CSP refuses string evaluation in the page.
  const rowCount = (n: number) =>
    rig.page.waitForFunction(
      (count) => (globalThis as any).document.querySelectorAll('.inventory-table tbody tr').length === count,
      n,
    );

  beforeAll(async () => {
    rig = await startRig();
    const { gateway } = rig;
    await gateway.admin('PUT', '/settings', { timeZone: ZONE });
    const endpoint = await gateway.admin('POST', '/endpoints', {
      name: 'Dock door 3',
      baseRoutePath: 'dock3',
      routes: [
        { name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' },
        { name: 'inventory', eventType: 'UHFTagRead', requestType: 'HttpGet', authType: 'noauth' },
      ],
    });
    expect(endpoint.status).toBe(201);
    // 55 tags: more than one page of the screen (50).
    await post(
      JSON.stringify(Array.from({ length: 55 }, (_, i) => read(i + 1, i < 40 ? 'fx-1' : 'fx-2', 1 + (i % 2), i))),
    );
    impinjEvent = await post(IMPINJ);
    await gateway.admin('PUT', '/readers/impinj-12-34-56', { name: 'Dock door left' });
    await signIn(rig.page, rig.adminUrl);
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('lists the inventory: EPC hex and URI, last reader and antenna, RSSI, first and last seen, reads; paged', async () => {
    const { page } = rig;
    await page.setViewportSize({ width: 1280, height: 900 });
    await goToAtAnyWidth(page, 'Inventory');
    await rows().first().waitFor();
    expect(await page.getByLabel('Endpoint', { exact: true }).inputValue()).not.toBe('');
    // Newest sighting first, as the GET route: the Impinj tags of 2026-03-02 come after November's.
    expect(await rows().count()).toBe(50);
    const expected = (await snapshot()).slice(0, 50).map((item) => item.epc);
    expect(await page.locator('.inventory-table tbody code.epc-hex').allTextContents()).toEqual(expected);
    for (const heading of ['EPC', 'Last reader', 'RSSI', `First seen ${ZONE}`, `Last seen ${ZONE}`, 'Reads'])
      await page.getByRole('columnheader', { name: heading, exact: true }).waitFor();

    await page.getByRole('button', { name: 'Load more' }).click();
    await rowCount(57);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const sgtin = rows().filter({ hasText: '3074257BF7194E4000001A85' });
    await sgtin.getByText('urn:epc:id:sgtin:0614141.812345.6789', { exact: true }).waitFor();
    // The reader's name from the Readers screen, its id beside it; the antenna and RSSI of the last read.
    await sgtin.getByText('Dock door left').waitFor();
    await sgtin.getByText('Antenna 1', { exact: true }).waitFor();
    await sgtin.getByText('-56.5 dBm').waitFor();
    await sgtin.getByText('2026-03-02 09:16:13.944').first().waitFor();
    await screenshot(page, 'inventory-1280');
  });

  it('filters as the GET route does, and says what is wrong with a filter at its field', async () => {
    const { page } = rig;
    await page.getByLabel('Reader', { exact: true }).fill('fx-2');
    await page.getByLabel('Antenna', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Apply' }).click();
    const expected = (await snapshot('&readerId=fx-2&antenna=2')).map((item) => item.epc);
    expect(expected.length).toBeGreaterThan(0);
    await rowCount(expected.length);
    expect(await page.locator('.inventory-table tbody code.epc-hex').allTextContents()).toEqual(expected);

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('EPC', { exact: true }).fill('urn:epc:id:sscc:0614141.1234567890');
    await page.getByRole('button', { name: 'Apply' }).click();
    await rowCount(1);
    await rows().getByText('3174257BF4499602D2000000').waitFor();

    await page.getByLabel('EPC', { exact: true }).fill('');
    await page.getByLabel('Seen since', { exact: true }).fill('yesterday');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('seenSince must be an ISO 8601 date-time').waitFor();
    expect(await page.getByLabel('Seen since', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Seen since', { exact: true }).fill('2026-11-25T11:00:40');
    await page.getByRole('button', { name: 'Apply' }).click();
    const since = (await snapshot('&seenSince=2026-11-25T11:00:40')).length;
    await rowCount(since);
    await page.getByRole('button', { name: 'Clear filters' }).click();
  });

  it('refreshes live: a tag seen now comes in on top without a click', async () => {
    await rows().first().waitFor();
    await post(
      JSON.stringify({ epc: epc(999), antenna: 4, readerId: 'fx-9', rssi: -33, readAt: new Date().toISOString() }),
    );
    await rows().first().getByText(epc(999)).waitFor({ timeout: 12_000 });
    await rows().first().getByText('Antenna 4').waitFor();
  });

  for (const width of WIDTHS) {
    it(`${width} px: the inventory passes axe-core and fits the window`, async () => {
      const { page } = rig;
      await page.setViewportSize({ width, height: 900 });
      await goToAtAnyWidth(page, 'Events');
      await goToAtAnyWidth(page, 'Inventory');
      await rows().first().waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `inventory-${width}`);
    });
  }

  it('an event’s own link opens it in the inspector, with its reads decoded', async () => {
    const { page } = rig;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${rig.adminUrl}#/events/${impinjEvent}`);
    const detail = page.getByRole('region', { name: `Event ${impinjEvent}` });
    await detail.waitFor();
    const reads = detail.getByRole('table', { name: 'Reads' });
    await reads.waitFor();
    const rowsOf = reads.locator('tbody tr');
    expect(await rowsOf.count()).toBe(2);
    const first = rowsOf.first();
    await first.getByText('3074257BF7194E4000001A85', { exact: true }).waitFor();
    await first.getByText('urn:epc:id:sgtin:0614141.812345.6789', { exact: true }).waitFor();
    await first.getByText('-56.5 dBm').waitFor();
    // The gateway's zone (named in the column head, or beside the time on a narrow panel).
    expect((await first.locator('time').innerText()).replace(/\s+/, ' ')).toBe('2026-03-02 09:16:13.944');
    await rowsOf.nth(1).getByText('urn:epc:id:sscc:0614141.1234567890').waitFor();
    // The link names the event; Copy is offered beside it.
    await detail.getByText(`#/events/${impinjEvent}`).waitFor();
    await detail.getByRole('button', { name: /^Copy .*#\/events\// }).waitFor();

    // Opening another event from the list puts its own address in the address bar.
    const other = page.locator('.events-table tbody tr').first().getByRole('button');
    await other.click();
    await page.waitForFunction((first) => {
      const hash: string = (globalThis as any).location.hash;
      return hash.startsWith('#/events/') && !hash.endsWith(first);
    }, impinjEvent);
    const id = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    await page.getByRole('region', { name: `Event ${id}` }).waitFor();
    await page
      .getByRole('region', { name: `Event ${id}` })
      .getByRole('button', { name: 'Close' })
      .click();
    await page.waitForFunction(() => (globalThis as any).location.hash === '#/events');
  });

  for (const width of WIDTHS) {
    it(`${width} px: the inspector with decoded reads passes axe-core and fits the window`, async () => {
      const { page } = rig;
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${rig.adminUrl}#/events/${impinjEvent}`);
      await page.getByRole('table', { name: 'Reads' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `event-reads-${width}`);
    });
  }
});

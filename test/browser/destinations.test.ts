import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../helpers/receiver';
import { goTo, screenshot, signIn, startRig, type BrowserRig } from './browser';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ZONE = 'Europe/Berlin';

const epc = (n: number) => (0x300000000000000000000000n + BigInt(n)).toString(16).toUpperCase();
const reads = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    epc: epc(from + i),
    antenna: 1,
    readerId: 'r1',
    rssi: -50,
    readAt: '2026-11-25T10:00:00.000Z',
  }));

async function axeViolations(page: Page): Promise<{ id: string; nodes: { target: string[] }[] }[]> {
  return page.evaluate(
    `${AXE_SOURCE}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
}

/**
 * Issue 23's screens on a real gateway delivering to a real receiver (127.0.0.1, port 0) whose
 * answer each step sets: the technician creates an hmac destination and sees its secret once,
 * subscribes a route to it, watches backlog and state on the dashboard, and handles dead letters.
 * Steps build on each other, as the screens do.
 */
describe('web admin: destinations (SPEC §11)', { timeout: 120_000 }, () => {
  let rig: BrowserRig;
  let receiver: Receiver;
  let answer = 200;
  let secret = '';
  let destinationId = 0;

  const post = async (route: string, body: unknown) => {
    const response = await fetch(`${rig.gateway.base}/dock3/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
  };
  const deadLetters = async () =>
    (await rig.gateway.admin('GET', `/destinations/${destinationId}/dead-letters?limit=1000`)).body.items as {
      id: number;
      batchId: string;
    }[];

  beforeAll(async () => {
    rig = await startRig();
    receiver = await Receiver.start();
    receiver.reply = () => ({ status: answer });
    await rig.gateway.admin('PUT', '/settings', { timeZone: ZONE });
    const endpoint = await rig.gateway.admin('POST', '/endpoints', {
      name: 'Dock door 3',
      baseRoutePath: 'dock3',
      routes: [
        { name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' },
        { name: 'snapshot', eventType: 'UHFTagRead', requestType: 'HttpGet', authType: 'noauth' },
      ],
    });
    expect(endpoint.status).toBe(201);
    await signIn(rig.page, rig.adminUrl);
  });

  afterAll(async () => {
    await receiver?.close();
    await rig?.close();
  });

  it('creates an hmac destination and shows its secret once, in the dialog that cannot be lost', async () => {
    const { page } = rig;
    await goTo(page, 'Destinations');
    await page.getByText('No destinations yet').waitFor();
    await page.getByRole('button', { name: 'New Destination' }).click();
    const dialog = page.getByRole('dialog', { name: 'New Destination' });
    await dialog.getByLabel('Name', { exact: true }).fill('WMS');
    await dialog.getByLabel('URL', { exact: true }).fill(receiver.url);
    await dialog.getByRole('button', { name: 'Add header' }).click();
    await dialog.getByLabel('Header name 1').fill('Content-Type');
    await dialog.getByLabel('Header value 1').fill('text/plain');
    await dialog.getByLabel('Authentication').selectOption({ label: 'HMAC-SHA256 signature' });
    await dialog.getByLabel('Batch wait (ms)').fill('0');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    // The gateway's refusal of a reserved header lands on that header's row, in words.
    const headerName = dialog.getByLabel('Header name 1');
    await dialog.getByText('The gateway sets Content-Type itself', { exact: true }).waitFor();
    expect(await headerName.getAttribute('aria-invalid')).toBe('true');
    await headerName.fill('X-Site');
    await dialog.getByLabel('Header value 1').fill('dock-3');
    await dialog.getByRole('button', { name: 'Submit' }).click();

    const shown = page.getByRole('dialog', { name: 'Destination created' });
    secret = (await shown.getByTestId('token-value').textContent()) ?? '';
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await shown.getByText("You won't see this secret again").waitFor();
    await page.keyboard.press('Escape');
    expect(await shown.getByTestId('token-value').textContent()).toBe(secret);
    await screenshot(page, 'destinations-secret');
    await shown.getByRole('button', { name: 'I have saved it' }).click();

    const row = page.getByRole('row').filter({ hasText: 'WMS' });
    // No route sends to it yet: it says so, rather than "Healthy" (issue 40).
    await row.getByText('No route sends to it', { exact: true }).waitFor();
    await page.getByRole('columnheader', { name: `Oldest pending (${ZONE})` }).waitFor();
    const list = await rig.gateway.admin('GET', '/destinations');
    destinationId = list.body[0].id as number;
    expect(list.body[0]).toMatchObject({ headers: { 'X-Site': 'dock-3' }, auth: { type: 'hmac' }, batchMaxWaitMs: 0 });

    // Edit: the secret is write-only and stays; the page never shows it again.
    await row.getByRole('button', { name: 'Edit WMS' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit destination “WMS”' });
    await edit.getByText('The stored secret stays').waitFor();
    expect(await page.content()).not.toContain(secret);
    await edit.getByRole('button', { name: 'Cancel' }).click();
  });

  it('adds the destination to an HttpPost route; an HttpGet route cannot take one', async () => {
    const { page } = rig;
    await goTo(page, 'Endpoints');
    await page.getByRole('button', { name: 'Edit Dock door 3' }).click();
    const pickers = page.getByRole('group', { name: 'Destinations' });
    await pickers.first().getByRole('checkbox', { name: 'WMS' }).check();
    expect(await pickers.nth(1).getByRole('checkbox', { name: 'WMS' }).isDisabled()).toBe(true);
    await pickers.nth(1).getByText('Only for HttpPost routes').waitFor();
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByText('Saved “Dock door 3”').waitFor();
    const endpoints = await rig.gateway.admin('GET', '/endpoints');
    const routes = endpoints.body[0].routes as { name: string; destinations: number[] }[];
    expect(routes.map((r) => [r.name, r.destinations])).toEqual([
      ['reads', [destinationId]],
      ['snapshot', []],
    ]);
  });

  it('shows backlog and state on the dashboard while the receiver answers 500, then delivers when it answers 200', async () => {
    const { page } = rig;
    answer = 500;
    await post('reads', reads(1, 3));
    await goTo(page, 'Dashboard');
    const card = page.getByRole('listitem', { name: 'WMS' });
    await card.getByText(/^(Retrying|Failing)$/).waitFor({ timeout: 20_000 });
    await card.getByText('3', { exact: true }).waitFor();
    await card.getByText(new RegExp(`${ZONE}$`)).waitFor();
    await screenshot(page, 'destinations-dashboard-retrying');

    answer = 200;
    await card.getByText('Healthy', { exact: true }).waitFor({ timeout: 30_000 });
    await card.getByText('0', { exact: true }).waitFor();
    const delivered = receiver.requests.filter((r) => r.body.events.length === 3).at(-1);
    expect(delivered?.body.events.map((e) => e.data.epc)).toEqual([epc(1), epc(2), epc(3)]);
    // The secret shown once is the one the gateway signs with.
    const [t, v1] = String(delivered?.headers['x-gateway-signature'])
      .split(',')
      .map((p) => p.split('=')[1]);
    expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${delivered?.raw}`).digest('hex'));
  });

  it('lists dead letters in words, pages through them, and retries and discards them from the screen', async () => {
    const { page } = rig;
    // One item per batch: 51 reads refused with 400 make 51 dead letters, one page and a bit.
    await rig.gateway.admin('PUT', `/destinations/${destinationId}`, {
      name: 'WMS',
      url: receiver.url,
      auth: { type: 'hmac' },
      headers: { 'X-Site': 'dock-3' },
      batchMaxEvents: 1,
      batchMaxWaitMs: 0,
    });
    answer = 400;
    await post('reads', reads(100, 51));
    await expect.poll(async () => (await deadLetters()).length, { timeout: 30_000 }).toBe(51);

    // A dead letter leaves the destination failing: the dashboard says so in words.
    await goTo(page, 'Dashboard');
    await page.getByText('“WMS” is failing').waitFor({ timeout: 10_000 });

    await goTo(page, 'Destinations');
    await page.getByRole('button', { name: 'Dead letters of WMS' }).click();
    const panel = page.getByRole('region', { name: 'Dead letters of “WMS”' });
    const rows = panel.getByRole('row');
    await panel.getByRole('button', { name: 'Show older dead letters' }).click();
    await expect.poll(() => rows.count()).toBe(52);
    await panel.getByRole('cell', { name: 'Refused by the receiver' }).first().waitFor();
    await panel.getByText('HTTP 400').first().waitFor();
    await screenshot(page, 'destinations-dead-letters');

    const [newest, second] = await deadLetters();
    answer = 200;
    const before = receiver.requests.length;
    await panel.getByRole('button', { name: `Retry batch ${newest?.batchId}` }).click();
    await panel.getByText('1 batch back at the head of the outbox').waitFor();
    await receiver.waitFor((r) => r.requests.length > before, 10_000);
    expect(receiver.requests.at(-1)?.body.batchId).toBe(newest?.batchId);

    await panel.getByRole('button', { name: `Discard batch ${second?.batchId}` }).click();
    await page.getByRole('dialog', { name: 'Discard 1 dead letter?' }).getByRole('button', { name: 'Discard' }).click();
    await panel.getByText('Discarded 1 dead letter.').waitFor();
    const left = await deadLetters();
    expect(left).toHaveLength(49);
    expect(left.map((letter) => letter.batchId)).not.toContain(second?.batchId);

    await panel.getByRole('button', { name: 'Retry all' }).click();
    await panel.getByText('49 batches back at the head of the outbox').waitFor();
    await panel.getByText('No dead letters').waitFor();
    await receiver.waitFor((r) => r.requests.length >= before + 50, 20_000);

    answer = 400;
    await post('reads', reads(200, 2));
    await expect.poll(async () => (await deadLetters()).length, { timeout: 20_000 }).toBe(2);
    await panel.getByRole('button', { name: 'Refresh' }).click();
    await panel.getByRole('button', { name: 'Discard all' }).click();
    await page
      .getByRole('dialog', { name: 'Discard all dead letters of “WMS”?' })
      .getByRole('button', { name: 'Discard' })
      .click();
    await panel.getByText('No dead letters').waitFor();
    expect(await deadLetters()).toEqual([]);
    answer = 200;
  });

  it('refuses to delete a destination a route uses, naming the route', async () => {
    const { page } = rig;
    await goTo(page, 'Destinations');
    await page.getByRole('row').filter({ hasText: 'WMS' }).getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete destination “WMS”?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page
      .getByRole('alert')
      .filter({
        hasText: '“WMS” still receives the events of route “reads”. Remove it from that route under Endpoints',
      })
      .waitFor();
  });

  it('warns on the dashboard when an outbox passes 80 % of Max outbox items', async () => {
    const { page } = rig;
    await rig.gateway.admin('PUT', '/settings', { maxOutboxItems: 1000 });
    const archive = await rig.gateway.admin('POST', '/destinations', {
      name: 'Archive',
      url: receiver.url,
      active: false,
    });
    const endpoint = await rig.gateway.admin('POST', '/endpoints', {
      name: 'Archive feed',
      baseRoutePath: 'archive',
      routes: [
        {
          name: 'archive-reads',
          eventType: 'UHFTagRead',
          requestType: 'HttpPost',
          authType: 'noauth',
          destinations: [archive.body.id],
        },
      ],
    });
    expect(endpoint.status).toBe(201);
    const send = (from: number, count: number) =>
      fetch(`${rig.gateway.base}/archive/archive-reads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(reads(from, count)),
      });
    expect((await send(1000, 800)).status).toBe(200);
    await goTo(page, 'Dashboard');
    const card = page.getByRole('listitem', { name: 'Archive' });
    await card.getByText('Paused', { exact: true }).waitFor();
    await card.getByText('800', { exact: true }).waitFor({ timeout: 10_000 });
    // At exactly 80 % nothing is said yet; one item more, and the warning comes.
    expect(await page.getByText('Outbox almost full').count()).toBe(0);
    expect((await send(2000, 1)).status).toBe(200);
    await page.getByText('Outbox almost full: “Archive” holds 801 of 1,000 items (80 %)').waitFor({ timeout: 10_000 });
    await screenshot(page, 'destinations-dashboard-warning');
  });

  it('passes axe-core at 390, 1280 and 1920 px: dashboard cards, list, dead letters and the form', async () => {
    const { page } = rig;
    answer = 400;
    await post('reads', reads(300, 1));
    await expect.poll(async () => (await deadLetters()).length, { timeout: 20_000 }).toBe(1);
    for (const width of [390, 1280, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${rig.adminUrl}#/dashboard`);
      await page.getByRole('listitem', { name: 'Archive' }).waitFor();
      expect(await axeViolations(page), `dashboard at ${width}`).toEqual([]);

      await page.goto(`${rig.adminUrl}#/destinations`);
      await page.getByRole('button', { name: 'Dead letters of WMS' }).click();
      await page.getByRole('region', { name: 'Dead letters of “WMS”' }).getByText('Refused by the receiver').waitFor();
      expect(await axeViolations(page), `destinations and dead letters at ${width}`).toEqual([]);
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, `destinations at ${width}: sideways scroll`).toBeLessThanOrEqual(0);
      await screenshot(page, `destinations-${width}`);

      await page.getByRole('button', { name: 'New Destination' }).click();
      const dialog = page.getByRole('dialog', { name: 'New Destination' });
      await dialog.getByRole('button', { name: 'Add header' }).click();
      await dialog.getByLabel('Authentication').selectOption({ label: 'Basic (username and password)' });
      await dialog.getByRole('button', { name: 'Submit' }).click();
      await dialog.getByRole('alert').waitFor();
      expect(await axeViolations(page), `destination form with errors at ${width}`).toEqual([]);
      await screenshot(page, `destinations-form-${width}`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
    }
    expect(rig.problems).toEqual([]);
  });
});

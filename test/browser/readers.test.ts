import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, goTo, screenshot, sidewaysOverflow, signIn, startRig, type BrowserRig } from './browser';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, '../fixtures/readers', name), 'utf8');

/** The history's shape drawn for the online reader: a ramp with a dip, one value per minute. */
const SHAPE = Array.from({ length: 60 }, (_, i) => (i === 40 ? 0 : i));

/**
 * SPEC §16's Readers screen on a real gateway: one reader online with a drawn history, one
 * silent with a disconnected antenna (the real Zebra heartbeat sample), at three widths, axe clean.
 */
describe('web admin: readers (SPEC §16)', { timeout: 180_000 }, () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startRig();
    const { gateway } = rig;
    await gateway.admin('POST', '/endpoints', {
      name: 'Dock',
      baseRoutePath: 'dock',
      routes: [{ name: 'reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'noauth' }],
    });
    const post = (body: string, query = '') =>
      fetch(`${gateway.base}/dock/reads${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    expect((await post(fixture('zebra-fx-management.json'), '?readerId=fx9600-north')).status).toBe(200);
    expect(
      (await post(JSON.stringify([{ epc: '3074257BF7194E4000001A85', readerId: 'r700-gate', antenna: 1 }]))).status,
    ).toBe(200);
    await gateway.admin('PUT', '/readers/r700-gate', { name: 'Gate R700' });
    const knex = gateway.gateway.db.knex;
    // The north reader was last heard ten minutes ago: silent under the default 180 s.
    await knex('readers')
      .where('reader_id', 'fx9600-north')
      .update({ last_seen_at: Date.now() - 600_000 });
    // The screen draws the 60 minutes up to its own now: seeded in a minute's last seconds, the
    // history would be read one minute later, shifted by one (a failure seen in CI). Seed in a
    // minute's first 40 s instead: the file takes ~13 s, so it reads the minute it was seeded in.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
    const current = Math.floor(Date.now() / 60_000);
    await knex('reader_minutes').where('reader_id', 'r700-gate').delete();
    await knex('reader_minutes').insert(
      SHAPE.map((reads, i) => ({ reader_id: 'r700-gate', minute: current - 59 + i, antenna: 1, reads })),
    );
    await signIn(rig.page, rig.adminUrl);
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('lists both readers with state, last seen, antennas and a sparkline of the history’s shape', async () => {
    const { page } = rig;
    await goTo(page, 'Readers');
    const table = page.getByRole('region', { name: 'Readers' });
    const silentRow = table.getByRole('row').filter({ hasText: 'fx9600-north' });
    await silentRow.getByText('Silent', { exact: true }).waitFor();
    await expect(silentRow.getByText(/^10 min ago$/).count()).resolves.toBe(1);
    // Antenna 3 is disconnected in the heartbeat: its dot says so and is drawn red (the list is
    // drawn once per layout: in its column on a wide screen, under the reader on a phone).
    const down = silentRow.getByText('Antenna 3: disconnected', { exact: false }).filter({ visible: true });
    await expect(down.count()).resolves.toBe(1);
    const downDot = silentRow.locator('li.antenna.down').filter({ visible: true });
    await expect(downDot.count()).resolves.toBe(1);
    const color = await downDot.evaluate(
      (element) => element.ownerDocument.defaultView?.getComputedStyle(element).backgroundColor,
    );
    expect(color).toBe('rgb(180, 35, 35)');
    const onlineRow = table.getByRole('row').filter({ hasText: 'Gate R700' });
    await onlineRow.getByText('Online', { exact: true }).waitFor();
    const spark = onlineRow.getByRole('img', { name: /Reads per minute of Gate R700/ });
    await expect(spark.getAttribute('data-points')).resolves.toBe(SHAPE.join(','));
    // The drawn line follows the shape: the dip at minute 40 sits on the baseline, the peak at the top.
    const ys = (await spark.locator('polyline').getAttribute('points'))!
      .split(' ')
      .map((point) => Number(point.split(',')[1]));
    expect(ys[40]).toBeCloseTo(27, 0);
    expect(ys[59]).toBeCloseTo(1, 0);
    expect(ys[20]).toBeGreaterThan(ys[39] ?? 0);
    await expect(page.getByRole('status').filter({ hasText: 'One reader is silent' }).count()).resolves.toBe(1);
  });

  it('opens a reader’s panel with health, alarms and history, and renames it', async () => {
    const { page } = rig;
    await page.getByRole('button', { name: 'fx9600-north', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'fx9600-north' });
    await dialog.getByText('41 °C').waitFor();
    await dialog.getByText('data retention queue full').waitFor();
    await dialog.getByLabel('Name', { exact: true }).fill('North dock FX9600');
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('dialog', { name: 'North dock FX9600' }).waitFor();
    expect((await rig.gateway.admin('GET', '/readers/fx9600-north')).body.name).toBe('North dock FX9600');
    await page.getByRole('dialog').getByRole('button', { name: 'Close', exact: true }).click();
  });

  it('warns on the dashboard while a reader is silent', async () => {
    const { page } = rig;
    await goTo(page, 'Dashboard');
    await page.getByText('One reader is silent').waitFor();
  });

  for (const width of [390, 1280, 1920]) {
    it(`is axe clean at ${width} px with a silent reader and a disconnected antenna`, async () => {
      const { page } = rig;
      await page.setViewportSize({ width, height: 900 });
      // At 390 px the sidebar is behind a Menu button: the address takes us there at every width.
      await page.evaluate("location.hash = '#/dashboard'");
      await page.evaluate("location.hash = '#/readers'");
      await page.getByRole('heading', { level: 1, name: 'Readers', exact: true }).waitFor();
      await page.getByText('Silent', { exact: true }).first().waitFor();
      await screenshot(page, `readers-${width}`);
      expect(await sidewaysOverflow(page), `readers at ${width}: sideways scroll`).toBeLessThanOrEqual(0);
      // The disconnected antenna is on screen without scrolling the table, at every width.
      const antennas = page.getByRole('list', { name: 'Antennas of North dock FX9600' });
      const box = await antennas.boundingBox();
      expect(box && box.x + box.width, `antennas at ${width}`).toBeLessThanOrEqual(width);
      expect(await axeViolations(page)).toEqual([]);
      expect(rig.problems).toEqual([]);
    });
  }
});

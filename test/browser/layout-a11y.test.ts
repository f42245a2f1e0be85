import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, signIn, startRig, type BrowserRig } from './browser';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SCREENS = [
  'Dashboard',
  'Events',
  'Endpoints',
  'Destinations',
  'Access Token',
  'External User',
  'Roles',
  'Users',
  'Settings',
  'Backup',
] as const;
const WIDTHS = [390, 1280, 1920] as const;

interface AxeViolation {
  id: string;
  nodes: { target: string[] }[];
}

/**
 * Every screen at a phone, a laptop and a wide screen: axe-core finds nothing, and nothing is
 * wider than the window (no sideways scroll). Issue 26 items 8 and the axe requirement.
 */
describe('web admin layout and accessibility at 390, 1280 and 1920 px', { timeout: 240_000 }, () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startRig();
    const { gateway } = rig;
    // Rows in every table, so row actions are part of what is checked.
    await gateway.admin('POST', '/roles', { name: 'scanner' });
    await gateway.admin('POST', '/destinations', { name: 'Warehouse management', url: 'https://wms.example/ingest' });
    await gateway.admin('POST', '/endpoints', {
      name: 'Dock door 3',
      baseRoutePath: 'dock3',
      routes: [
        { name: 'dock3-tags', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'basic' },
        { name: 'dock3-docs', eventType: 'AllData', requestType: 'HttpPost', authType: 'OAuth2', roles: ['scanner'] },
      ],
    });
    await gateway.admin('POST', '/users', { username: 'technician_with_a_long_name', password: 'password-1' });
    await gateway.admin('POST', '/external-users', {
      username: 'dockreader',
      password: 'password-1',
      routes: ['dock3-tags'],
    });
    await gateway.admin('POST', '/access-tokens', { name: 'reader-1', role: 'scanner', expiryDate: '2099-12-31' });
    await signIn(rig.page, rig.adminUrl);
  });

  afterAll(async () => {
    await rig?.close();
  });

  const open = async (name: string) => {
    const { page } = rig;
    const menu = page.getByRole('button', { name: 'Menu' });
    if (await menu.isVisible()) {
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
    }
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
    await page.waitForTimeout(150);
  };

  for (const width of WIDTHS) {
    it(`${width} px: every screen passes axe-core and fits the window`, async () => {
      const { page } = rig;
      await page.setViewportSize({ width, height: 900 });
      for (const name of SCREENS) {
        await open(name);
        const violations = await page.evaluate<AxeViolation[]>(
          `${AXE_SOURCE}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
        );
        expect(violations, `${name} at ${width}`).toEqual([]);
        const overflow = await page.evaluate<number>(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(overflow, `${name} at ${width}: sideways scroll`).toBeLessThanOrEqual(0);
        await screenshot(page, `layout-${name.replace(/ /g, '-').toLowerCase()}-${width}`);
      }
    });
  }

  it('390 px: a Menu button instead of the stacked sidebar, and each row’s Delete is on screen', async () => {
    const { page } = rig;
    await page.setViewportSize({ width: 390, height: 800 });
    await open('Users');
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    const row = page.getByRole('row').filter({ hasText: 'technician_with_a_long_name' });
    const remove = row.getByRole('button', { name: 'Delete' });
    const box = await remove.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await remove.click();
    await page
      .getByRole('dialog', { name: /^Delete user/ })
      .getByRole('button', { name: 'Cancel' })
      .click();
  });
});

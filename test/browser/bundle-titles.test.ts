import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCREENS } from '../../renderer/src/lib/screens';
import { signIn, startRig, type BrowserRig } from './browser';

/** Issue 26 item 11: a production bundle, and a page title that names the screen shown. */
describe('web admin: minified bundle and page titles', { timeout: 120_000 }, () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startRig();
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('names the login page “Sign in · Gateway” and every screen “<Screen> · Gateway”', async () => {
    const { page, adminUrl } = rig;
    // A deep link to a screen still opens on the login page, which must not claim to be that screen.
    await page.goto(`${adminUrl}#/backup`);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.title()).toBe('Sign in · Gateway');
    await signIn(page, adminUrl);
    for (const screen of SCREENS) {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: screen.name, exact: true })
        .click();
      await page.getByRole('heading', { level: 1, name: screen.name, exact: true }).waitFor();
      await expect.poll(() => page.title()).toBe(`${screen.name} · Gateway`);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.title()).toBe('Sign in · Gateway');
  });

  it('serves minified script and styles, compressed when the browser asks', async () => {
    const { page, adminUrl } = rig;
    // The page's own references, resolved against it (the build writes relative paths).
    const references = [
      ...(await Promise.all((await page.locator('script[src]').all()).map((el) => el.getAttribute('src')))),
      ...(await Promise.all((await page.locator('link[rel=stylesheet]').all()).map((el) => el.getAttribute('href')))),
    ];
    const assets = references.map((ref) => new URL(ref ?? '', page.url()).href);
    expect(assets.some((url) => url.endsWith('.js'))).toBe(true);
    expect(assets.some((url) => url.endsWith('.css'))).toBe(true);
    for (const url of assets) {
      expect(url.startsWith(new URL(adminUrl).origin)).toBe(true);
      const response = await page.request.get(url, { headers: { 'Accept-Encoding': 'br, gzip' } });
      expect(response.headers()['content-encoding']).toBe('br');
      const text = await response.text();
      // Unminified output keeps one statement or rule per line and the bundler's comments.
      const lines = text.split('\n').length;
      expect(text.length / lines, url).toBeGreaterThan(2000);
      expect(text).not.toMatch(/^\s*\/\/ /m);
    }
  });
});

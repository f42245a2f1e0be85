import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { staticAdmin } from '../../server/http/static-admin';
import { ADMIN_PASSWORD, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** The system Chromium (apt package); Playwright's own browser downloads are not used. */
export const CHROMIUM_PATH = process.env.GATEWAY_TEST_CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOTS = resolve(import.meta.dirname, '../../test-results/screenshots');

export { ADMIN_PASSWORD };

export interface BrowserRig {
  gateway: TestGateway;
  browser: Browser;
  page: Page;
  /** The web admin's address. */
  adminUrl: string;
  /** Messages the page logged as errors, CSP violations included: a clean run has none. */
  problems: string[];
  close(): Promise<void>;
}

/** The system Chromium, headless, as every browser test runs it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** A real gateway serving the built web admin, and a Chromium page pointed at nothing yet. */
export async function startRig(): Promise<BrowserRig> {
  const gateway = await startTestGateway({ adminAssets: staticAdmin() });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // Refusals the tests provoke (409, 401…) are logged by the browser as failed loads; anything
    // else logged as an error (a CSP violation, an exception) is a problem.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return {
    gateway,
    browser,
    page,
    adminUrl: `${gateway.base}/_admin/`,
    problems,
    async close() {
      await browser.close();
      await gateway.close();
    },
  };
}

/** Full-page screenshot under test-results/screenshots/, for looking at the layout. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Signs in through the login screen as the first-start admin. */
export async function signIn(page: Page, adminUrl: string, password = ADMIN_PASSWORD): Promise<void> {
  await page.goto(adminUrl);
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Dashboard', exact: true }).waitFor();
}

/** Follows a navigation entry by its exact name, as a technician would. */
export async function goTo(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the page as it is now, by rule id and element: a clean page has none. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated, not injected as a <script>: the admin's CSP refuses inline scripts.
  return page.evaluate<string[]>(
    `${AXE_SOURCE}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.flatMap((v) => v.nodes.map((n) => v.id + ': ' + n.target.join(' '))))`,
  );
}

/** How much wider than the window the page is: above 0, it scrolls sideways. */
export const sidewaysOverflow = (page: Page): Promise<number> =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

/** `goTo` at any width: on a phone the navigation sits behind the Menu button. */
export async function goToAtAnyWidth(page: Page, name: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await goTo(page, name);
}

import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticAdmin } from '../../server/http/static-admin';
import { silentLogger } from '../../server/logger';
import { startGateway, type StartedGateway } from '../../server/start-gateway';
import { spkiSha256Base64 } from '../../server/tls/certificate';
import { ADMIN_PASSWORD } from '../helpers/test-gateway';
import { CHROMIUM_PATH } from './browser';

// Chromium takes no CA file on the command line; it pins the gateway's key instead
// (--ignore-certificate-errors-spki-list checks the served key's SHA-256), and HTTPS errors are
// never ignored otherwise: a page that loads went through a verified TLS handshake.
const BASE_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

let dataDir: string;
let gw: StartedGateway;
let adminUrl: string;
let spki: string;
let pem: string;
const browsers: Browser[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gateway-https-browser-'));
  gw = await startGateway({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    adminPassword: ADMIN_PASSWORD,
    adminAssets: staticAdmin(),
    logger: silentLogger,
  });
  adminUrl = `https://127.0.0.1:${gw.https!.port}/GWENDPOINTAPI/_admin/`;
  pem = await (await fetch(`http://127.0.0.1:${gw.server.port}/GWENDPOINTAPI/_tls/certificate.pem`)).text();
  spki = spkiSha256Base64(pem);
});
afterAll(async () => {
  await Promise.all(browsers.map((browser) => browser.close()));
  await gw.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function openPage(args: string[]) {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...BASE_ARGS, ...args] });
  browsers.push(browser);
  const context = await browser.newContext({ ignoreHTTPSErrors: false });
  return context.newPage();
}

describe('web admin over HTTPS in Chromium', { timeout: 60_000 }, () => {
  it('signs in over HTTPS when the gateway key is pinned', async () => {
    const page = await openPage([`--ignore-certificate-errors-spki-list=${spki}`]);
    const response = await page.goto(adminUrl);
    expect(response?.status()).toBe(200);
    await page.getByLabel(/user ?name/i).fill('admin');
    await page.getByLabel(/password/i).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: /sign in|log in/i }).click();
    await expect.poll(() => page.url(), { timeout: 15_000 }).not.toMatch(/login/);
    expect(page.url().startsWith('https://')).toBe(true);
    // Trust on first use: the dashboard shows the served certificate's fingerprint and offers it.
    const fingerprint = new X509Certificate(pem).fingerprint256;
    await expect.poll(() => page.getByTestId('tls-fingerprint').textContent(), { timeout: 15_000 }).toBe(fingerprint);
    const href = await page.getByRole('link', { name: 'Download certificate' }).getAttribute('href');
    const downloaded = await page.evaluate(async (url) => (await fetch(url!)).text(), href);
    expect(downloaded).toBe(pem);
  });

  it('refuses the page when another key is pinned (a wrong certificate)', async () => {
    const page = await openPage(['--ignore-certificate-errors-spki-list=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=']);
    await expect(page.goto(adminUrl)).rejects.toThrow(/ERR_CERT/);
  });
});

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS, settingRange, type IntegerSettingKey } from '../../server/contract/schemas/settings.schema';
import { json } from '../helpers/test-gateway';
import { ADMIN_PASSWORD, goTo, screenshot, signIn, startRig, type BrowserRig } from './browser';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The screens around the settings flows: dashboard, gateway settings, roles and users, backup,
 * and what happens when the session ends. One real gateway and one browser page for the file.
 */
describe('web admin: dashboard, settings, roles, users, backup', { timeout: 120_000 }, () => {
  let rig: BrowserRig;
  let scratch: string;

  beforeAll(async () => {
    rig = await startRig();
    scratch = mkdtempSync(join(tmpdir(), 'gateway-browser-'));
    await signIn(rig.page, rig.adminUrl);
  });

  afterAll(async () => {
    await rig?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('dashboard: listen URLs with a QR code, server state, and traffic that refreshes', async () => {
    const { page, gateway } = rig;
    const [url] = gateway.gateway.runtime.listenUrls;
    expect(url).toBeDefined();
    // This gateway listens on 127.0.0.1 only: the address to copy, and no QR code, since no other
    // device can reach it (issue 40.7; first-hour-details covers the QR code of a LAN address).
    await page.getByText(url ?? '', { exact: true }).waitFor();
    await page.getByText('The gateway listens on this machine only').waitFor();
    expect(await page.getByRole('img', { name: /^QR code for/ }).count()).toBe(0);
    const state = page.getByRole('region', { name: 'Server state' });
    for (const label of ['Version', 'Uptime', 'Database', 'Queue depth', 'Events per minute']) {
      await state.getByText(label, { exact: true }).waitFor();
    }
    await state.getByText('SQLite', { exact: true }).waitFor();

    // Traffic posted now shows up in the chart on the next refresh (every few seconds).
    const created = await gateway.admin('POST', '/endpoints', {
      name: 'Yard',
      baseRoutePath: 'yard',
      routes: [{ name: 'pings', eventType: 'AllData', requestType: 'HttpPost', authType: 'noauth' }],
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${gateway.base}/yard/pings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ping: i }),
      });
      expect(response.status).toBe(200);
    }
    await page.getByRole('img', { name: /3 in total/ }).waitFor({ timeout: 15_000 });
    await screenshot(page, '10-dashboard');
  });

  it('settings: draft against saved, field errors next to the field, restart note', async () => {
    const { page, gateway } = rig;
    await goTo(page, 'Settings');
    const retention = page.getByLabel('Retention (days)', { exact: true });
    expect(await retention.inputValue()).toBe('30');
    await retention.fill('45');
    await page.getByText('Saved value: 30').waitFor();
    await page.getByText('1 unsaved change: Retention (days)').waitFor();

    // Leaving with an unsaved change asks first; Cancel stays with the draft.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Roles', exact: true }).click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    await leave.getByText('1 unsaved change: Retention (days).').waitFor();
    await leave.getByRole('button', { name: 'Cancel' }).click();
    expect(await retention.inputValue()).toBe('45');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Settings');

    const bcrypt = page.getByLabel('bcrypt cost', { exact: true });
    await bcrypt.fill('20');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await bcrypt.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#setting-bcryptCost-error').textContent()).toMatch(/14/);
    await screenshot(page, '11-settings-error');
    // A refused PUT changes nothing, the valid retention change included.
    expect((await gateway.admin('GET', '/settings')).body.retentionDays).toBe(30);

    await bcrypt.fill('11');
    await page.getByLabel('Port', { exact: true }).fill('18080');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByText('Restart the gateway to listen there', { exact: false }).waitFor();
    await page.getByText('No unsaved changes.').waitFor();
    expect(await page.getByText(/^Saved value:/).count()).toBe(0);
    expect((await gateway.admin('GET', '/settings')).body).toMatchObject({
      retentionDays: 45,
      bcryptCost: 11,
      port: 18080,
    });
    await screenshot(page, '12-settings-saved');
  });

  it('settings: every number field offers the range the settings schema states', async () => {
    const { page } = rig;
    await goTo(page, 'Settings');
    await page.getByLabel('Port', { exact: true }).waitFor();
    // Evaluated in the page (a string: the test's own lib has no DOM types).
    const shown = await page.evaluate<[string, string, string][]>(
      `Array.from(document.querySelectorAll('form.settings-form input[type="number"]')).map((input) => [input.id, input.min, input.max])`,
    );
    const integerKeys = Object.entries(SETTINGS.properties)
      .filter(([, schema]) => schema.kind === 'integer')
      .map(([key]) => key as IntegerSettingKey);
    expect(shown.map(([id]) => id).sort()).toEqual(integerKeys.map((key) => `setting-${key}`).sort());
    for (const [id, min, max] of shown) {
      const range = settingRange(id.slice('setting-'.length) as IntegerSettingKey);
      expect([id, Number(min), Number(max)]).toEqual([id, range.min, range.max]);
    }
  });

  it('settings: the MQTT switch starts the broker at once; its ports are checked and need a restart', async () => {
    const { page, gateway } = rig;
    // Where `gateway serve` would start it: on free ports, following `mqttMode` (off so far).
    await gateway.gateway.mqtt.listen({ host: '127.0.0.1', port: 0, mqttsPort: 0 });
    const status = async () => (await gateway.admin('GET', '/status')).body;
    expect((await status()).mqtt).toEqual({ mode: 'off', clients: 0 });

    await goTo(page, 'Settings');
    const mqttSwitch = page.getByRole('checkbox', { name: 'MQTT broker', exact: true });
    expect(await mqttSwitch.isChecked()).toBe(false);
    const mqttPort = page.getByLabel('MQTT port', { exact: true });
    const mqttsPort = page.getByLabel('MQTT over TLS port', { exact: true });
    expect(await mqttPort.inputValue()).toBe('1883');
    expect(await mqttsPort.inputValue()).toBe('8883');
    // The ranges are the service's, as for the other ports: a port out of range is refused by the field.
    expect(await mqttPort.getAttribute('max')).toBe('65535');
    await mqttsPort.fill('70000');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await mqttsPort.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#setting-mqttsPort-error').textContent()).toMatch(/65535/);
    await mqttsPort.fill('8883');

    await mqttSwitch.check();
    await page.getByText('1 unsaved change: MQTT broker').waitFor();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByText('Settings saved.').waitFor();
    // On at once, no restart: /status says so and lists the broker's address.
    expect(await page.getByText('Restart the gateway to listen there', { exact: false }).count()).toBe(0);
    expect((await status()).mqtt).toMatchObject({ mode: 'on' });
    await expect
      .poll(async () => ((await status()).listenUrls as string[]).filter((url) => url.startsWith('mqtt://')))
      .toHaveLength(1);
    expect(await mqttSwitch.isChecked()).toBe(true);

    await mqttPort.fill('11883');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByText('Restart the gateway to listen there', { exact: false }).waitFor();
    expect((await gateway.admin('GET', '/settings')).body).toMatchObject({ mqttMode: 'on', mqttPort: 11883 });
    const violations = await page.evaluate<{ id: string }[]>(
      `${AXE_SOURCE}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target) })))`,
    );
    expect(violations).toEqual([]);
    await screenshot(page, '12b-settings-mqtt');

    // Off again: the broker stops at once too.
    await mqttSwitch.uncheck();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByText('No unsaved changes.').waitFor();
    await expect.poll(async () => (await status()).mqtt.mode).toBe('off');
    expect(((await status()).listenUrls as string[]).some((url) => url.startsWith('mqtt'))).toBe(false);
  });

  it('roles and users: built-in admin cannot be deleted; a role in use says where', async () => {
    const { page, gateway } = rig;
    await goTo(page, 'Roles');
    const adminRow = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'admin', exact: true }) });
    await adminRow.getByText('Built-in').waitFor();
    expect(await adminRow.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await page.getByRole('button', { name: 'New Role' }).click();
    await page.getByRole('dialog').getByLabel('Role Name').fill('ops');
    await page.getByRole('dialog').getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('cell', { name: 'ops', exact: true }).waitFor();
    await screenshot(page, '13-roles');

    await goTo(page, 'Users');
    await page.getByRole('button', { name: 'New User' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Username', { exact: true }).fill('tech1');
    await dialog.getByLabel('Display Name', { exact: true }).fill('Site Technician');
    await dialog.getByRole('group', { name: 'Roles', exact: true }).getByRole('checkbox', { name: 'ops' }).check();
    await dialog.getByLabel('Password', { exact: true }).fill('short');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    // The service's password rule is shown under the Password field.
    await dialog.locator('#user-password-error').waitFor();
    await screenshot(page, '14-user-dialog-error');
    await dialog.getByLabel('Password', { exact: true }).fill('technician-pass-1');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('cell', { name: 'tech1', exact: true }).waitFor();
    await screenshot(page, '15-users');
    const users = await gateway.admin('GET', '/users');
    expect(users.body.find((u: { username: string }) => u.username === 'tech1')).toMatchObject({
      roles: ['ops'],
      active: true,
    });

    await goTo(page, 'Roles');
    await page.getByRole('row').filter({ hasText: 'ops' }).getByRole('button', { name: 'Delete' }).click();
    // Confirmations are dialogs like any other (role dialog), named by their title.
    await page.getByRole('dialog', { name: 'Delete role “ops”?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alert').filter({ hasText: 'still used by user tech1' }).waitFor();
  });

  it('endpoint edit: a route moved off basic lists who lost it; Delete asks first', async () => {
    const { page, gateway } = rig;
    const created = await gateway.admin('POST', '/endpoints', {
      name: 'Gate',
      baseRoutePath: 'gate',
      routes: [{ name: 'gate-reads', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'basic' }],
    });
    expect(created.status).toBe(201);
    const user = await gateway.admin('POST', '/external-users', {
      username: 'gateuser',
      password: 'gate-password-1',
      routes: ['gate-reads'],
    });
    expect(user.status).toBe(201);

    await goTo(page, 'Endpoints');
    await page.getByRole('button', { name: 'Edit Gate' }).click();
    expect(await page.getByLabel('Endpoint Name', { exact: true }).inputValue()).toBe('Gate');
    await page.getByLabel('Auth Type', { exact: true }).selectOption('noauth');
    // Said before saving: who loses the route, and that it opens to anyone.
    const warning = page.locator('.notice.warning');
    await warning.getByText('Route “gate-reads” is no longer basic: gateuser will lose it.').waitFor();
    await warning.getByText('Route “gate-reads” will answer anyone').waitFor();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'lost access' }).filter({ hasText: 'gateuser' }).waitFor();
    await screenshot(page, '20-endpoint-revoked-users');
    expect((await gateway.admin('GET', `/external-users/${user.body.id}`)).body.routes).toEqual([]);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete endpoint “Gate”?' });
    await confirm.waitFor();
    // It names what stops answering.
    await confirm.getByText('/GWENDPOINTAPI/gate/gate-reads stops answering at once').waitFor();
    await screenshot(page, '21-endpoint-delete-confirm');
    // Cancel keeps it; Delete removes it.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await gateway.admin('GET', `/endpoints/${created.body.id}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted “Gate”' }).waitFor();
    expect((await gateway.admin('GET', `/endpoints/${created.body.id}`)).status).toBe(404);
  });

  it('events: filters by status and pages with Load more', async () => {
    const { page, gateway } = rig;
    // 3 pings from the dashboard test, 52 more here: 55 in all, more than one page of 50.
    for (let i = 0; i < 52; i++) {
      const response = await fetch(`${gateway.base}/yard/pings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ping: 100 + i }),
      });
      expect(response.status).toBe(200);
    }
    await goTo(page, 'Events');
    await page.getByLabel('Route', { exact: true }).selectOption('pings');
    await page.getByLabel('Status', { exact: true }).selectOption('processed');
    const rows = page.locator('tbody tr');
    await page.getByRole('button', { name: 'Load more' }).waitFor();
    expect(await rows.count()).toBe(50);
    await page.getByRole('button', { name: 'Load more' }).click();
    // Polled from here through the protocol: a string predicate would be eval'd in the page, which its CSP forbids.
    await expect.poll(() => page.locator('tbody tr').count()).toBe(55);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await page.getByLabel('Status', { exact: true }).selectOption('rejected');
    await page.getByText('No events match these filters.').waitFor();
  });

  it('backup: export downloads a .gwbackup; import previews the diff with progress, then applies', async () => {
    const { page, gateway } = rig;
    await goTo(page, 'Backup');
    await page.getByLabel('Export passphrase', { exact: true }).fill('backup-passphrase-1');
    // Typed twice: a mismatch is caught before anything is encrypted.
    const repeat = page.getByLabel('Repeat passphrase', { exact: true });
    await repeat.fill('backup-passphrase-2');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await page
      .locator('#export-passphrase-repeat-error')
      .filter({ hasText: 'Type the same passphrase again' })
      .waitFor();
    await repeat.fill('backup-passphrase-1');
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^gateway-.*\.gwbackup$/);
    const file = join(scratch, download.suggestedFilename());
    await download.saveAs(file);
    expect(statSync(file).size).toBeGreaterThan(100);

    // A change after the export: the import must report it as removed.
    expect((await gateway.admin('POST', '/roles', { name: 'late-role' })).status).toBe(201);

    await page.getByLabel('Backup file', { exact: true }).setInputFiles(file);
    // A wrong passphrase (backup_invalid, which names no field) is said by the passphrase field.
    const importPassphrase = page.getByLabel('Import passphrase', { exact: true });
    await importPassphrase.fill('not-the-passphrase');
    await page.getByRole('button', { name: 'Preview changes' }).click();
    await page.locator('#import-passphrase-error').filter({ hasText: 'wrong passphrase or damaged file' }).waitFor();
    expect(await importPassphrase.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('alert').filter({ hasText: 'wrong passphrase or damaged file' }).waitFor();
    await importPassphrase.fill('backup-passphrase-1');
    // Hold the request so the progress indicator can be seen while it runs.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/_admin/api/backup/import', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Preview changes' }).click();
    await page.getByRole('progressbar', { name: 'Checking the backup…' }).waitFor();
    await screenshot(page, '16-backup-progress');
    release();
    const rolesRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Roles' }) });
    await rolesRow.getByText('late-role').waitFor();
    await screenshot(page, '17-backup-diff');
    await page.unroute('**/_admin/api/backup/import');

    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('dialog', { name: 'Apply this backup?' }).getByRole('button', { name: 'Apply' }).click();
    await page.getByText('The backup is applied.').waitFor();
    const login = await fetch(`${gateway.base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'admin', password: ADMIN_PASSWORD }),
    });
    const { access_token: token } = await json(login);
    const roles = await fetch(`${gateway.base}/_admin/api/roles`, { headers: { authorization: `Bearer ${token}` } });
    expect((await json(roles)).map((r: { name: string }) => r.name)).not.toContain('late-role');

    // Applying a backup ends every session, this one included.
    await page.getByRole('button', { name: 'Sign in again' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  });

  it('an ended session goes back to the login screen; the keyboard alone signs in again', async () => {
    const { page, adminUrl } = rig;
    await page.goto(adminUrl);
    await page.evaluate("sessionStorage.setItem('gateway.adminToken', 'gwbt_no-longer-valid')");
    await page.goto(`${adminUrl}#/endpoints`);
    await page.reload();
    await page.getByText('Your session has ended. Sign in again to continue.').waitFor();
    await screenshot(page, '18-session-ended');

    await page.getByLabel('Username', { exact: true }).focus();
    await page.keyboard.type('admin');
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN_PASSWORD);
    await page.keyboard.press('Enter');
    // Back where the user was, from the hash in the address.
    await page.getByRole('heading', { level: 1, name: 'Endpoints', exact: true }).waitFor();
    expect(rig.problems).toEqual([]);
  });

  it('sign out ends the bearer token on the gateway, not only in the page', async () => {
    const { page, gateway } = rig;
    const token = await page.evaluate<string>("sessionStorage.getItem('gateway.adminToken')");
    const status = () =>
      fetch(`${gateway.base}/_admin/api/status`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.status,
      );
    expect(await status()).toBe(200);
    const revoked = page.waitForResponse((response) => response.url().endsWith('/GWENDPOINTAPI/token/revoke'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect((await revoked).status()).toBe(200);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await status()).toBe(401);
  });
});

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic } from '../helpers/test-gateway';
import { goTo, screenshot, signIn, startRig, type BrowserRig } from './browser';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const axeViolations = (page: BrowserRig['page']) =>
  page.evaluate<{ id: string }[]>(
    `${AXE_SOURCE}; axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, targets: v.nodes.map((n) => n.target) })))`,
  );

/**
 * The technician's path through the web admin, in order, on one real gateway: sign in, set up a
 * role, an endpoint with a basic and an OAuth2 route, an access token and an external user, then
 * send data with those credentials and find it in the event inspector. Each step builds on the
 * previous one, as the screens do.
 */
// Real Chromium on a small machine: give each step room beyond the default 30 s.
describe('web admin: settings flows', { timeout: 120_000 }, () => {
  let rig: BrowserRig;
  let tokenValue = '';

  beforeAll(async () => {
    rig = await startRig();
  });

  afterAll(async () => {
    await rig?.close();
  });

  it('shows the service’s field errors by Username and Password when both are empty', async () => {
    const { page, adminUrl } = rig;
    await page.goto(adminUrl);
    // novalidate: the browser does not hold the form back, the service answers validation_failed.
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Enter both your username and your password.' }).waitFor();
    // The API says "userName is required"; the screen says it with the field's label.
    for (const label of ['Username', 'Password']) {
      const field = page.getByLabel(label, { exact: true });
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
      expect(await page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).textContent()).toBe(`${label} is required`);
    }
    await screenshot(page, '00-login-field-errors');
  });

  it('refuses a wrong password, then signs in with Username and Password', async () => {
    const { page, adminUrl } = rig;
    await page.goto(adminUrl);
    await page.getByLabel('Username', { exact: true }).fill('admin');
    await page.getByLabel('Password', { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor();
    await screenshot(page, '01-login-error');

    await signIn(page, adminUrl);
    // Evaluated in the page (a string: the test's own lib has no DOM types).
    expect(await page.evaluate('sessionStorage.length')).toBe(1);
  });

  it('explains before saving that the last active admin keeps its role, and refuses its deletion', async () => {
    const { page } = rig;
    await goTo(page, 'Users');
    const row = page.getByRole('row').filter({ hasText: 'admin' });
    await row.getByRole('button', { name: 'Edit admin' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('is the only active administrator: it must keep the admin role').waitFor();
    const roles = dialog.getByRole('group', { name: 'Roles', exact: true });
    await roles.getByRole('checkbox', { name: 'admin', exact: true }).uncheck();
    await dialog.getByRole('alert').filter({ hasText: 'cannot lose the admin role' }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Submit' }).isDisabled()).toBe(true);
    await roles.getByRole('checkbox', { name: 'admin', exact: true }).check();
    await dialog.getByLabel('Active', { exact: true }).uncheck();
    await dialog.getByRole('alert').filter({ hasText: 'cannot be deactivated' }).waitFor();
    await screenshot(page, '02-users-last-admin');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alert').filter({ hasText: 'cannot be deleted' }).waitFor();
    // One banner at a time: nothing else is announced beside it.
    expect(await page.locator('.notice').count()).toBe(1);
  });

  it('creates a role', async () => {
    const { page } = rig;
    await goTo(page, 'Roles');
    await page.getByRole('button', { name: 'New Role' }).click();
    const dialog = page.getByRole('dialog');
    // An empty name: the service's message uses the field's label, as the other forms' do.
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.locator('#role-name-error').filter({ hasText: 'Role Name is required' }).waitFor();
    await dialog.getByLabel('Role Name').fill('scanner');
    await dialog.getByLabel('Description').fill('Handheld scanners posting documents');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('cell', { name: 'scanner', exact: true }).waitFor();
    expect(await dialog.isVisible()).toBe(false);
  });

  it('creates an endpoint with a basic route and an OAuth2 route', async () => {
    const { page, gateway } = rig;
    await goTo(page, 'Endpoints');
    await page.getByText('No endpoints yet. Create one with + New Endpoint.').waitFor();
    await page.getByRole('button', { name: '+ New Endpoint' }).click();
    await page.getByLabel('Endpoint Name', { exact: true }).fill('Warehouse');
    await page.getByLabel('Base Route Path', { exact: true }).fill('warehouse');

    const routeName = page.getByLabel('Route Name', { exact: true });
    const eventType = page.getByLabel('Event Type', { exact: true });
    const requestType = page.getByLabel('Request Type', { exact: true });
    const authType = page.getByLabel('Auth Type', { exact: true });
    const payloadType = page.getByLabel('Payload Type', { exact: true });
    const asyncBox = page.getByLabel('Async', { exact: true });
    const roles = page.getByRole('group', { name: 'Roles', exact: true });

    // Route 1: tag reads from readers, Basic auth.
    await routeName.nth(0).fill('tags');
    await eventType.nth(0).selectOption('UHFTagRead');
    expect(await payloadType.nth(0).inputValue()).toBe('TagReadBatch');
    expect(await payloadType.nth(0).getAttribute('readonly')).not.toBeNull();
    // Async only exists for HttpPost: choosing HttpGet unchecks and disables it.
    await asyncBox.nth(0).check();
    await requestType.nth(0).selectOption('HttpGet');
    expect(await asyncBox.nth(0).isDisabled()).toBe(true);
    expect(await asyncBox.nth(0).isChecked()).toBe(false);
    await requestType.nth(0).selectOption('HttpPost');
    expect(await asyncBox.nth(0).isEnabled()).toBe(true);
    await authType.nth(0).selectOption('basic');
    expect(await roles.count()).toBe(0);

    // Route 2: documents from OAuth2 clients with role scanner.
    await page.getByRole('button', { name: 'Add Route' }).click();
    await routeName.nth(1).fill('docs');
    await eventType.nth(1).selectOption('EpcisMessage');
    expect(await payloadType.nth(1).inputValue()).toBe('EPCISDocument');
    await page.getByLabel('EPCIS lenient', { exact: true }).waitFor();
    await eventType.nth(1).selectOption('AllData');
    expect(await payloadType.nth(1).inputValue()).toBe('GenericJson');
    expect(await page.getByLabel('EPCIS lenient', { exact: true }).count()).toBe(0);
    await authType.nth(1).selectOption('OAuth2');
    // The Roles picker (checkboxes, not a two-row multiple select) appears for the OAuth2 route only.
    expect(await roles.count()).toBe(1);
    expect(await page.locator('select[multiple]').count()).toBe(0);
    await roles.getByRole('checkbox', { name: 'scanner', exact: true }).check();
    await screenshot(page, '02-endpoint-editor');

    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Created “Warehouse”' }).waitFor();
    await page.getByRole('cell', { name: 'Warehouse', exact: true }).waitFor();
    await screenshot(page, '03-endpoints-list');

    const stored = await gateway.admin('GET', '/endpoints');
    expect(stored.body).toHaveLength(1);
    expect(stored.body[0]).toMatchObject({ name: 'Warehouse', baseRoutePath: 'warehouse', active: true });
    expect(stored.body[0].routes).toMatchObject([
      { name: 'tags', eventType: 'UHFTagRead', requestType: 'HttpPost', authType: 'basic', roles: [], async: false },
      { name: 'docs', eventType: 'AllData', authType: 'OAuth2', roles: ['scanner'], payloadType: 'GenericJson' },
    ]);
  });

  it('shows a duplicate route name refused next to that route’s Route Name', async () => {
    const { page, gateway } = rig;
    await page.getByRole('button', { name: '+ New Endpoint' }).click();
    await page.getByLabel('Endpoint Name', { exact: true }).fill('Dock doors');
    await page.getByLabel('Base Route Path', { exact: true }).fill('dock');
    const routeName = page.getByLabel('Route Name', { exact: true });
    await routeName.nth(0).fill('dock-reads');
    await page.getByRole('button', { name: 'Add Route' }).click();
    await routeName.nth(1).fill('TAGS'); // taken by Warehouse (names compare case-insensitively)
    await page.getByRole('button', { name: 'Submit', exact: true }).click();

    await page.getByRole('alert').first().waitFor();
    const second = routeName.nth(1);
    expect(await second.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await second.getAttribute('aria-describedby')) ?? '';
    const message = await page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).textContent();
    expect(message).toMatch(/already used/);
    // The first route is fine and carries no error.
    expect(await routeName.nth(0).getAttribute('aria-invalid')).toBeNull();
    await screenshot(page, '04-duplicate-route-name');

    const stored = await gateway.admin('GET', '/endpoints');
    expect(stored.body).toHaveLength(1);
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  });

  it('creates an access token whose value is shown once, then never in the list', async () => {
    const { page } = rig;
    await goTo(page, 'Access Token');
    await page.getByText('No access tokens yet').waitFor();
    await page.getByRole('button', { name: 'Add AccessToken' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Token Name', { exact: true }).fill('reader-1');
    await dialog.getByLabel('Role', { exact: true }).selectOption('scanner');
    await dialog.getByLabel('Expiry Date', { exact: true }).fill('2099-12-31');
    await dialog.getByLabel('Description', { exact: true }).fill('Dock door reader');
    await dialog.getByRole('button', { name: 'Submit' }).click();

    const value = dialog.getByTestId('token-value');
    await value.waitFor();
    tokenValue = (await value.textContent()) ?? '';
    expect(tokenValue).toMatch(/^gwat_[A-Za-z0-9_-]{43}$/);
    await dialog.getByText("You won't see this token again").waitFor();
    await dialog.getByRole('button', { name: 'Copy' }).waitFor();
    await screenshot(page, '05-access-token-value');

    // A stray Esc (twice: Chromium closes a modal on a repeated Esc) keeps the one-time value.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.mouse.click(5, 5);
    expect(await dialog.getByTestId('token-value').textContent()).toBe(tokenValue);
    await dialog.getByRole('button', { name: 'I have saved it' }).click();
    await page.getByRole('cell', { name: /reader-1/ }).waitFor();
    for (const column of ['Token Name', 'Role', 'Created Date', 'Expiry Date', 'Expiry in days', 'Status']) {
      await page.getByRole('columnheader', { name: column, exact: true }).waitFor();
    }
    const row = page.getByRole('row').filter({ hasText: 'reader-1' });
    expect(await row.getByText('Active', { exact: true }).count()).toBe(1);
    expect(await page.content()).not.toContain(tokenValue);
    await page.reload();
    await page.getByRole('cell', { name: /reader-1/ }).waitFor();
    expect(await page.content()).not.toContain(tokenValue);
    await screenshot(page, '06-access-tokens-list');
  });

  it('creates an external user whose Endpoint(s) offer only basic routes', async () => {
    const { page, gateway } = rig;
    await goTo(page, 'External User');
    await page.getByRole('button', { name: 'New External User' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('First Name', { exact: true }).fill('Dock');
    await dialog.getByLabel('Last Name', { exact: true }).fill('Reader');
    await dialog.getByLabel('Username', { exact: true }).fill('dockreader');
    await dialog.getByLabel('Password', { exact: true }).fill('reader-password-1');
    const routes = dialog.getByRole('group', { name: 'Endpoint(s)', exact: true });
    // Each checkbox says just the route name, inside its endpoint's group.
    expect(await routes.getByRole('checkbox').count()).toBe(1);
    const group = routes.getByRole('group', { name: 'Warehouse (/warehouse)', exact: true });
    expect(await group.getByRole('checkbox').count()).toBe(1);
    await group.getByRole('checkbox', { name: 'tags', exact: true }).check();
    // The Active switch is a plain checkbox to assistive technology (and to tests).
    expect(await dialog.getByRole('checkbox', { name: 'Active', exact: true }).isChecked()).toBe(true);
    await screenshot(page, '07-external-user-dialog');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('cell', { name: 'dockreader', exact: true }).waitFor();
    await screenshot(page, '08-external-users-list');

    const stored = await gateway.admin('GET', '/external-users');
    expect(stored.body).toMatchObject([
      { username: 'dockreader', firstName: 'Dock', lastName: 'Reader', routes: ['tags'], active: true },
    ]);
  });

  it('accepts data with those credentials and shows it in the event inspector', async () => {
    const { page, gateway } = rig;
    const tagRead = await fetch(`${gateway.base}/warehouse/tags`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic('dockreader', 'reader-password-1') },
      body: JSON.stringify({ epc: '3074257BF7194E4000001A85', antenna: 2, rssi: -51 }),
    });
    expect(tagRead.status, await tagRead.clone().text()).toBe(200);
    const doc = await fetch(`${gateway.base}/warehouse/docs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: tokenValue, 'x-request-id': 'browser-test-doc-1' },
      body: JSON.stringify({ document: 'delivery-note', lines: 3 }),
    });
    expect(doc.status).toBe(200);

    await goTo(page, 'Events');
    const rows = page.getByRole('row').filter({ has: page.getByRole('button', { name: /Open event/ }) });
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBe(2);

    await page.getByLabel('Route', { exact: true }).selectOption('docs');
    // Polled from here through the protocol: a string predicate would be eval'd in the page, which its CSP forbids.
    await expect.poll(() => page.locator('.events-table tbody tr').count()).toBe(1);
    expect(await rows.first().textContent()).toContain('docs');
    await rows
      .first()
      .getByRole('button', { name: /Open event/ })
      .click();
    const detail = page.getByRole('region', { name: /^Event / });
    await detail.getByText('token:reader-1').waitFor();
    expect(await detail.getByLabel('Payload').textContent()).toContain('"document": "delivery-note"');
    await detail.getByText('browser-test-doc-1').waitFor();
    // Exact: the event's own link (issue 40) names the admin's address too.
    await detail.getByText('127.0.0.1', { exact: true }).waitFor();
    await detail.getByText('processed', { exact: true }).waitFor();
    await screenshot(page, '09-event-inspector');

    await page.getByLabel('Route', { exact: true }).selectOption('tags');
    await page.getByRole('row').filter({ hasText: 'external:dockreader' }).waitFor();
  });

  it('disables and re-activates an external user with the list’s Active toggle, keeping the password', async () => {
    const { page, gateway } = rig;
    const post = () =>
      fetch(`${gateway.base}/warehouse/tags`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: basic('dockreader', 'reader-password-1') },
        body: JSON.stringify({ epc: '3074257BF7194E4000001A86', antenna: 1, rssi: -60 }),
      });
    await goTo(page, 'External User');
    const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'dockreader', exact: true }) });
    const toggle = row.getByRole('checkbox', { name: 'Active dockreader', exact: true });
    expect(await toggle.isChecked()).toBe(true);
    await row.getByText('Active', { exact: true }).waitFor();

    await toggle.uncheck();
    await row.getByText('Disabled', { exact: true }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Disabled external user “dockreader”' }).waitFor();
    expect(await toggle.isChecked()).toBe(false);
    await screenshot(page, '08b-external-user-disabled');
    const disabled = (await gateway.admin('GET', '/external-users')).body[0];
    expect(disabled).toMatchObject({ username: 'dockreader', firstName: 'Dock', routes: ['tags'], active: false });
    // A valid credential of a disabled external user: 403 `forbidden` (SPEC §4).
    expect((await post()).status).toBe(403);

    // Another admin edits the user behind this page: the toggle must not put the old values back.
    const { id, ...fields } = disabled;
    const edited = await gateway.admin('PUT', `/external-users/${id}`, { ...fields, firstName: 'Dockside' });
    expect(edited.status).toBe(200);
    await toggle.check();
    await row.getByText('Active', { exact: true }).waitFor();
    expect((await gateway.admin('GET', '/external-users')).body[0]).toMatchObject({
      ...disabled,
      firstName: 'Dockside',
      active: true,
    });
    // The toggle sent no password, so the service kept the old one.
    expect((await post()).status).toBe(200);

    // A refused update says why and leaves the toggle at the saved state.
    const doomed = await gateway.admin('POST', '/external-users', {
      username: 'shortlived',
      password: 'shortlived-pass-1',
      routes: ['tags'],
    });
    expect(doomed.status).toBe(201);
    await page.reload();
    const doomedToggle = page.getByRole('checkbox', { name: 'Active shortlived', exact: true });
    await doomedToggle.waitFor();
    expect((await gateway.admin('DELETE', `/external-users/${doomed.body.id}`)).status).toBe(204);
    await doomedToggle.click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Could not disable “shortlived”: External user not found' })
      .waitFor();
    expect(await doomedToggle.isChecked()).toBe(true);
    expect(await doomedToggle.isEnabled()).toBe(true);
  });

  it('regenerates the token (old value refused) and deletes it after confirmation', async () => {
    const { page, gateway } = rig;
    await goTo(page, 'Access Token');
    await page.getByRole('row').filter({ hasText: 'reader-1' }).getByRole('button', { name: 'Regenerate' }).click();
    // The confirmation is a dialog like any other (role dialog), named by its title.
    await page
      .getByRole('dialog', { name: /^Regenerate/ })
      .getByRole('button', { name: 'Regenerate' })
      .click();
    const fresh = (await page.getByTestId('token-value').textContent()) ?? '';
    expect(fresh).toMatch(/^gwat_/);
    expect(fresh).not.toBe(tokenValue);
    await page.getByRole('dialog').getByRole('button', { name: 'I have saved it' }).click();
    const post = (authorization: string) =>
      fetch(`${gateway.base}/warehouse/docs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: '{"n":1}',
      });
    expect((await post(tokenValue)).status).toBe(401);
    expect((await post(fresh)).status).toBe(200);

    await page.getByRole('row').filter({ hasText: 'reader-1' }).getByRole('button', { name: 'Delete' }).click();
    // While the confirmation is open it is the only Delete button a user (or a test) can reach.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('No access tokens yet').waitFor();
    expect((await post(fresh)).status).toBe(401);
    expect(rig.problems).toEqual([]);
  });

  it('copies full URLs from the dashboard and the route cards, and says when the stored port is not the live one', async () => {
    const { page, gateway } = rig;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const clipboard = () => page.evaluate('navigator.clipboard.readText()');
    const live = gateway.base; // http://127.0.0.1:<port>/GWENDPOINTAPI

    await goTo(page, 'Dashboard');
    await page.getByRole('button', { name: `Copy ${live}`, exact: true }).click();
    expect(await clipboard()).toBe(live);

    await goTo(page, 'Endpoints');
    await page.getByRole('button', { name: 'Edit Warehouse' }).click();
    const tagsUrl = `${live}/warehouse/tags`;
    await page.getByRole('button', { name: `Copy ${tagsUrl}`, exact: true }).click();
    expect(await clipboard()).toBe(tagsUrl);
    await page
      .getByRole('list', { name: 'Addresses of route docs' })
      .getByRole('button', { name: `Copy ${live}/warehouse/docs`, exact: true })
      .waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    // The test gateway listens on a free port, not the stored default.
    await goTo(page, 'Settings');
    const port = new URL(live).port;
    await page
      .getByRole('status')
      .filter({ hasText: `listens on port ${port} now` })
      .waitFor();
    expect(await page.title()).toBe('Settings · Gateway');
  });

  it('gives a route an MQTT topic, switches MQTT on, and copies the route’s full mqtt:// address', async () => {
    const { page, gateway } = rig;
    const clipboard = () => page.evaluate('navigator.clipboard.readText()');
    // Where `gateway serve` would start the broker: on a free port, following `mqttMode` (off so far).
    await gateway.gateway.mqtt.listen({ host: '127.0.0.1', port: 0, mqttsPort: 0 });

    await goTo(page, 'Endpoints');
    await page.getByRole('button', { name: 'Edit Warehouse' }).click();
    const topic = page.getByLabel('MQTT topic', { exact: true });
    const tagsCard = page.getByRole('group', { name: 'Route 1', exact: true });
    const docsCard = page.getByRole('group', { name: 'Route 2', exact: true });
    // Both routes are HttpPost: each has the field; an HttpGet route has none, and sends none.
    expect(await topic.count()).toBe(2);
    // The service's topic rule is shown beside the field.
    const tagsTopic = tagsCard.getByLabel('MQTT topic', { exact: true });
    await tagsTopic.fill('warehouse/#/tags');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await expect.poll(() => tagsTopic.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await tagsTopic.getAttribute('aria-describedby')) ?? '';
    expect(await page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).textContent()).toContain(
      '"#" must be a whole level',
    );
    await tagsTopic.fill('warehouse/+/tags');
    await docsCard.getByLabel('MQTT topic', { exact: true }).fill('warehouse/docs');
    await docsCard.getByLabel('Request Type', { exact: true }).selectOption('HttpGet');
    expect(await docsCard.getByLabel('MQTT topic', { exact: true }).count()).toBe(0);
    // The broker is off: the card says where to switch it on, and offers nothing to copy.
    await tagsCard.getByText('MQTT is off (Settings).').waitFor();
    expect(await tagsCard.getByRole('link', { name: 'Settings', exact: true }).getAttribute('href')).toBe('#/settings');
    expect(await page.getByRole('button', { name: /^Copy mqtt/ }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved “Warehouse”' }).waitFor();
    const routes = (await gateway.admin('GET', '/endpoints')).body[0].routes;
    expect(routes).toMatchObject([
      { name: 'tags', requestType: 'HttpPost', mqttTopic: 'warehouse/+/tags' },
      { name: 'docs', requestType: 'HttpGet', mqttTopic: null },
    ]);

    await goTo(page, 'Settings');
    await page.getByRole('checkbox', { name: 'MQTT broker', exact: true }).check();
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByText('Settings saved.').waitFor();
    expect((await gateway.admin('GET', '/status')).body.mqtt).toMatchObject({ mode: 'on' });
    await expect.poll(() => gateway.gateway.mqtt.urls().length).toBe(1);
    const [broker] = gateway.gateway.mqtt.urls();
    expect(broker).toMatch(/^mqtt:\/\/127\.0\.0\.1:\d+$/);

    // A fresh editor reads where the broker listens: the topic's full address sits by the HTTP one.
    await goTo(page, 'Endpoints');
    await page.getByRole('button', { name: 'Edit Warehouse' }).click();
    const address = `${broker}/warehouse/+/tags`;
    const mqttList = page.getByRole('list', { name: 'MQTT addresses of route tags', exact: true });
    await mqttList.getByText(`MQTT ${address}`).waitFor();
    await mqttList.getByRole('button', { name: `Copy ${address}`, exact: true }).click();
    expect(await clipboard()).toBe(address);
    // A filter with a wildcard: the card says a reader publishes to a topic it matches.
    await tagsCard.getByText('A filter: readers publish to a topic it matches').waitFor();
    // The HTTP addresses stay HTTP: the broker's URL is no data-plane base.
    const httpList = page.getByRole('list', { name: 'Addresses of route tags', exact: true });
    await httpList.getByText(`POST ${gateway.base}/warehouse/tags`, { exact: true }).waitFor();
    expect(await httpList.getByRole('button', { name: /^Copy mqtt/ }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '09b-route-mqtt-address');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(rig.problems).toEqual([]);
  });

  it('shows a backup’s setting changes as old → new in people’s words under Changed', async () => {
    const { page } = rig;
    const none = { added: [], changed: [], removed: [] };
    // The dry-run answer as SPEC §14 shapes it (settingChanges beside changes).
    await page.route('**/_admin/api/backup/import', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          dryRun: true,
          changes: {
            endpoints: none,
            roles: none,
            users: none,
            externalUsers: none,
            accessTokens: none,
            settings: { added: [], changed: ['retentionDays', 'tagDedupWindowMs'], removed: [] },
          },
          settingChanges: [
            { key: 'retentionDays', from: 30, to: 7 },
            { key: 'tagDedupWindowMs', from: 1000, to: 250 },
          ],
        }),
      }),
    );
    await goTo(page, 'Backup');
    await page
      .getByLabel('Backup file', { exact: true })
      .setInputFiles({ name: 'x.gwbackup', mimeType: 'application/octet-stream', buffer: Buffer.from('backup') });
    await page.getByLabel('Import passphrase', { exact: true }).fill('backup-passphrase-1');
    await page.getByRole('button', { name: 'Preview changes' }).click();
    const settingsRow = page.getByRole('row', { name: /^Settings/ });
    await settingsRow.getByText('Retention (days): 30 → 7').waitFor();
    await settingsRow.getByText('Tag dedup window (ms): 1000 → 250').waitFor();
    expect(await settingsRow.textContent()).not.toContain('tagDedupWindowMs');
    await page.unroute('**/_admin/api/backup/import');
  });

  it('names the login page “Sign in · Gateway”', async () => {
    const { page } = rig;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.title()).toBe('Sign in · Gateway');
  });
});

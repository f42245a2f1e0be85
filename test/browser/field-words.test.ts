import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { goTo, signIn, startRig, type BrowserRig } from './browser';

/**
 * Issue 26 item 6: the API names fields by their keys ("userName is required", "bcryptCost must
 * be…"); the screens say them with the labels the forms show. The API's messages themselves stay
 * as they are: these tests provoke the real ones where a form can, and answer in the API's shape
 * where no form can send the mistake (a route's Async that is not true or false, a backup file's
 * bad setting).
 */
describe('web admin: API errors in people’s words', { timeout: 120_000 }, () => {
  let rig: BrowserRig;

  beforeAll(async () => {
    rig = await startRig();
  });

  afterAll(async () => {
    await rig?.close();
  });

  /** The error text a field is described by (its last aria-describedby entry). */
  async function errorOf(page: Page, field: Locator): Promise<string | null> {
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
    return page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).textContent();
  }

  it('sign-in: “Username is required”, not “userName is required”', async () => {
    const { page, adminUrl } = rig;
    await page.goto(adminUrl);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').waitFor();
    expect(await errorOf(page, page.getByLabel('Username', { exact: true }))).toBe('Username is required');
    expect(await errorOf(page, page.getByLabel('Password', { exact: true }))).toBe('Password is required');
  });

  it('settings: the refused setting is named by its label, beside the field and in the summary', async () => {
    const { page, adminUrl } = rig;
    await signIn(page, adminUrl);
    await goTo(page, 'Settings');
    await page.getByLabel('bcrypt cost', { exact: true }).fill('20');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    const summary = page.getByRole('alert').filter({ hasText: 'Fix the marked fields' });
    await summary.waitFor();
    expect(await summary.textContent()).toContain('bcrypt cost must be an integer from 4 to 14.');
    expect(await errorOf(page, page.getByLabel('bcrypt cost', { exact: true }))).toBe(
      'bcrypt cost must be an integer from 4 to 14',
    );

    // Two at once: each by its own field, neither by its key.
    await page.getByLabel('Tag dedup window (ms)', { exact: true }).fill('-1');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByText('Tag dedup window (ms) must be an integer from 0 to 3600000').waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/bcryptCost|tagDedupWindowMs/);
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
  });

  it('users and roles: a field without a label in the API’s message gets the form’s', async () => {
    const { page } = rig;
    await goTo(page, 'Users');
    await page.getByRole('button', { name: 'New User' }).click();
    const userDialog = page.getByRole('dialog');
    await userDialog.getByLabel('Display Name', { exact: true }).fill('x'.repeat(129));
    await userDialog.getByLabel('Username', { exact: true }).fill('tech1');
    await userDialog.getByLabel('Password', { exact: true }).fill('long-enough-1');
    await userDialog.getByRole('button', { name: 'Submit' }).click();
    await userDialog.getByRole('alert').waitFor();
    expect(await errorOf(page, userDialog.getByLabel('Display Name', { exact: true }))).toBe(
      'Display Name must be at most 128 characters',
    );
    expect(await userDialog.getByRole('alert').textContent()).not.toContain('displayName');
    await userDialog.getByRole('button', { name: 'Cancel' }).click();

    await goTo(page, 'Roles');
    await page.getByRole('button', { name: 'New Role' }).click();
    const roleDialog = page.getByRole('dialog');
    await roleDialog.getByLabel('Role Name', { exact: true }).fill('scanner');
    await roleDialog.getByLabel('Description', { exact: true }).fill('y'.repeat(1025));
    await roleDialog.getByRole('button', { name: 'Submit' }).click();
    await roleDialog.getByRole('alert').waitFor();
    expect(await errorOf(page, roleDialog.getByLabel('Description', { exact: true }))).toBe(
      'Description must be at most 1024 characters',
    );
    await roleDialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('endpoint: an error inside a route is worded with that route’s labels', async () => {
    const { page } = rig;
    await page.route('**/_admin/api/endpoints', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 400,
            contentType: 'application/problem+json',
            body: JSON.stringify({
              type: 'about:blank',
              title: 'Bad Request',
              status: 400,
              code: 'validation_failed',
              detail: 'The input is invalid',
              errors: [
                { path: '/routes/0/async', message: 'async must be true or false' },
                { path: '/active', message: 'active must be true or false' },
              ],
            }),
          })
        : route.fallback(),
    );
    await goTo(page, 'Endpoints');
    await page.getByRole('button', { name: '+ New Endpoint' }).click();
    await page.getByLabel('Endpoint Name', { exact: true }).fill('Dock door 3');
    await page.getByLabel('Base Route Path', { exact: true }).fill('dock3');
    await page.getByLabel('Route Name', { exact: true }).fill('reads');
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('alert').first().waitFor();
    expect(await errorOf(page, page.getByLabel('Async', { exact: true }))).toBe('Async must be true or false');
    expect(await errorOf(page, page.getByLabel('Active', { exact: true }).first())).toBe(
      'Active must be true or false',
    );
    await page.unroute('**/_admin/api/endpoints');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
  });

  it('backup: problems inside the file are worded with the labels of what they are about', async () => {
    const { page } = rig;
    await page.route('**/_admin/api/backup/import', (route) =>
      route.fulfill({
        status: 400,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: 'about:blank',
          title: 'Bad Request',
          status: 400,
          code: 'backup_invalid',
          detail: 'The backup file is not valid',
          errors: [
            { path: '/settings/bcryptCost', message: 'bcryptCost must be an integer from 4 to 14' },
            { path: '/users/0/roles/0', message: 'roles entries must be non-empty strings' },
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
    const summary = page.getByRole('alert').filter({ hasText: 'The backup file is not valid' });
    await summary.getByText('bcrypt cost must be an integer from 4 to 14', { exact: true }).waitFor();
    await summary.getByText('Roles entries must be non-empty strings', { exact: true }).waitFor();
    await page.unroute('**/_admin/api/backup/import');
  });

  it('access token: a refused save words its fields and puts the keyboard on the first one', async () => {
    const { page } = rig;
    await goTo(page, 'Access Token');
    await page.getByRole('button', { name: 'Add AccessToken' }).click();
    const dialog = page.getByRole('dialog');
    const name = dialog.getByLabel('Token Name', { exact: true });
    await name.fill('   ');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await errorOf(page, name)).toBe('Token Name is required');
    // The dialog's forms share one submit (the list skeleton's): after a refusal the first field
    // marked wrong has the keyboard, not the Submit button that was pressed.
    const id = await name.getAttribute('id');
    await expect.poll(() => page.evaluate<string>("document.activeElement?.id ?? ''")).toBe(id);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });
});

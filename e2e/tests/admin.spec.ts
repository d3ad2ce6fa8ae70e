import { type Locator, type Page, expect, test } from '@playwright/test';
import { approveViaApi, registerViaApi, uniqueUser } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { signInWithSession, screenshot } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

const UNDELETABLE = 'This setting drives the application and cannot be deleted';

async function loginAdmin(page: Page) {
  await signInWithSession(page, E2E.admin.email, E2E.admin.password);
  await expect(page).toHaveURL(/\/dashboard/, { timeout: 10_000 });
}

/** The settings row whose name cell reads exactly `name`. */
function settingRow(page: Page, name: string): Locator {
  return page.getByRole('row').filter({ has: page.getByText(name, { exact: true }) });
}

async function addSetting(page: Page, name: string, value: string) {
  await page.getByRole('textbox', { name: /^New name/ }).fill(name);
  await page.getByRole('textbox', { name: 'New value' }).fill(value);
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(settingRow(page, name)).toBeVisible();
}

async function deleteSetting(page: Page, name: string) {
  await settingRow(page, name)
    .getByRole('button', { name: `Delete ${name}` })
    .click();
  await page.getByRole('dialog', { name: 'Delete setting?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(settingRow(page, name)).toHaveCount(0);
}

/** The body rows of the audit table (the header row excluded). */
const auditRows = (page: Page) => page.getByRole('region', { name: 'Audit log entries' }).locator('tbody tr');

test.describe('administration', () => {
  test.use({ viewport: { width: 1280, height: 900 } });

  test('admin opens Roles and sees the three roles and the permission matrix', async ({ page }) => {
    await loginAdmin(page);
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Roles' }).click();
    await expect(page).toHaveURL(/\/roles-permissions/);
    await expect(page.getByRole('heading', { name: 'Roles and Permissions', level: 1 })).toBeVisible();

    const roles = page.getByRole('region', { name: 'Roles' });
    for (const name of ['Patient', 'Health Provider', 'Admin']) {
      await expect(roles.getByRole('heading', { name, exact: true })).toBeVisible();
    }
    const matrix = page.getByRole('table');
    await expect(matrix.getByRole('columnheader')).toHaveText(['Permission', 'Patient', 'Health Provider', 'Admin']);
    // roles:read is the admin's alone; messages:send is everyone's.
    const rolesRead = matrix.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /roles:read/ }) });
    await expect(rolesRead.getByRole('cell')).toHaveText(['Not held', 'Not held', 'Held']);
    const send = matrix.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /messages:send/ }) });
    await expect(send.getByRole('cell')).toHaveText(['Held', 'Held', 'Held']);

    await screenshot(page, 'admin-roles');
    await expectAccessible(page);
  });

  test('admin adds a setting, edits it, is refused a non-number max_upload_mb with the field error, deletes the added one', async ({
    page,
  }) => {
    const name = `e2e_note_${Date.now().toString(36)}`;
    await loginAdmin(page);
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/appsettings/);
    for (const column of ['Name', 'Value', 'Description', 'Created-at', 'Updated-at', 'Actions']) {
      await expect(page.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
    }

    // The name is required before anything is sent.
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(page.getByText('Name is required')).toBeVisible();

    await addSetting(page, name, 'first');
    await expect(page.getByText('Setting added')).toBeVisible();

    const row = settingRow(page, name);
    await row.getByRole('button', { name: `Edit ${name}` }).click();
    await page.getByRole('textbox', { name: 'Value', exact: true }).fill('second');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(row.getByRole('cell', { name: 'second', exact: true })).toBeVisible();

    // A built-in setting: Delete is disabled with the reason; a bad value is refused on the field.
    const maxUpload = settingRow(page, 'max_upload_mb');
    const del = maxUpload.getByRole('button', { name: 'Delete max_upload_mb' });
    await expect(del).toHaveAttribute('aria-disabled', 'true');
    await del.hover();
    await expect(page.getByRole('tooltip').filter({ hasText: UNDELETABLE })).toBeVisible();
    await maxUpload.getByRole('button', { name: 'Edit max_upload_mb' }).click();
    await expect(page.getByRole('textbox', { name: 'Name', exact: true })).toBeDisabled();
    const value = page.getByRole('textbox', { name: 'Value', exact: true });
    await value.fill('lots');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('value: Must be a whole number')).toBeVisible();
    await expect(value).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText('Must be a whole number', { exact: true })).toBeVisible();
    // What was typed stays beside the reason it was refused.
    await expect(value).toHaveValue('lots');
    await screenshot(page, 'admin-settings');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(maxUpload.getByRole('cell', { name: '10', exact: true })).toBeVisible();

    await deleteSetting(page, name);
    await page.reload();
    await expect(settingRow(page, 'max_upload_mb')).toBeVisible();
    await expect(settingRow(page, name)).toHaveCount(0);
  });

  test('a setting value with markup is shown as text and never runs', async ({ page }) => {
    const name = `e2e_xss_${Date.now().toString(36)}`;
    const payload = '<img src=x onerror=window.__xss=1>';
    await loginAdmin(page);
    await page.goto('/appsettings');
    await addSetting(page, name, payload);
    await page.reload();
    await expect(settingRow(page, name).getByRole('cell', { name: payload, exact: true })).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined();
    await expect(page.locator('main img[src="x"]')).toHaveCount(0);
    await deleteSetting(page, name);
  });

  test('admin reads audit logs, searches by user and filters by action', async ({ page }) => {
    const name = `e2e_audit_${Date.now().toString(36)}`;
    await loginAdmin(page);
    // Something to find: a settings change by the admin.
    await page.goto('/appsettings');
    await addSetting(page, name, '1');

    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Audit Logs' }).click();
    await expect(page).toHaveURL(/\/audit-logs/);
    for (const column of ['Timestamp', 'User', 'Action', 'Table', 'IP Address', 'Reason']) {
      await expect(page.getByRole('columnheader', { name: column, exact: true })).toBeVisible();
    }
    await expect(auditRows(page)).toHaveCount(5);
    await expect(page.getByText(/^1–5 of \d+$/)).toBeVisible();

    await page.getByRole('combobox', { name: /Rows per page/ }).click();
    await expect(page.getByRole('option')).toHaveText(['5', '10', '20']);
    await page.getByRole('option', { name: '10' }).click();
    await expect(auditRows(page)).toHaveCount(10);

    await page.getByRole('searchbox', { name: 'Search by user' }).fill('System');
    await expect(page.getByText(/^1–\d+ of \d+$/)).toBeVisible();
    // The previous page may still be shown for a moment: wait until every row is the admin's.
    await expect
      .poll(async () => (await auditRows(page).allInnerTexts()).every((t) => t.includes('@admin')))
      .toBe(true);

    await page.getByRole('combobox', { name: 'Action' }).selectOption('settings.create');
    await expect
      .poll(async () => (await auditRows(page).allInnerTexts()).every((t) => t.includes('settings.create')))
      .toBe(true);
    await expect(auditRows(page).filter({ hasText: `name=${name}` })).toHaveCount(1);
    await screenshot(page, 'audit-logs-admin');
    await expectAccessible(page);

    await page.goto('/appsettings');
    await deleteSetting(page, name);
  });

  test('a provider sees only their own audit rows', async ({ page }) => {
    const u = uniqueUser('healthProvider');
    await approveViaApi(await registerViaApi(u));
    await signInWithSession(page, u.email, u.password);
    await expect(page).toHaveURL(/\/dashboard/, { timeout: 10_000 });
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Audit Logs' }).click();
    await expect(auditRows(page).first()).toContainText(`@${u.username}`);
    await page.getByRole('combobox', { name: /Rows per page/ }).click();
    await page.getByRole('option', { name: '20' }).click();
    const texts = await auditRows(page).allInnerTexts();
    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) expect(text).toContain(`@${u.username}`);
    await expect(page.getByText('@admin')).toHaveCount(0);
    // The admin's own actions are not offered either.
    await expect(
      page.getByRole('combobox', { name: 'Action' }).locator('option', { hasText: 'settings.create' }),
    ).toHaveCount(0);
    await screenshot(page, 'audit-logs-provider');
    await expectAccessible(page);
  });

  test('a refused look at a profile is in the audit trail, under Refusals', async ({ page }) => {
    const u = uniqueUser('healthProvider');
    await approveViaApi(await registerViaApi(u));
    await signInWithSession(page, u.email, u.password);
    await expect(page).toHaveURL(/\/dashboard/, { timeout: 10_000 });
    // Nobody has this id: the profile page's read answers 404, which is audited as access.denied.
    await page.goto('/user-profile/00000000-0000-4000-8000-000000000000');
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Audit Logs' }).click();
    await page.getByRole('combobox', { name: 'Kind' }).selectOption({ label: 'Refusals and failures' });
    await expect(auditRows(page).filter({ hasText: 'GET /api/users/:id 404' })).toHaveCount(1);
    // The 404 row is on the unfiltered page too: wait for the filtered answer, where every row failed.
    await expect
      .poll(async () => (await auditRows(page).allInnerTexts()).filter((text) => !text.includes('Failure')))
      .toEqual([]);
    await page.getByRole('combobox', { name: 'Kind' }).selectOption({ label: 'Changes' });
    await expect
      .poll(async () => (await auditRows(page).allInnerTexts()).some((t) => t.includes('access.denied')))
      .toBe(false);
  });
});

test.describe('administration at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('roles, settings and audit logs fit a phone: every role’s column on screen, settings and audit entries become lists', async ({
    page,
  }) => {
    await loginAdmin(page);
    const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
    for (const [path, name, region, row] of [
      ['/roles-permissions', 'admin-roles', 'Permissions by role', 'tbody tr'],
      ['/appsettings', 'admin-settings', 'Application settings', 'role=listitem'],
    ] as const) {
      await page.goto(path);
      await expect(page.getByRole('region', { name: region }).locator(row).first()).toBeVisible();
      expect(await pageWidth()).toBeLessThanOrEqual(390);
      // Nothing to scroll sideways to: every role's column is on screen.
      expect(
        await page.getByRole('region', { name: region }).evaluate((el) => el.scrollWidth - el.clientWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, name);
      await expectAccessible(page);
    }

    // Audit entries: each a list item whose every field is on screen (the table hid Action and all after it).
    await page.goto('/audit-logs');
    const entry = page.getByRole('list', { name: 'Audit log entries' }).getByRole('listitem').first();
    await expect(entry).toBeVisible();
    await expect(entry.getByText(/^(Success|Failure)$/)).toBeVisible();
    await expect(entry.getByText(/^IP address: /)).toBeVisible();
    const box = (await entry.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await entry.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    expect(await pageWidth()).toBeLessThanOrEqual(390);
    await screenshot(page, 'audit-logs-admin');
    await expectAccessible(page);
  });
});

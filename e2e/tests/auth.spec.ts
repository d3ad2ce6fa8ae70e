import { expect, test, type Page } from '@playwright/test';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { mailCount, waitForCode, waitForResetToken } from '../support/mail.ts';
import { enterCode, loginThroughUi, logoutThroughUi } from '../support/ui.ts';

const UNDER_REVIEW =
  "Your Account has been successfully created and It's under review. You will be informed once it completed";

async function fillRegistration(page: Page, u: ReturnType<typeof uniqueUser>, roleName: RegExp) {
  await page.goto('/register');
  await page.getByRole('radio', { name: roleName }).check();
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByLabel('First name').fill(u.firstname);
  await page.getByLabel('Last name').fill(u.lastname);
  await page.getByLabel('Date of birth').fill('1988-02-29');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByLabel('Bio').fill('E2E test account');
  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByLabel('Username').fill(u.username);
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel(/^Password/).fill(u.password);
  await page.getByLabel('Confirm password').fill(u.password);
  await page.getByRole('button', { name: 'Register' }).click();
}

test('a patient registers, confirms the mailed code, logs out, logs in with the second factor and lands on /view-images', async ({
  page,
}) => {
  const u = uniqueUser('patient');
  await fillRegistration(page, u, /^Patient/);
  await expect(page.getByText('Registration successful!').first()).toBeVisible();
  await expect(page).toHaveURL(/\/verify-account/, { timeout: 10_000 });
  await enterCode(page, await waitForCode(u.email));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/view-images/, { timeout: 10_000 });

  await logoutThroughUi(page);
  await expect(page.getByText('Logged out successfully')).toBeVisible();
  await page.goto('/view-images');
  await expect(page).toHaveURL(/\/login/);

  await loginThroughUi(page, u.email, u.password);
  await expect(page).toHaveURL(/\/view-images/, { timeout: 10_000 });
  // The session survives a reload (persisted under `root`).
  await page.reload();
  await expect(page).toHaveURL(/\/view-images/);
});

test('a provider sees the under-review warning, is told after the code step that the account awaits review, then lands on /dashboard once activated', async ({
  page,
}) => {
  const u = uniqueUser('healthProvider');
  await fillRegistration(page, u, /^Health Provider/);
  await expect(page.getByText(UNDER_REVIEW).first()).toBeVisible();
  await expect(page).toHaveURL(/\/verify-account/, { timeout: 10_000 });
  await enterCode(page, await waitForCode(u.email));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/login/, { timeout: 10_000 });

  // The password step answers as for any account; the review notice comes only after the code.
  await loginThroughUi(page, u.email, u.password);
  await expect(page.getByText(UNDER_REVIEW).first()).toBeVisible();
  await expect(page).toHaveURL(/\/login/);

  const admin = await signInViaApi('admin@e2e.medshare', 'E2e-admin-passphrase-1');
  const res = await fetch(`${E2E.baseUrl}/api/users?search=${u.username}`, {
    headers: { authorization: `Bearer ${admin.token}` },
  });
  const id = ((await res.json()) as { data: Array<{ id: string }> }).data[0]!.id;
  await approveViaApi(id);

  await loginThroughUi(page, u.email, u.password);
  await expect(page).toHaveURL(/\/dashboard/, { timeout: 10_000 });
});

test('forgot password end to end: code, new password, sign in with it', async ({ page }) => {
  const u = uniqueUser('patient');
  await registerViaApi(u);
  const before = mailCount(u.email);
  await page.goto('/forgot-password');
  await page.getByLabel('Email').fill(u.email);
  await page.getByRole('button', { name: 'Send Code' }).click();
  await expect(page.getByText('Reset code sent successfully!')).toBeVisible();
  await enterCode(page, await waitForCode(u.email, before));
  await page.getByLabel(/^New password/).fill('Another-long-passphrase');
  await page.getByLabel('Confirm new password').fill('Another-long-passphrase');
  await page.getByRole('button', { name: 'Reset Password' }).click();
  await expect(page.getByText('Password Changed!')).toBeVisible();
  await page.getByRole('link', { name: 'Back to Login' }).click();
  await loginThroughUi(page, u.email, 'Another-long-passphrase');
  await expect(page).toHaveURL(/\/view-images/, { timeout: 10_000 });
});

test('reset password by the mailed link', async ({ page }) => {
  const u = uniqueUser('patient');
  await registerViaApi(u);
  const before = mailCount(u.email);
  await fetch(`${E2E.baseUrl}/api/auth/forgot-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: u.email }),
  });
  const token = await waitForResetToken(u.email, before);
  await page.goto(`/reset-password?token=${encodeURIComponent(token)}`);
  await page.getByLabel(/^New password/).fill('Link-reset-passphrase');
  await page.getByLabel(/Confirm/).fill('Link-reset-passphrase');
  await page.getByRole('button', { name: 'Reset Password' }).click();
  await expect(page.getByText('Password reset successfully!').first()).toBeVisible();
  await loginThroughUi(page, u.email, 'Link-reset-passphrase');
  await expect(page).toHaveURL(/\/view-images/, { timeout: 10_000 });
});

test('five wrong codes lock the code and end the sign-in; the password starts a new one', async ({ page }) => {
  const u = uniqueUser('patient');
  await registerViaApi(u);
  const before = mailCount(u.email);
  await page.goto('/login');
  await page.getByLabel('Email').fill(u.email);
  await page.getByLabel(/^Password/).fill(u.password);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/verify-account/);
  const right = await waitForCode(u.email, before);
  const wrong = right === '000000' ? '111111' : '000000';
  for (let i = 0; i < 5; i++) {
    await enterCode(page, wrong);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(
      page
        .getByText(i < 4 ? 'Invalid or expired code' : 'Too many wrong codes. Sign in again to get a new code.')
        .first(),
    ).toBeVisible();
    await page.locator('.Toastify__toast').first().waitFor({ state: 'visible' });
  }
  await expect(page).toHaveURL(/\/login/, { timeout: 10_000 });
  // The right code of the locked sign-in stays refused.
  const late = await fetch(`${E2E.baseUrl}/api/auth/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: u.email, code: right }),
  });
  expect(late.status).toBe(429);
  await loginThroughUi(page, u.email, u.password);
  await expect(page).toHaveURL(/\/view-images/, { timeout: 10_000 });
});

/**
 * The browser keeps who is signed in across a reload, never their personal data: the stored
 * session has the token and the names, the profile's fields come from the server each time
 * (web/src/lib/session.ts › storedSession).
 */
test('the stored session holds no personal field; My Profile shows them after a reload', async ({ page }) => {
  const patient = { ...uniqueUser('patient'), dob: '1988-03-14', bloodgroup: 'AB-', address: '7 Jail Road, Lahore' };
  await registerViaApi(patient);
  await loginThroughUi(page, patient.email, patient.password);
  await page.goto('/profile');
  await expect(page.getByText('AB-')).toBeVisible();
  const stored = async () => (await page.evaluate(() => localStorage.getItem('persist:root'))) ?? '';
  await expect.poll(stored).toContain(patient.email);
  for (const value of ['1988-03-14', 'AB-', '7 Jail Road']) expect(await stored(), value).not.toContain(value);
  await page.reload();
  await expect(page.getByText('AB-')).toBeVisible();
  await expect(page.getByText('7 Jail Road, Lahore')).toBeVisible();
  for (const value of ['1988-03-14', 'AB-', '7 Jail Road']) expect(await stored(), value).not.toContain(value);
});

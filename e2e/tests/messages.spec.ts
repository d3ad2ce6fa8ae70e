import { type Browser, expect, test } from '@playwright/test';
import { approveViaApi, registerViaApi, signInViaApi, uniqueUser } from '../support/api.ts';
import { E2E } from '../support/env.ts';
import { signInWithSession, screenshot } from '../support/ui.ts';
import { expectAccessible } from '../support/accessibility.ts';

async function seedProvider() {
  const u = uniqueUser('healthProvider');
  await approveViaApi(await registerViaApi(u));
  return u;
}

async function seedPatient() {
  const u = uniqueUser('patient');
  await registerViaApi(u);
  return u;
}

/** A signed-in page of its own browser context, on /messages with the live stream up. */
async function openMessages(browser: Browser, u: ReturnType<typeof uniqueUser>, width: number) {
  const context = await browser.newContext({ viewport: { width, height: width > 800 ? 900 : 844 } });
  const page = await context.newPage();
  await signInWithSession(page, u.email, u.password);
  await expect(page).toHaveURL(u.role === 'patient' ? /\/view-images/ : /\/dashboard/, { timeout: 10_000 });
  await page.goto('/messages');
  await expect(page.getByRole('heading', { name: 'Messages', level: 1 })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  return page;
}

async function sendViaApi(from: ReturnType<typeof uniqueUser>, recipientId: string, ...contents: string[]) {
  const { token } = await signInViaApi(from.email, from.password);
  for (const content of contents) {
    const res = await fetch(`${E2E.baseUrl}/api/message/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ recipientId, content }),
    });
    expect(res.status).toBe(201);
  }
}

test('a provider and a patient chat live: each sees the other message appear without pressing refresh', async ({
  browser,
}) => {
  const doctor = await seedProvider();
  const patient = await seedPatient();
  const doc = await openMessages(browser, doctor, 1280);
  const pat = await openMessages(browser, patient, 1280);

  // Empty texts of a first visit.
  await expect(pat.getByText('No chats available')).toBeVisible();
  await expect(pat.getByText('Select a chat to start messaging')).toBeVisible();
  await screenshot(pat, 'messages-empty');
  await expectAccessible(pat);

  // The provider looks for the patient; a search matching nobody says so.
  await doc.getByRole('button', { name: 'Refresh chats' }).click();
  const picker = doc.getByRole('dialog', { name: 'Select User to Chat' });
  await picker.getByLabel('Search by name or email').fill('nobody-is-called-this');
  await expect(picker.getByText('No users found')).toBeVisible();
  await picker.getByLabel('Search by name or email').fill(patient.email);
  await picker.getByRole('button', { name: new RegExp(`${patient.firstname} ${patient.lastname}`) }).click();

  // 'Send Message' can open the empty thread first.
  const sendDialog = doc.getByRole('dialog', { name: 'Send Message' });
  await expect(sendDialog.getByText(`To: ${patient.firstname} ${patient.lastname}`)).toBeVisible();
  await sendDialog.getByRole('button', { name: 'Open chat' }).click();
  await expect(sendDialog).toBeHidden();
  const docLog = doc.getByRole('log', { name: `Messages with ${patient.firstname} ${patient.lastname}` });
  await expect(docLog.getByText('No messages yet')).toBeVisible();

  // …or send the first message from the dialog.
  await doc.getByRole('button', { name: 'Refresh chats' }).click();
  await picker.getByLabel('Search by name or email').fill(patient.email);
  await picker.getByRole('button', { name: new RegExp(`${patient.firstname} ${patient.lastname}`) }).click();
  await sendDialog.getByLabel('Message').fill('Hello, your scan results are ready.');
  await sendDialog.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(sendDialog).toBeHidden();
  await expect(docLog.getByText('Hello, your scan results are ready.')).toBeVisible();
  await expect(docLog.getByText('You', { exact: true })).toBeVisible();

  // The patient's list gets the new chat live, with an unread badge.
  const patList = pat.getByRole('list', { name: 'Chats' });
  const chat = patList.getByRole('button', { name: new RegExp(`${doctor.firstname} ${doctor.lastname}`) });
  await expect(chat).toContainText('Hello, your scan results are ready.');
  await expect(chat).toContainText('1 unread message');
  await chat.click();
  const patLog = pat.getByRole('log', { name: `Messages with ${doctor.firstname} ${doctor.lastname}` });
  await expect(patLog.getByText('Hello, your scan results are ready.')).toBeVisible();
  await expect(chat).not.toContainText('unread');
  // Opening the chat marked it read, and the provider sees that live.
  await expect(docLog.getByText('Read', { exact: true })).toBeVisible();

  // The patient answers with Enter; Shift+Enter would have been a new line.
  const input = pat.getByPlaceholder('Type a message...');
  await input.fill('Thank you, doctor.');
  await input.press('Shift+Enter');
  await input.pressSequentially('See you Monday.');
  await input.press('Enter');
  await expect(input).toHaveValue('');
  await expect(patLog.getByText(/Thank you, doctor\.\s+See you Monday\./)).toBeVisible();
  await expect(docLog.getByText(/Thank you, doctor\.\s+See you Monday\./)).toBeVisible();

  // And the provider's reply arrives in the patient's open thread, exactly once.
  await doc.getByPlaceholder('Type a message...').fill('Monday at 10 works.');
  await doc.getByRole('button', { name: 'Send message' }).click();
  await expect(patLog.getByText('Monday at 10 works.')).toHaveCount(1);
  await expect(pat.getByRole('list', { name: 'Chats' })).toContainText('Monday at 10 works.');

  await screenshot(doc, 'messages');
  await expectAccessible(doc);
  await expectAccessible(pat);
  await doc.context().close();
  await pat.context().close();
});

test('at 390 px the screen is one pane: the list, or the thread with a back arrow', async ({ browser }) => {
  const doctor = await seedProvider();
  const patient = await seedPatient();
  const { user } = await signInViaApi(patient.email, patient.password);
  await sendViaApi(doctor, user.id, 'Please bring your previous reports to the appointment.');

  const pat = await openMessages(browser, patient, 390);
  const list = pat.getByRole('list', { name: 'Chats' });
  await expect(list).toBeVisible();
  await expect(pat.getByText('Select a chat to start messaging')).toHaveCount(0);
  await screenshot(pat, 'messages');
  await expectAccessible(pat);

  await list.getByRole('button', { name: new RegExp(`${doctor.firstname} ${doctor.lastname}`) }).click();
  const log = pat.getByRole('log');
  await expect(log.getByText('Please bring your previous reports to the appointment.')).toBeVisible();
  await expect(list).toHaveCount(0);
  await expect(pat.getByPlaceholder('Type a message...')).toBeVisible();
  await screenshot(pat, 'messages-thread');
  await expectAccessible(pat);

  // Live in the single pane too.
  await sendViaApi(doctor, user.id, 'And your insurance card.');
  await expect(log.getByText('And your insurance card.')).toBeVisible();

  await pat.getByRole('button', { name: 'Back to chats' }).click();
  await expect(pat.getByRole('list', { name: 'Chats' })).toContainText('And your insurance card.');
  await expect(pat.getByRole('log')).toHaveCount(0);
  await pat.context().close();
});

test('scrolling to the top of a long thread loads older messages and keeps the view in place', async ({ browser }) => {
  const doctor = await seedProvider();
  const patient = await seedPatient();
  const { user } = await signInViaApi(patient.email, patient.password);
  await sendViaApi(doctor, user.id, ...Array.from({ length: 60 }, (_, i) => `Note ${i + 1}`));

  const pat = await openMessages(browser, patient, 1280);
  await pat.getByRole('list', { name: 'Chats' }).getByRole('button').first().click();
  const log = pat.getByRole('log');
  await expect(log.getByText('Note 60', { exact: true })).toBeInViewport();
  await expect(log.getByText('Note 10', { exact: true })).toHaveCount(0);

  await log.evaluate((el) => (el.scrollTop = 0));
  await expect(log.getByText('Note 1', { exact: true })).toBeAttached();
  // The messages that were at the top are still in view: the older page went above them.
  await expect(log.getByText('Note 11', { exact: true })).toBeInViewport();
  await expect(log.getByText('Note 1', { exact: true })).not.toBeInViewport();
  await expect(log.getByRole('button', { name: 'Load older messages' })).toHaveCount(0);
  await pat.context().close();
});

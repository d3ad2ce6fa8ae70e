import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ExternalShare, ExternalShareCreateBody, ExternalShareIssued } from '@medshare/contracts';
import { describe, expect, it, vi } from 'vitest';
import { api, externalShares, failure, ok } from '../../../testing/handlers';
import { bodiesOf, recordRequests, requestsTo, server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import { ExternalLinksSection } from './external-links-section';
import { ExternalShareDialog, type LinkTarget } from './external-share-dialog';

const IMAGE: LinkTarget = {
  kind: 'image',
  imageId: '11111111-1111-4111-8111-111111111111',
  caption: 'Knee X-ray',
  dicom: false,
};

const share: ExternalShare = {
  id: '44444444-4444-4444-8444-444444444444',
  sharedBy: { id: '55555555-5555-4555-8555-555555555555', firstname: 'Amina', lastname: 'Khan' },
  kind: 'image',
  imageId: IMAGE.kind === 'image' ? IMAGE.imageId : null,
  studyUid: null,
  caption: 'Knee X-ray',
  recipientEmail: 'sister@example.test',
  state: 'active',
  viewOnly: true,
  deidentified: false,
  imageCount: 1,
  views: 2,
  lastViewedAt: null,
  expiresAt: '2026-03-01T10:00:00.000Z',
  revokedAt: null,
  lockedAt: null,
  createdAt: '2026-02-26T10:00:00.000Z',
};

function renderDialog(onClose = vi.fn()) {
  renderWithProviders(<ExternalShareDialog target={IMAGE} locale="en-GB" timeZone="UTC" onClose={onClose} />);
}

describe('ExternalShareDialog', () => {
  it('caps the hours at the server’s maxHours, checks the e-mail, sends the choices and shows the code once', async () => {
    const seen = recordRequests();
    server.use(
      externalShares({ items: [], maxHours: 48 }),
      api.post<ExternalShareIssued, ExternalShareCreateBody>('/external-shares', () =>
        ok({ share, code: '493817' }, 'Link sent. Give the recipient the code by phone or message.', 201),
      ),
    );
    const user = userEvent.setup();
    renderDialog();

    const hours = screen.getByLabelText('Expires in (hours)');
    // Default 72 h, but never above the setting the list answered.
    expect(await screen.findByDisplayValue('48')).toBe(hours);
    expect(screen.getByText('At most 48 hours.')).toBeInTheDocument();
    await user.clear(hours);
    await user.type(hours, '49');
    expect(screen.getByText('Enter whole hours from 1 to 48.')).toBeInTheDocument();

    await user.type(screen.getByLabelText(/Recipient e-mail/), 'not-an-address');
    await user.click(screen.getByRole('button', { name: 'Send link' }));
    expect(screen.getByText('Enter a valid e-mail address.')).toBeInTheDocument();
    expect(requestsTo(seen, 'POST', '/external-shares')).toHaveLength(0);

    await user.clear(screen.getByLabelText(/Recipient e-mail/));
    await user.type(screen.getByLabelText(/Recipient e-mail/), 'Sister@Example.test');
    await user.clear(hours);
    await user.type(hours, '24');
    await user.click(screen.getByLabelText('View only (no download)'));
    // A photo cannot be de-identified: the choice is not offered.
    expect(screen.queryByLabelText('Share a de-identified copy')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Send link' }));

    const code = await screen.findByLabelText('Code for the recipient');
    expect(code).toHaveTextContent('493817');
    expect(await bodiesOf(seen, 'POST', '/external-shares')).toEqual([
      {
        imageId: IMAGE.kind === 'image' ? IMAGE.imageId : '',
        recipientEmail: 'Sister@Example.test',
        expiresInHours: 24,
        viewOnly: true,
        deidentify: false,
      },
    ]);
    expect(screen.getByText(/by phone or text message \(SMS\), not by e-mail/)).toBeInTheDocument();
    expect(screen.getByText('Access ends 1 Mar 2026, 10:00.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Copy code' }));
    expect(await navigator.clipboard.readText()).toBe('493817');
    expect(screen.getByRole('button', { name: 'Copied' })).toBeInTheDocument();
  });

  it('puts the server’s field refusal under its field, worded from the code', async () => {
    server.use(
      externalShares(),
      api.post('/external-shares', () =>
        failure(400, 'The link may last at most 72 hours', {
          code: 'validation_failed',
          errors: [{ field: 'expiresInHours', code: 'too_big', message: 'The link may last at most 72 hours' }],
        }),
      ),
    );
    const user = userEvent.setup();
    renderDialog();
    await user.type(screen.getByLabelText(/Recipient e-mail/), 'sister@example.test');
    await user.click(screen.getByRole('button', { name: 'Send link' }));
    expect(await screen.findByText('Expires in (hours) is too long.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Code for the recipient')).not.toBeInTheDocument();
  });
});

describe('ExternalLinksSection', () => {
  it('lists the links; Re-issue shows the new code once; Revoke asks first, then reads the list again', async () => {
    const seen = recordRequests();
    let state: ExternalShare['state'] = 'locked';
    server.use(
      api.get('/external-shares', () =>
        ok({
          items: [{ ...share, state, revokedAt: state === 'revoked' ? '2026-02-27T09:00:00.000Z' : null }],
          maxHours: 72,
        }),
      ),
      api.post<ExternalShareIssued>('/external-shares/:id/reissue', () => {
        state = 'active';
        return ok(
          { share: { ...share, state }, code: '120934' },
          'A new link was sent. Give the recipient the new code.',
        );
      }),
      api.delete<ExternalShare>('/external-shares/:id', () => {
        state = 'revoked';
        return ok({ ...share, state, revokedAt: '2026-02-27T09:00:00.000Z' }, 'Access revoked');
      }),
    );
    const user = userEvent.setup();
    renderWithProviders(<ExternalLinksSection locale="en-GB" timeZone="UTC" />);

    const row = await screen.findByRole('listitem', { name: 'Link to sister@example.test: Knee X-ray' });
    expect(within(row).getByText('Locked')).toBeInTheDocument();
    expect(within(row).getByText('Knee X-ray · Image · view only')).toBeInTheDocument();
    expect(within(row).getByText('Ends 1 Mar 2026, 10:00 · 2 views')).toBeInTheDocument();

    await user.click(within(row).getByRole('button', { name: 'Re-issue link to sister@example.test' }));
    expect(await screen.findByLabelText('Code for the recipient')).toHaveTextContent('120934');
    await user.click(screen.getByRole('button', { name: 'Done' }));
    expect(await within(row).findByText('Active')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.click(within(row).getByRole('button', { name: 'Revoke link to sister@example.test' }));
    const confirm = await screen.findByRole('dialog', { name: 'Revoke this link?' });
    expect(requestsTo(seen, 'DELETE', `/external-shares/${share.id}`)).toHaveLength(0);
    await user.click(within(confirm).getByRole('button', { name: 'Revoke' }));
    expect(await within(row).findByText('Revoked')).toBeInTheDocument();
    expect(requestsTo(seen, 'DELETE', `/external-shares/${share.id}`)).toHaveLength(1);
    // Ended links can be neither revoked nor re-issued.
    expect(within(row).queryByRole('button', { name: /Re-issue/ })).not.toBeInTheDocument();
    expect(within(row).getByText('Revoked 27 Feb 2026, 09:00 · 2 views')).toBeInTheDocument();
  });

  it("an administrator's view: every user's links with their sharer, Revoke on each, Re-issue only on their own", async () => {
    const adminId = '66666666-6666-4666-8666-666666666666';
    const theirs = { ...share, id: '77777777-7777-4777-8777-777777777777', recipientEmail: 'own@example.test' };
    const seen = recordRequests();
    server.use(
      api.get('/external-shares', ({ request }) =>
        new URL(request.url).searchParams.get('scope') === 'all'
          ? ok({
              items: [share, { ...theirs, sharedBy: { id: adminId, firstname: 'Sys', lastname: 'Admin' } }],
              maxHours: 72,
            })
          : ok({ items: [], maxHours: 72 }),
      ),
    );
    renderWithProviders(<ExternalLinksSection locale="en-GB" timeZone="UTC" everyone viewerId={adminId} />);

    const list = await screen.findByRole('list', { name: 'Links shared by everyone' });
    const other = within(list).getByRole('listitem', { name: 'Link to sister@example.test: Knee X-ray' });
    expect(within(other).getByText('Shared by Amina Khan')).toBeInTheDocument();
    expect(within(other).getByRole('button', { name: 'Revoke link to sister@example.test' })).toBeInTheDocument();
    expect(within(other).queryByRole('button', { name: /Re-issue/ })).not.toBeInTheDocument();
    const own = within(list).getByRole('listitem', { name: 'Link to own@example.test: Knee X-ray' });
    expect(within(own).getByText('Shared by you')).toBeInTheDocument();
    expect(within(own).getByRole('button', { name: 'Re-issue link to own@example.test' })).toBeInTheDocument();
    expect(requestsTo(seen, 'GET', '/external-shares').map((r) => new URL(r.url).search)).toEqual(['?scope=all']);
  });

  it('says why a link opens nothing or is paused, and offers only what still applies', async () => {
    const ended = { ...share, id: '88888888-8888-4888-8888-888888888888', recipientEmail: 'ended@example.test' };
    const paused = { ...share, id: '99999999-9999-4999-8999-999999999999', recipientEmail: 'paused@example.test' };
    server.use(
      api.get('/external-shares', () =>
        ok({
          items: [
            { ...ended, state: 'ended' },
            { ...paused, state: 'paused' },
          ],
          maxHours: 72,
        }),
      ),
    );
    renderWithProviders(<ExternalLinksSection locale="en-GB" timeZone="UTC" everyone viewerId={share.sharedBy.id} />);

    const list = await screen.findByRole('list', { name: 'Links shared by everyone' });
    const endedItem = within(list).getByRole('listitem', { name: 'Link to ended@example.test: Knee X-ray' });
    expect(within(endedItem).getByText('Opens nothing now')).toBeInTheDocument();
    expect(
      within(endedItem).getByText(/^Its images were deleted or are not the sharer’s to share now · Ends .* · 2 views$/),
    ).toBeInTheDocument();
    // It may open again (the record shared anew): it can still be revoked, not re-issued.
    expect(within(endedItem).getByRole('button', { name: 'Revoke link to ended@example.test' })).toBeInTheDocument();
    expect(within(endedItem).queryByRole('button', { name: /Re-issue/ })).not.toBeInTheDocument();
    const pausedItem = within(list).getByRole('listitem', { name: 'Link to paused@example.test: Knee X-ray' });
    expect(within(pausedItem).getByText('Paused')).toBeInTheDocument();
    expect(within(pausedItem).getByText(/^Paused: the sharer’s account is deactivated · Ends /)).toBeInTheDocument();
    expect(within(pausedItem).getByRole('button', { name: 'Revoke link to paused@example.test' })).toBeInTheDocument();
    expect(within(pausedItem).queryByRole('button', { name: /Re-issue/ })).not.toBeInTheDocument();
  });
});

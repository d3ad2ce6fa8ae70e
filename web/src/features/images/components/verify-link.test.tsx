import type { Image, PublicSettings, StudySummary } from '@medshare/contracts';
import { SharingMessages } from '@medshare/contracts/constants';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '../../../lib/notify';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, externalShares, ok, paged } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { pendingShare, verifiedShare } from '../testing-fixtures';
import { ViewImagesPage } from './view-images-page';

const LINKED = '66666666-6666-4666-8666-666666666666';

function stubList(images: Image[], totalPages = 1) {
  const page = () =>
    paged(images, { pageSize: 10, totalPages, totalItems: totalPages * 10, hasNextPage: totalPages > 1 });
  server.use(
    externalShares(),
    api.get<PublicSettings>('/appsetting/public', () =>
      ok({ displayLocale: 'en-GB', displayTimeZone: 'UTC', maxUploadMb: 10, maxImportFiles: 2000, maxImportMb: 2048 }),
    ),
    // No studies: these tests are about single files (study cards: view-images-studies.test.tsx).
    api.get<StudySummary[]>('/studies', () => paged([])),
    api.get<Image[]>('/upload/my-images', page),
    api.get<Image[]>('/upload/shared-images', page),
    // After the test the session ends before the page unmounts: a list without a role.
    api.get<Image[]>('/upload/images', page),
  );
}

function openLink(query: string) {
  store.dispatch(setUser({ user: makeUser({ role: 'patient' }), token: 'tok' }));
  return renderWithProviders(<ViewImagesPage aiPath={(id) => `/ai-analysis/${id}`} />, `/view-images${query}`);
}

describe('View images: the Verify link from a share mail', () => {
  afterEach(() => {
    store.dispatch(clearSession());
    vi.restoreAllMocks();
  });

  it('opens that image’s Verify dialog with the sharing id filled in, and drops the parameter', async () => {
    stubList([pendingShare({ caption: 'Knee MRI' })]);
    const { router } = openLink(`?verify=${LINKED}`);
    const dialog = await screen.findByRole('dialog', { name: 'Verify image' });
    expect(within(dialog).getByLabelText(/^Image sharing id/)).toHaveValue(LINKED);
    expect(within(dialog).getByText('Knee MRI')).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/^Verification code/)).toHaveValue('');
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('says so, without a dialog, when the link is not for any image shared with this account', async () => {
    const error = vi.spyOn(toast, 'error');
    stubList([pendingShare()]);
    const { router } = openLink('?verify=00000000-0000-4000-8000-000000000000');
    await waitFor(() =>
      expect(error).toHaveBeenCalledWith(
        expect.stringMatching(/^The image of this link is not among the images shared with you/),
        expect.anything(),
      ),
    );
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('refuses a malformed id with the same message', async () => {
    const error = vi.spyOn(toast, 'error');
    stubList([pendingShare()], 3);
    openLink('?verify=%3Cscript%3E');
    await waitFor(() => expect(error).toHaveBeenCalledTimes(1));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('lets the server decide when the image may be on another page: the dialog opens with the id only', async () => {
    stubList([pendingShare({ sharingId: '77777777-7777-4777-8777-777777777777' })], 3);
    openLink(`?verify=${LINKED}`);
    const dialog = await screen.findByRole('dialog', { name: 'Verify image' });
    expect(within(dialog).getByLabelText(/^Image sharing id/)).toHaveValue(LINKED);
    expect(within(dialog).queryByText(/^Image:/)).not.toBeInTheDocument();
  });

  it('tells a recipient whose image is open already, without a dialog', async () => {
    const info = vi.spyOn(toast, 'info');
    stubList([verifiedShare({ image_url: null, thumbnailUrl: null })]);
    openLink(`?verify=${LINKED}`);
    await waitFor(() =>
      expect(info).toHaveBeenCalledWith('This image is already verified: it is open below.', expect.anything()),
    );
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('tells a recipient whose share has expired, without a dialog', async () => {
    const error = vi.spyOn(toast, 'error');
    stubList([pendingShare({ accessState: 'expired' })]);
    openLink(`?verify=${LINKED}`);
    await waitFor(() => expect(error).toHaveBeenCalledWith(SharingMessages.expired, expect.anything()));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

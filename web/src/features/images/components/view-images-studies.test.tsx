import type {
  Image,
  PublicSettings,
  RoleName,
  ShareVerifyBody,
  ShareVerifyResponseData,
  StudyShare,
  StudyShareBody,
  StudySummary,
  UserListItem,
} from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { TEST_PUBLIC_SETTINGS, api, externalShares, ok, paged } from '../../../testing/handlers';
import { bodiesOf, recordRequests, requestsTo, server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { PROVIDER, STUDY_SHARE_ID, STUDY_UID, makeStudy, pendingStudy } from '../testing-fixtures';
import { ViewImagesPage } from './view-images-page';

const colleague: UserListItem = {
  id: '22222222-2222-4222-8222-222222222222',
  firstname: 'Sara',
  lastname: 'Ali',
  email: 'sara@example.test',
  role: 'healthProvider',
  gender: null,
};

/** The lists of View Images: `studies` as the study cards, no single files. */
function stub(studies: () => StudySummary[]) {
  server.use(
    externalShares(),
    api.get<PublicSettings>('/appsetting/public', () => ok(TEST_PUBLIC_SETTINGS)),
    api.get<StudySummary[]>('/studies', () => paged(studies())),
    api.get<Image[]>('/upload/my-images', () => paged([])),
    api.get<Image[]>('/upload/shared-images', () => paged([])),
    api.get<Image[]>('/upload/images', () => paged([])),
  );
  return recordRequests();
}

function renderAs(role: RoleName, path = '/view-images') {
  store.dispatch(setUser({ user: makeUser({ id: PROVIDER.id, role }), token: 'tok' }));
  return renderWithProviders(<ViewImagesPage aiPath={(id) => `/ai-analysis/${id}`} />, path);
}

afterEach(() => {
  store.dispatch(clearSession());
});

describe('View images: DICOM studies', () => {
  it('shows a provider’s study as one card (modality, date, description, counts) that opens the study page, and asks for single files only', async () => {
    const requests = stub(() => [makeStudy()]);
    renderAs('healthProvider');
    const studies = await screen.findByRole('region', { name: 'DICOM Studies' });
    const card = within(studies).getByRole('article', { name: 'Chest CT March' });
    expect(card).toHaveTextContent('CT · 19 January 2004');
    expect(card).toHaveTextContent('CT CHEST WITH CONTRAST');
    expect(card).toHaveTextContent('2 series · 3 images');
    expect(within(card).getByRole('link', { name: 'Open study Chest CT March' })).toHaveAttribute(
      'href',
      `/studies/${STUDY_UID}`,
    );
    expect(within(card).getByRole('button', { name: 'Share' })).toBeInTheDocument();
    // The single-file sections no longer claim there is nothing at all.
    expect(
      within(screen.getByRole('region', { name: 'Uploaded Images' })).getByText('No single images uploaded.'),
    ).toBeInTheDocument();
    const lists = requestsTo(requests, 'GET', '/upload/my-images');
    expect(new URL(lists[0]!.url).searchParams.get('kind')).toBe('files');
  });

  it('hides the section from someone without studies', async () => {
    stub(() => []);
    renderAs('patient');
    expect(await screen.findByText('Nothing has been shared with you yet.')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'DICOM Studies' })).not.toBeInTheDocument();
  });

  it('lets a patient verify a pending study with its one sharing id and code, then reads the studies again', async () => {
    let verified = false;
    const requests = stub(() => [
      verified ? makeStudy({ isShared: true, accessState: 'verified', sharingId: STUDY_SHARE_ID }) : pendingStudy(),
    ]);
    server.use(
      api.post<ShareVerifyResponseData, ShareVerifyBody>('/sharing/verify', () => {
        verified = true;
        return ok(
          {
            sharingId: STUDY_SHARE_ID,
            imageId: '55555555-5555-4555-8555-555555555555',
            studyUid: STUDY_UID,
            instanceCount: 3,
            verifiedAt: '2026-11-22T06:00:00.000Z',
            expiresAt: null,
          },
          'Study verified successfully',
        );
      }),
    );
    const user = userEvent.setup();
    renderAs('patient');
    const card = await screen.findByRole('article', { name: 'Chest CT March' });
    expect(card).toHaveTextContent('Study not Verified');
    expect(card).not.toHaveTextContent('CT CHEST WITH CONTRAST');
    expect(within(card).queryByRole('link', { name: /Open study/ })).not.toBeInTheDocument();
    await user.click(within(card).getByRole('button', { name: 'Verify' }));
    const dialog = await screen.findByRole('dialog', { name: 'Verify study' });
    expect(within(dialog).getByLabelText(/^Study sharing id/)).toHaveValue(STUDY_SHARE_ID);
    await user.type(within(dialog).getByLabelText(/^Verification code/), '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Verify' }));
    expect(await bodiesOf(requests, 'POST', '/sharing/verify')).toEqual([
      { sharingRequestId: STUDY_SHARE_ID, verificationCode: '123456' },
    ]);
    expect(
      await within(await screen.findByRole('region', { name: 'DICOM Studies' })).findByRole('link', {
        name: 'Open study Chest CT March',
      }),
    ).toBeInTheDocument();
    expect(requestsTo(requests, 'GET', '/studies').length).toBeGreaterThan(1);
  });

  it('opens the study’s Verify dialog from a share mail’s link that names the study share', async () => {
    stub(() => [pendingStudy()]);
    const { router } = renderAs('patient', `/view-images?verify=${STUDY_SHARE_ID}`);
    const dialog = await screen.findByRole('dialog', { name: 'Verify study' });
    expect(within(dialog).getByLabelText(/^Study sharing id/)).toHaveValue(STUDY_SHARE_ID);
    expect(within(dialog).getByText('Chest CT March')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('shares a study from its card: one request for the whole study, de-identified when asked', async () => {
    const requests = stub(() => [makeStudy()]);
    const created: StudyShare = {
      id: STUDY_SHARE_ID,
      studyUid: STUDY_UID,
      recipient: { id: colleague.id, firstname: 'Sara', lastname: 'Ali', role: 'healthProvider' },
      createdBy: { id: PROVIDER.id, firstname: 'Bilal', lastname: 'Khan' },
      state: 'pending',
      deidentified: true,
      isPatientShare: false,
      seriesCount: 2,
      instanceCount: 3,
      expiresAt: '2026-11-23T05:05:00.000Z',
      verifiedAt: null,
      revokedAt: null,
      createdAt: '2026-11-22T05:05:00.000Z',
    };
    server.use(
      api.get<UserListItem[]>('/users', () => paged([colleague])),
      api.get<StudyShare[]>('/studies/:studyUid/shares', () => ok([])),
      api.post<StudyShare, StudyShareBody>('/studies/:studyUid/share', () =>
        ok(created, 'Study shared successfully', 201),
      ),
    );
    const user = userEvent.setup();
    renderAs('healthProvider');
    const card = await screen.findByRole('article', { name: 'Chest CT March' });
    await user.click(within(card).getByRole('button', { name: 'Share' }));
    const dialog = await screen.findByRole('dialog', { name: 'Share study “Chest CT March”' });
    expect(dialog).toHaveTextContent('2 series · 3 images: one sharing id and one code open them all.');
    expect(await within(dialog).findByText('Not shared with anyone yet.')).toBeInTheDocument();
    await user.click(await within(dialog).findByRole('button', { name: /Sara Ali/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: 'Share a de-identified copy' }));
    await user.click(within(dialog).getByRole('button', { name: 'Share study' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    const shares = requestsTo(requests, 'POST', `/studies/${STUDY_UID}/share`);
    expect(shares).toHaveLength(1);
    expect(await shares[0]!.clone().json()).toEqual({ createdfor: colleague.id, expiresInHours: 24, deidentify: true });
  });
});

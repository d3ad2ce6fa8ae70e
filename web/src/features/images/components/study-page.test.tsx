import type { PublicSettings, StudyDetail, StudyShare } from '@medshare/contracts';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { TEST_PUBLIC_SETTINGS, api, failure, ok, paged } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { PATIENT, PROVIDER, STUDY_SHARE_ID, STUDY_UID, makeStudyDetail } from '../testing-fixtures';
import { StudyPage } from './study-page';

function renderAs(id: string, role: 'patient' | 'healthProvider', detail: () => Response) {
  server.use(
    api.get<PublicSettings>('/appsetting/public', () => ok(TEST_PUBLIC_SETTINGS)),
    api.get<StudyDetail>('/studies/:studyUid', detail),
  );
  store.dispatch(setUser({ user: makeUser({ id, role }), token: 'tok' }));
  return renderWithProviders(<StudyPage studyUid={STUDY_UID} />, `/studies/${STUDY_UID}`);
}

afterEach(() => {
  store.dispatch(clearSession());
});

describe('The study page', () => {
  it('names the study and lists its series, each linking to the stack viewer of that series', async () => {
    renderAs(PROVIDER.id, 'healthProvider', () => ok(makeStudyDetail()));
    expect(await screen.findByRole('heading', { level: 1, name: 'Chest CT March' })).toBeInTheDocument();
    expect(screen.getByText('CT · 19 January 2004')).toBeInTheDocument();
    expect(screen.getByText('CT CHEST WITH CONTRAST')).toBeInTheDocument();
    expect(screen.getByText('2 series · 3 images')).toBeInTheDocument();
    const series = within(screen.getByRole('list', { name: 'Series' })).getAllByRole('link');
    expect(series.map((link) => link.getAttribute('aria-label'))).toEqual([
      'Open Series 1: Axial 5 mm (2 images)',
      'Open Series 2: Coronal (1 image)',
    ]);
    expect(series[0]).toHaveAttribute('href', `/studies/${STUDY_UID}/series/2.25.101`);
    expect(series[1]).toHaveAttribute('href', `/studies/${STUDY_UID}/series/2.25.102`);
    expect(screen.getByRole('link', { name: 'View Images' })).toHaveAttribute('href', '/view-images');
  });

  it('offers Share study to its uploader, with the study’s shares in the dialog', async () => {
    const share: StudyShare = {
      id: STUDY_SHARE_ID,
      studyUid: STUDY_UID,
      recipient: { id: PATIENT.id, firstname: 'Amina', lastname: 'Khan', role: 'patient' },
      createdBy: { id: PROVIDER.id, firstname: 'Bilal', lastname: 'Khan' },
      state: 'verified',
      deidentified: false,
      isPatientShare: true,
      seriesCount: 2,
      instanceCount: 3,
      expiresAt: null,
      verifiedAt: '2026-11-22T06:00:00.000Z',
      revokedAt: null,
      createdAt: '2026-11-22T05:05:00.000Z',
    };
    server.use(
      api.get<StudyShare[]>('/studies/:studyUid/shares', () => ok([share])),
      api.get('/users', () => paged([])),
    );
    const user = userEvent.setup();
    renderAs(PROVIDER.id, 'healthProvider', () => ok(makeStudyDetail()));
    await user.click(await screen.findByRole('button', { name: 'Share study' }));
    const dialog = await screen.findByRole('dialog', { name: 'Share study “Chest CT March”' });
    const list = await within(dialog).findByRole('list', { name: 'Shares of this study' });
    expect(list).toHaveTextContent('Amina Khan');
    expect(list).toHaveTextContent('3 images · does not expire');
    expect(within(list).getByRole('button', { name: 'Revoke study share with Amina Khan' })).toBeInTheDocument();
  });

  it('gives a recipient no Share study', async () => {
    renderAs(PATIENT.id, 'patient', () =>
      ok(makeStudyDetail({ isShared: true, accessState: 'verified', sharingId: STUDY_SHARE_ID })),
    );
    expect(await screen.findByRole('heading', { level: 1, name: 'Chest CT March' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Share study' })).not.toBeInTheDocument();
  });

  it('explains a study the viewer may not open (404) instead of showing an empty page', async () => {
    renderAs(PATIENT.id, 'patient', () => failure(404, 'Study not found', { code: 'not_found' }));
    expect(await screen.findByText(/This study is not among the studies you may open/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'View Images' })).toHaveAttribute('href', '/view-images');
  });
});

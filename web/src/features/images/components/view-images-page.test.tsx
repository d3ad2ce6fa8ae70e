import type { Image, PublicSettings, RoleName, StudySummary } from '@medshare/contracts';
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, externalShares, ok, paged } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { makeImage } from '../testing-fixtures';
import { ViewImagesPage } from './view-images-page';

/** Answers the provider's and the patient's image list with one page of `images` out of `totalPages`. */
function stubList(images: Image[], totalPages = images.length > 0 ? 1 : 0) {
  const page = () =>
    paged(images, {
      pageSize: 10,
      totalPages,
      totalItems: totalPages === 0 ? 0 : totalPages * 10,
      hasNextPage: totalPages > 1,
      totalItemsCapped: false,
    });
  server.use(
    externalShares(),
    api.get<PublicSettings>('/appsetting/public', () =>
      ok({ displayLocale: 'en-GB', displayTimeZone: 'UTC', maxUploadMb: 10, maxImportFiles: 2000, maxImportMb: 2048 }),
    ),
    // No studies: these tests are about single files (study cards: view-images-studies.test.tsx).
    api.get<StudySummary[]>('/studies', () => paged([])),
    api.get<Image[]>('/upload/my-images', page),
    api.get<Image[]>('/upload/shared-images', page),
  );
}

function renderAs(role: RoleName) {
  store.dispatch(setUser({ user: makeUser({ role }), token: 'tok' }));
  return renderWithProviders(<ViewImagesPage aiPath={(id) => `/ai-analysis/${id}`} />);
}

const section = (name: string) => screen.getByRole('region', { name });

describe('View images: empty states', () => {
  beforeEach(() => {
    store.dispatch(clearSession());
  });

  it('a new patient gets one message that says what comes next, and no pager', async () => {
    stubList([]);
    renderAs('patient');
    expect(await screen.findByText('Nothing has been shared with you yet.')).toBeInTheDocument();
    expect(within(section('Shared Images')).getByText(/sharing id and a code/)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Uploaded Images' })).not.toBeInTheDocument();
    expect(screen.queryByText('No images yet.')).not.toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Image pages' })).not.toBeInTheDocument();
  });

  it('a provider without images is pointed at Upload Image in Uploaded Images', async () => {
    stubList([]);
    renderAs('healthProvider');
    const uploaded = await screen.findByRole('region', { name: 'Uploaded Images' });
    expect(await within(uploaded).findByText('You have not uploaded any images yet.')).toBeInTheDocument();
    expect(within(uploaded).getByRole('link', { name: 'Upload Image' })).toHaveAttribute('href', '/upload');
    expect(within(section('Shared Images')).getByText('Nothing has been shared with you yet.')).toBeInTheDocument();
  });

  it('with images on other pages an empty section does not claim there are none', async () => {
    stubList([makeImage()], 3);
    renderAs('healthProvider');
    expect(await screen.findByRole('article', { name: 'Chest X-ray' })).toBeInTheDocument();
    const shared = section('Shared Images');
    expect(within(shared).getByText('No shared images on this page.')).toBeInTheDocument();
    expect(within(shared).queryByText('Nothing has been shared with you yet.')).not.toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Image pages' })).toHaveTextContent('1 / 3');
  });
});

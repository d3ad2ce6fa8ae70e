import type { Image, PublicSettings, StudySummary } from '@medshare/contracts';
import { screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, externalShares, ok, paged } from '../../../testing/handlers';
import { recordRequests, requestsTo, server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { ViewImagesPage } from '../components/view-images-page';
import { PROVIDER, makeImage } from '../testing-fixtures';
import { prefetchViewImages } from './prefetch-view-images';

const ids = [1, 2, 3, 4, 5].map((n) => `55555555-5555-4555-8555-55555555555${n}`);
const images: Image[] = ids.map((id, i) =>
  makeImage({
    id,
    caption: `X-ray ${i + 1}`,
    thumbnailStatus: 'ready',
    thumbnailUrl: `/api/images/${id}/thumbnail`,
    image_url: `/api/images/${id}/content`,
  }),
);

function stub() {
  server.use(
    externalShares(),
    api.get<PublicSettings>('/appsetting/public', () =>
      ok({ displayLocale: 'en-GB', displayTimeZone: 'UTC', maxUploadMb: 10, maxImportFiles: 2000, maxImportMb: 2048 }),
    ),
    api.get<StudySummary[]>('/studies', () => paged([])),
    api.get<Image[]>('/upload/my-images', () => paged(images, { pageSize: 10, totalPages: 1, totalItems: 5 })),
    http.get('/api/images/:id/thumbnail', () =>
      HttpResponse.arrayBuffer(new Uint8Array([0xff, 0xd8, 0xff]).buffer, {
        headers: { 'content-type': 'image/jpeg' },
      }),
    ),
  );
}

const page = () => <ViewImagesPage aiPath={(id) => `/ai-analysis/${id}`} />;

describe('View Images read ahead at start-up (prefetchViewImages)', () => {
  beforeEach(() => {
    store.dispatch(clearSession());
  });

  it('reads page 1 and the first previews before the page mounts; that opening asks for neither again, the next one reads the list again', async () => {
    const user = makeUser({ id: PROVIDER.id, role: 'healthProvider' });
    store.dispatch(setUser({ user, token: 'tok' }));
    stub();
    const seen = recordRequests();
    const thumbnails = (id: string) => requestsTo(seen, 'GET', `/images/${id}/thumbnail`);

    prefetchViewImages(store.dispatch, user);
    // The first four cards' previews, with the session's bearer header; the fifth waits for its card.
    await waitFor(() => expect(ids.slice(0, 4).every((id) => thumbnails(id).length === 1)).toBe(true));
    expect(thumbnails(ids[0]!)[0]!.headers.get('authorization')).toBe('Bearer tok');
    expect(thumbnails(ids[4]!)).toHaveLength(0);

    const first = renderWithProviders(page());
    await waitFor(() => expect(screen.getAllByRole('img', { name: /^Preview of X-ray/ })).toHaveLength(5));
    expect(requestsTo(seen, 'GET', '/upload/my-images')).toHaveLength(1);
    for (const id of ids) expect(thumbnails(id)).toHaveLength(1);
    first.unmount();

    // Opening the page again (others share, verify and revoke meanwhile) reads the list again.
    renderWithProviders(page());
    await waitFor(() => expect(requestsTo(seen, 'GET', '/upload/my-images')).toHaveLength(2));
  });
});

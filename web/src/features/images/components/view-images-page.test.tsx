import type { Image, PublicSettings, RoleName, StudySummary } from '@medshare/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import { Profiler } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearSession, setUser } from '../../../lib/session';
import { store } from '../../../lib/store';
import { api, externalShares, ok, paged } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { makeUser, renderWithProviders } from '../../../testing/test-utils';
import { imageListOpening } from '../api/list-images';
import { studyListOpening } from '../api/list-studies';
import { FIRST_CARDS } from '../hooks/use-reveal-budget';
import { PROVIDER, makeImage, makeStudy, pendingShare } from '../testing-fixtures';
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

describe('View images: cards drawn in steps (useRevealBudget)', () => {
  beforeEach(() => {
    store.dispatch(clearSession());
  });

  // Four of the provider's own, then three shared with them: the Shared section waits for the fourth.
  const sevenImages = Array.from({ length: 7 }, (_, i) =>
    i < 4
      ? makeImage({ id: `55555555-5555-4555-8555-55555555555${i}`, caption: `X-ray ${i + 1}` })
      : pendingShare({
          id: `55555555-5555-4555-8555-55555555555${i}`,
          caption: `X-ray ${i + 1}`,
          sharingId: `66666666-6666-4666-8666-66666666666${i}`,
        }),
  );

  /** What the page showed after each of its commits: cards, and whether the parts below them were there. */
  function recordFrames() {
    const frames: { cards: string[]; shared: boolean; pager: boolean; saysEmpty: boolean }[] = [];
    const onRender = () =>
      frames.push({
        cards: [...document.querySelectorAll('article h3')].map((h) => h.textContent ?? ''),
        shared: document.getElementById('section-shared-images') !== null,
        pager: document.querySelector('nav[aria-label="Image pages"]') !== null,
        saysEmpty: /Nothing has been shared|No shared images on this page/.test(document.body.textContent ?? ''),
      });
    return { frames, onRender };
  }

  it('with the list already read, draws the first cards, then the rest in order, then what follows them', async () => {
    const user = makeUser({ id: PROVIDER.id, role: 'healthProvider' });
    store.dispatch(setUser({ user, token: 'tok' }));
    stubList(sevenImages);
    // The read start-up makes (prefetchViewImages): the page mounts with the answer in the cache.
    const { prefetchViewImages } = await import('../api/prefetch-view-images');
    prefetchViewImages(store.dispatch, user);
    expect(imageListOpening.has('healthProvider')).toBe(true);
    expect(studyListOpening.has(user.id)).toBe(true);
    const answered = (endpoint: string) =>
      Object.values(store.getState().api.queries).some((q) => q?.endpointName === endpoint && q.status === 'fulfilled');
    await waitFor(() => expect(answered('listImages') && answered('listStudies')).toBe(true));

    // A Profiler sees every commit, also those React runs one after another inside act().
    const record = recordFrames();
    renderWithProviders(
      <Profiler id="view-images" onRender={record.onRender}>
        <ViewImagesPage aiPath={(id) => `/ai-analysis/${id}`} />
      </Profiler>,
    );
    await screen.findByRole('navigation', { name: 'Image pages' });

    const all = sevenImages.map((image) => image.caption);
    const drawn = record.frames.filter((f) => f.cards.length > 0);
    // The first frame with cards has FIRST_CARDS of them, each later one as many or more, in order.
    expect(drawn[0]!.cards).toEqual(all.slice(0, FIRST_CARDS));
    for (const frame of drawn) expect(frame.cards).toEqual(all.slice(0, frame.cards.length));
    for (let i = 1; i < drawn.length; i++)
      expect(drawn[i]!.cards.length).toBeGreaterThanOrEqual(drawn[i - 1]!.cards.length);
    // Nothing below the cards before the last card: nothing already drawn is pushed down.
    for (const frame of drawn) if (frame.shared || frame.pager) expect(frame.cards.length).toBeGreaterThan(4);
    for (const frame of drawn) if (frame.pager) expect(frame.cards).toEqual(all);
    // The Shared section never claims to be empty while its cards wait for their step.
    expect(drawn.some((frame) => frame.saysEmpty)).toBe(false);
    expect(new Set(drawn.map((f) => f.cards.length)).size).toBeGreaterThan(2);
    expect(screen.getAllByRole('article')).toHaveLength(7);
    expect(section('Shared Images')).toBeInTheDocument();
  });

  it('draws no image section before the image list has answered, so that the Uploaded cards never push the Shared section down', async () => {
    store.dispatch(setUser({ user: makeUser({ id: PROVIDER.id, role: 'healthProvider' }), token: 'tok' }));
    stubList(sevenImages);
    let answerImages = () => {};
    const imagesHeld = new Promise<void>((resolve) => (answerImages = resolve));
    let studyReads = 0;
    server.use(
      api.get<StudySummary[]>('/studies', () => {
        studyReads += 1;
        return paged([]);
      }),
      api.get<Image[]>('/upload/my-images', async () => {
        await imagesHeld;
        return paged(sevenImages);
      }),
    );
    renderAs('healthProvider');
    // The (empty) study list has answered; the image list has not: neither section is drawn.
    await waitFor(() => expect(studyReads).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('region', { name: 'Uploaded Images' })).toBeNull();
    expect(screen.queryByRole('region', { name: 'Shared Images' })).toBeNull();
    answerImages();
    expect(await screen.findByRole('region', { name: 'Shared Images' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(7));
  });

  it('draws no image card before the study list has answered, so that the studies section never pushes cards down', async () => {
    store.dispatch(setUser({ user: makeUser({ id: PROVIDER.id, role: 'healthProvider' }), token: 'tok' }));
    stubList(sevenImages);
    let answerStudies = () => {};
    const studiesHeld = new Promise<void>((resolve) => (answerStudies = resolve));
    let imageReads = 0;
    server.use(
      api.get<StudySummary[]>('/studies', async () => {
        await studiesHeld;
        return paged([makeStudy()]);
      }),
      api.get<Image[]>('/upload/my-images', () => {
        imageReads += 1;
        return paged(sevenImages);
      }),
    );
    const record = recordFrames();
    renderWithProviders(
      <Profiler id="view-images" onRender={record.onRender}>
        <ViewImagesPage aiPath={(id) => `/ai-analysis/${id}`} />
      </Profiler>,
    );
    await waitFor(() => expect(imageReads).toBe(1));
    await waitFor(() =>
      expect(
        Object.values(store.getState().api.queries).some(
          (q) => q?.endpointName === 'listImages' && q.status === 'fulfilled',
        ),
      ).toBe(true),
    );
    // The image list is in; the study list is not: nothing below the studies' place yet.
    expect(screen.queryAllByRole('article')).toHaveLength(0);
    expect(screen.queryByRole('region', { name: 'Uploaded Images' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Shared Images' })).not.toBeInTheDocument();

    answerStudies();
    const studies = await screen.findByRole('region', { name: 'DICOM Studies' });
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(8));
    // The studies section is above the image sections, and no frame drew image cards without it.
    const uploaded = section('Uploaded Images');
    expect(studies.compareDocumentPosition(uploaded) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    for (const frame of record.frames)
      if (frame.cards.some((title) => title.startsWith('X-ray'))) expect(frame.cards[0]).not.toMatch(/^X-ray/);
  });
});

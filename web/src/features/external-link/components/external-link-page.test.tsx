import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ExternalShareMessages, type ExternalLinkStatus, type ExternalView } from '@medshare/contracts';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, failure, ok, publicSettings } from '../../../testing/handlers';
import { bodiesOf, recordRequests, requestsTo, server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import { ExternalLinkPage } from './external-link-page';
import type { LinkDicomViewerProps } from './share-viewer';

const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';
const ENDS = '2026-03-01T10:00:00.000Z';
const ids = [
  '11111111-1111-4111-8111-111111111111',
  '22222222-2222-4222-8222-222222222222',
  '33333333-3333-4333-8333-333333333333',
];
const picture = (id: string) => ({ id, contentType: 'image/jpeg', dicom: null, hasThumbnail: true });

function makeView(overrides: Partial<ExternalView> = {}): ExternalView {
  return {
    kind: 'image',
    title: 'Knee X-ray',
    sharedBy: 'Bilal Khan',
    viewOnly: true,
    deidentified: false,
    expiresAt: ENDS,
    images: [picture(ids[0]!)],
    ...overrides,
  };
}

function linkAnswers(status: ExternalLinkStatus['state'], view = makeView()) {
  server.use(
    publicSettings(),
    api.post<ExternalLinkStatus>('/external/link', () => ok({ state: status, expiresAt: ENDS })),
    api.post<ExternalView>('/external/session', async ({ request }) => {
      const body = (await request.json()) as { code: string };
      return body.code === '123456'
        ? ok(view)
        : failure(400, 'That code is not right.', {
            errors: [{ field: 'code', code: 'invalid_code', message: 'That code is not right.' }],
          });
    }),
    http.get('/api/external/images/:id/content', () =>
      HttpResponse.arrayBuffer(new Uint8Array([1, 2, 3]).buffer, { headers: { 'Content-Type': 'image/jpeg' } }),
    ),
  );
}

/** Pastes the code into the digit boxes, as a recipient copying it from a message would. */
async function enterDigits(code: string) {
  fireEvent.paste(screen.getByLabelText('Digit 1 of 6'), { clipboardData: { getData: () => code } });
  await waitFor(() => expect(screen.getByLabelText('Digit 6 of 6')).toHaveValue(code.at(-1)));
}

/** Opens the page the way the mail's link does: `/x#<token>`. */
function openLink(hash = `#${TOKEN}`) {
  window.history.replaceState(null, '', `/x${hash}`);
  return renderWithProviders(<ExternalLinkPage />, '/x');
}

beforeEach(() => {
  sessionStorage.clear();
  vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:shared'), revokeObjectURL: vi.fn() }));
});
afterEach(() => {
  window.history.replaceState(null, '', '/');
});

describe('Share link page', () => {
  it('says plainly when the address holds no link, and asks the server nothing', async () => {
    const seen = recordRequests();
    server.use(publicSettings());
    openLink('#not-a-token');
    expect(await screen.findByRole('heading', { name: 'This link does not open anything' })).toBeInTheDocument();
    expect(requestsTo(seen, 'POST', '/external/link')).toHaveLength(0);
    expect(window.location.hash).toBe('');
  });

  it.each([
    ['revoked', 'Access has ended', ExternalShareMessages.revokedLink],
    ['expired', 'This link has expired', 'Ask the person who shared it for a new link.'],
    ['locked', 'This link is locked', 'Too many wrong codes: this link is locked. Ask the sharer for a new link.'],
  ] as const)('a %s link gets its own page and no code box', async (state, title, text) => {
    linkAnswers(state);
    openLink();
    expect(await screen.findByRole('heading', { name: title })).toBeInTheDocument();
    expect(screen.getByText(text)).toBeInTheDocument();
    expect(screen.queryByLabelText('Digit 1 of 6')).not.toBeInTheDocument();
  });

  it("Close forgets the share on this device: the cookie, the tab's link and the pictures held", async () => {
    const seen = recordRequests();
    linkAnswers('active');
    server.use(api.delete<null>('/external/session', () => ok(null)));
    const user = userEvent.setup();
    openLink();
    await screen.findByRole('heading', { name: 'Enter the code' });
    expect(screen.queryByRole('button', { name: 'Close' })).not.toBeInTheDocument();
    await enterDigits('123456');
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(await screen.findByRole('img', { name: 'Knee X-ray' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(await screen.findByRole('heading', { name: 'Closed on this device' })).toBeInTheDocument();
    expect(screen.queryByRole('img', { name: 'Knee X-ray' })).not.toBeInTheDocument();
    expect(screen.queryByTestId('access-ends')).not.toBeInTheDocument();
    await waitFor(() => expect(requestsTo(seen, 'DELETE', '/external/session')).toHaveLength(1));
    expect(sessionStorage.getItem('medshare.externalLink.token')).toBeNull();
    expect(sessionStorage.getItem('medshare.externalLink.opened')).toBeNull();
    await waitFor(() => expect(URL.revokeObjectURL).toHaveBeenCalledWith('blob:shared'));
  });

  it('Close that does not reach the server says so and keeps the share on screen, to try again', async () => {
    linkAnswers('active');
    let reachable = false;
    server.use(api.delete<null>('/external/session', () => (reachable ? ok(null) : HttpResponse.error())));
    const user = userEvent.setup();
    openLink();
    await screen.findByRole('heading', { name: 'Enter the code' });
    await enterDigits('123456');
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(await screen.findByRole('img', { name: 'Knee X-ray' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(await screen.findByText(/This browser could not be cleared/)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Knee X-ray' })).toBeInTheDocument();
    expect(sessionStorage.getItem('medshare.externalLink.token')).toBe(TOKEN);
    reachable = true;
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(await screen.findByRole('heading', { name: 'Closed on this device' })).toBeInTheDocument();
  });

  it('an unknown link (404) says it opens nothing', async () => {
    server.use(
      publicSettings(),
      api.post('/external/link', () =>
        failure(404, 'This link is not valid. Check that you opened the whole link from the mail.'),
      ),
    );
    openLink();
    expect(await screen.findByRole('heading', { name: 'This link does not open anything' })).toBeInTheDocument();
  });

  it('takes the token off the address into the tab, sends it only in a body, says a wrong code, opens with the right one', async () => {
    const seen = recordRequests();
    linkAnswers('active');
    const user = userEvent.setup();
    openLink();

    expect(await screen.findByRole('heading', { name: 'Enter the code' })).toBeInTheDocument();
    expect(window.location.hash).toBe('');
    expect(window.location.href).not.toContain(TOKEN);
    expect(sessionStorage.getItem('medshare.externalLink.token')).toBe(TOKEN);
    expect(screen.getByText('Access ends 1 Mar 2026, 10:00')).toBeInTheDocument();

    await enterDigits('654321');
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(await screen.findByText('That code is not right.')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Knee X-ray' })).not.toBeInTheDocument();

    await enterDigits('123456');
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(await screen.findByRole('heading', { name: 'Knee X-ray' })).toBeInTheDocument();
    expect(await screen.findByRole('img', { name: 'Knee X-ray' })).toHaveAttribute('src', 'blob:shared');
    expect(screen.getByText('Access ends 1 Mar 2026, 10:00')).toBeInTheDocument();
    // View only: no Download.
    expect(screen.queryByRole('button', { name: 'Download' })).not.toBeInTheDocument();
    expect(screen.getByText('This share is view only: downloads are off.')).toBeInTheDocument();

    expect(await bodiesOf(seen, 'POST', '/external/link')).toEqual([{ token: TOKEN }]);
    expect(await bodiesOf(seen, 'POST', '/external/session')).toEqual([
      { token: TOKEN, code: '654321' },
      { token: TOKEN, code: '123456' },
    ]);
    for (const request of seen) expect(request.url).not.toContain(TOKEN);
    // Never a session's bearer header on a link's calls.
    for (const request of seen) expect(request.headers.get('authorization')).toBeNull();
  });

  it('steps through a study with buttons and arrow keys; Download when the share allows it', async () => {
    linkAnswers('active', makeView({ kind: 'study', title: 'CT chest', viewOnly: false, images: ids.map(picture) }));
    const user = userEvent.setup();
    openLink();
    await screen.findByRole('heading', { name: 'Enter the code' });
    await enterDigits('123456');
    await user.click(screen.getByRole('button', { name: 'Open' }));

    expect(await screen.findByText('1 / 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(screen.getByText('2 / 3')).toBeInTheDocument();
    await user.keyboard('{ArrowRight}');
    expect(screen.getByText('3 / 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    await user.keyboard('{Home}');
    expect(screen.getByText('1 / 3')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download' })).toBeInTheDocument();
  });

  it('a DICOM study opens in the viewer the app passes in: its images as link-scoped files in order, Download follows the slice, a refused read ends it', async () => {
    const dicom = (frames: number) => ({
      kind: 'image' as const,
      modality: 'CT',
      bodyPart: null,
      studyDate: null,
      rows: 64,
      columns: 64,
      frames,
      bitsAllocated: 16,
      bitsStored: 12,
      photometricInterpretation: 'MONOCHROME2',
      transferSyntaxUid: '1.2.840.10008.1.2.1',
      deidentified: false,
      studyInstanceUid: null,
      seriesInstanceUid: null,
      sopInstanceUid: null,
    });
    const images = ids.map((id, i) => ({
      id,
      contentType: 'application/dicom',
      dicom: { ...dicom(i === 0 ? 2 : 1), kind: i === 2 ? ('document' as const) : ('image' as const) },
      hasThumbnail: i !== 2,
    }));
    linkAnswers('active', makeView({ kind: 'study', title: 'CT chest', viewOnly: false, images }));
    server.use(
      http.get('/api/external/images/:id/download', () =>
        HttpResponse.arrayBuffer(new Uint8Array([1]).buffer, { headers: { 'Content-Type': 'application/dicom' } }),
      ),
    );
    const seen = recordRequests();
    const received: LinkDicomViewerProps[] = [];
    function FakeViewer(props: LinkDicomViewerProps) {
      received.push(props);
      return (
        <>
          <button type="button" onClick={() => props.onSlice(2)}>
            Go to slice 3
          </button>
          <button type="button" onClick={() => props.onRefused(410, ExternalShareMessages.revokedLink)}>
            Refuse a read
          </button>
        </>
      );
    }
    const user = userEvent.setup();
    window.history.replaceState(null, '', `/x#${TOKEN}`);
    renderWithProviders(<ExternalLinkPage dicomViewer={FakeViewer} />, '/x');
    await screen.findByRole('heading', { name: 'Enter the code' });
    await enterDigits('123456');
    await user.click(screen.getByRole('button', { name: 'Open' }));

    await user.click(await screen.findByRole('button', { name: 'Go to slice 3' }));
    // The report (no pixels) is left out; the two-frame file counts twice.
    expect(received.at(-1)?.files).toEqual([
      { id: ids[0], url: `/api/external/images/${ids[0]}/content`, frames: 2 },
      { id: ids[1], url: `/api/external/images/${ids[1]}/content`, frames: 1 },
    ]);
    expect(received.at(-1)?.modality).toBe('CT');
    // No thumbnail fetched and no Previous / Next: the viewer pages through the stack itself.
    expect(requestsTo(seen, 'GET', `/external/images/${ids[0]}/thumbnail`)).toHaveLength(0);
    expect(screen.queryByRole('button', { name: 'Next' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Download' }));
    await waitFor(() => expect(requestsTo(seen, 'GET', `/external/images/${ids[1]}/download`)).toHaveLength(1));
    // A file read refused while open (revoked): the ended page, as for a picture.
    await user.click(screen.getByRole('button', { name: 'Refuse a read' }));
    expect(await screen.findByRole('heading', { name: 'Access has ended' })).toBeInTheDocument();
  });

  it('a revoke while open: the next image read (410) turns the page into the ended page', async () => {
    linkAnswers('active', makeView({ kind: 'study', images: ids.map(picture) }));
    server.use(
      http.get('/api/external/images/:id/content', ({ params }) =>
        params.id === ids[0]
          ? HttpResponse.arrayBuffer(new Uint8Array([1]).buffer, { headers: { 'Content-Type': 'image/jpeg' } })
          : HttpResponse.json(
              { success: false, code: 'link_revoked', message: ExternalShareMessages.revokedLink },
              { status: 410 },
            ),
      ),
    );
    const user = userEvent.setup();
    openLink();
    await screen.findByRole('heading', { name: 'Enter the code' });
    await enterDigits('123456');
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await screen.findByText('1 / 3');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('heading', { name: 'Access has ended' })).toBeInTheDocument();
    expect(screen.queryByText(/Access ends/)).not.toBeInTheDocument();
  });

  it('a reload in the same tab opens with the cookie, without the code, when it is this link’s share', async () => {
    const seen = recordRequests();
    linkAnswers('active');
    server.use(api.get<ExternalView>('/external/view', () => ok(makeView())));
    sessionStorage.setItem('medshare.externalLink.token', TOKEN);
    sessionStorage.setItem('medshare.externalLink.opened', '1');
    openLink('');
    expect(await screen.findByRole('heading', { name: 'Knee X-ray' })).toBeInTheDocument();
    expect(requestsTo(seen, 'POST', '/external/session')).toHaveLength(0);
    expect(await bodiesOf(seen, 'POST', '/external/link')).toEqual([{ token: TOKEN }]);
  });

  it('a reload whose cookie opens another share asks for the code', async () => {
    linkAnswers('active');
    server.use(
      api.get<ExternalView>('/external/view', () =>
        ok(makeView({ title: 'Another share', expiresAt: '2026-03-05T10:00:00.000Z' })),
      ),
    );
    sessionStorage.setItem('medshare.externalLink.token', TOKEN);
    sessionStorage.setItem('medshare.externalLink.opened', '1');
    openLink('');
    expect(await screen.findByRole('heading', { name: 'Enter the code' })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Another share')).not.toBeInTheDocument());
  });
});

import { ApiPaths, type Image, type User } from '@medshare/contracts';
import { ImageMessages, UPLOAD_DUPLICATE_CODE } from '@medshare/contracts/constants';
import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, failure, ok, paged, publicSettings, TEST_PUBLIC_SETTINGS } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { renderWithProviders } from '../../../testing/test-utils';
import { ImportMessages } from '../utils/import-plan';
import { dirEntry, fileEntry, fixtureBytes, makeZip, multipartParts, taggedCt } from '../utils/import-testing';
import { UploadForm } from './upload-form';

function image(id: string): Image {
  return {
    id,
    caption: 'x',
    contentType: 'application/dicom',
    sizeBytes: 1,
    isShared: false,
    isVerified: true,
    uploadedByMe: true,
    sharedBy: { id: '00000000-0000-4000-8000-000000000001', firstname: 'Ann', lastname: 'Doc' },
    patient: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    sharingId: null,
    accessState: 'owner',
    expiresAt: null,
    revokedAt: null,
    thumbnailStatus: 'pending',
    thumbnailUrl: null,
    image_url: null,
  };
}

/** The server: the file whose caption (its Study Description, see taggedCt) is FAIL fails, DUPL is a duplicate. */
function answerUploads() {
  const captions: string[] = [];
  server.use(
    api.post<Image>(ApiPaths.uploadImage, async ({ request }) => {
      const caption = (await multipartParts(request)).get('caption')?.text ?? '';
      captions.push(caption);
      if (caption === 'FAIL') return failure(415, ImageMessages.invalidType);
      if (caption === 'DUPL')
        return HttpResponse.json(
          { success: true, message: ImageMessages.duplicate, code: UPLOAD_DUPLICATE_CODE, data: image('d') },
          { status: 200 },
        ) as unknown as ReturnType<typeof ok<Image>>;
      return ok(image(caption), ImageMessages.uploaded, 201);
    }),
  );
  return captions;
}

beforeEach(() => {
  server.use(
    publicSettings(),
    api.get<User[]>(ApiPaths.users, () => paged([], { pageSize: 10, totalItems: 0, totalPages: 0 })),
  );
});

function setup() {
  const user = userEvent.setup({ applyAccept: false });
  renderWithProviders(<UploadForm />, '/upload');
  const input = document.querySelector<HTMLInputElement>('input[type=file]')!;
  return { user, input };
}

const rows = () => screen.getAllByTestId('import-item');
const rowOf = (path: string) => rows().find((r) => r.textContent?.startsWith(path))!;

describe('Upload: a study import (docs/product.md › Upload)', () => {
  it('imports several files: per-file states, one overall bar, a failure does not stop the rest, a duplicate reads "Already stored", non-DICOM skipped', async () => {
    const captions = answerUploads();
    const { user, input } = setup();
    expect(input.multiple).toBe(true);
    await user.upload(input, [
      taggedCt('GOOD', 'a.dcm').file,
      taggedCt('FAIL', 'b.dcm').file,
      taggedCt('DUPL', 'c.dcm').file,
      taggedCt('OK_2', 'd.dcm').file,
      new File(['hello'], 'notes.txt', { type: 'text/plain' }),
    ]);
    expect(await screen.findByRole('heading', { name: 'Import a study' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Import 4 DICOM files' })).toBeEnabled();
    expect(screen.getByTestId('import-summary')).toHaveTextContent('4 DICOM files to import');
    expect(within(rowOf('notes.txt')).getByText('Skipped')).toBeInTheDocument();
    expect(rowOf('notes.txt')).toHaveTextContent(ImportMessages.notDicom);
    expect(rowOf('a.dcm')).toHaveAttribute('data-state', 'queued');

    await user.click(screen.getByRole('button', { name: 'Import 4 DICOM files' }));
    expect(await screen.findByTestId('import-done', {}, { timeout: 5000 })).toHaveTextContent(
      'Import finished: 2 stored, 1 already stored, 1 failed, 1 skipped.',
    );
    expect(captions.sort()).toEqual(['DUPL', 'FAIL', 'GOOD', 'OK_2']);
    expect(rowOf('a.dcm')).toHaveAttribute('data-state', 'stored');
    expect(within(rowOf('c.dcm')).getByText('Already stored')).toBeInTheDocument();
    expect(rowOf('b.dcm')).toHaveAttribute('data-state', 'failed');
    expect(rowOf('b.dcm')).toHaveTextContent(ImageMessages.invalidType);
    expect(rowOf('d.dcm')).toHaveAttribute('data-state', 'stored');
    const bar = screen.getByRole('progressbar', { name: 'Import progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '100');
    expect(screen.getByTestId('import-progress')).toHaveTextContent('4 of 4 files done · 100%');
    // The import is the user's work: it kept the idle logout off (lib/user-activity.ts).
    expect(Number(window.localStorage.getItem('medshare:lastActivity'))).toBeGreaterThan(Date.now() - 60_000);

    // The failed and skipped files on their own.
    await user.click(screen.getByRole('button', { name: 'Failed or skipped (2)' }));
    expect(rows().map((r) => r.getAttribute('data-state'))).toEqual(['failed', 'skipped']);
  });

  it('refuses an import past max_import_files before sending anything, naming the setting', async () => {
    server.use(publicSettings({ ...TEST_PUBLIC_SETTINGS, maxImportFiles: 2 }));
    const captions = answerUploads();
    const { user, input } = setup();
    await user.upload(
      input,
      [1, 2, 3].map((n) => taggedCt(`CT_${n}`, `${n}.dcm`).file),
    );
    expect(await screen.findByTestId('import-refusal')).toHaveTextContent(ImportMessages.tooManyFiles(3, 2));
    expect(screen.queryByRole('button', { name: /^Import \d/ })).not.toBeInTheDocument();
    expect(captions).toEqual([]);
  });

  it('refuses an import past max_import_mb before sending anything', async () => {
    server.use(publicSettings({ ...TEST_PUBLIC_SETTINGS, maxImportMb: 1 }));
    const { user, input } = setup();
    const big = (n: number) => new File([new Uint8Array(700 * 1024)], `${n}.dcm`);
    await user.upload(input, [big(1), big(2)]);
    expect(await screen.findByTestId('import-refusal')).toHaveTextContent(
      'This import holds 2 MB of DICOM files; at most 1 MB can be imported at once (setting max_import_mb).',
    );
  });

  it('opens a single .zip as an import, and refuses a zip bomb entry by its declared size', async () => {
    server.use(publicSettings({ ...TEST_PUBLIC_SETTINGS, maxUploadMb: 1 }));
    answerUploads();
    const zip = await makeZip({
      'CT/IM1': fixtureBytes('ct_explicit_le_16bit_signed_small.dcm'),
      'CT/bomb.dcm': new Uint8Array(4 * 1024 * 1024),
      '__MACOSX/CT/._IM1': 'fork',
    });
    const { user, input } = setup();
    await user.upload(input, new File([zip], 'study.zip', { type: 'application/zip' }));
    expect(await screen.findByRole('button', { name: 'Import 1 DICOM file' })).toBeInTheDocument();
    expect(rows()).toHaveLength(2);
    expect(rowOf('study.zip › CT/bomb.dcm')).toHaveAttribute('data-state', 'failed');
    expect(rowOf('study.zip › CT/bomb.dcm')).toHaveTextContent('File size exceeds 1MB limit.');
    await user.click(screen.getByRole('button', { name: 'Import 1 DICOM file' }));
    expect(await screen.findByTestId('import-done')).toHaveTextContent('1 stored, 0 already stored, 1 failed');
  });

  it('"Choose a folder" opens the same input as a folder picker; a click on the zone picks files again', async () => {
    const { user, input } = setup();
    let directoryWhenOpened: boolean | null = null;
    input.addEventListener('click', () => void (directoryWhenOpened = input.webkitdirectory));
    await user.click(screen.getByRole('button', { name: 'Choose a folder' }));
    // Read after the click has bubbled through the drop zone, as the browser opens the picker then.
    await new Promise((r) => setTimeout(r, 0));
    expect(input.webkitdirectory).toBe(true);
    expect(directoryWhenOpened).toBe(true);
    await user.click(screen.getByText('Drag and drop a file here, or click to choose one'));
    expect(input.webkitdirectory).toBe(false);
  });

  it('takes a dropped folder (walked through its entries) as an import', async () => {
    setup();
    const zone = screen.getByText('Drag and drop a file here, or click to choose one');
    const ct = fixtureBytes('ct_explicit_le_16bit_signed_small.dcm');
    const folder = dirEntry('CD', [fileEntry('CD/IM1', ct), fileEntry('CD/IM2', ct), fileEntry('CD/notes.txt')]);
    fireEvent.drop(zone, { dataTransfer: { items: [{ webkitGetAsEntry: () => folder }], files: [] } });
    expect(await screen.findByRole('button', { name: 'Import 2 DICOM files' })).toBeInTheDocument();
    expect(rows().map((r) => r.getAttribute('data-state'))).toEqual(['queued', 'queued', 'skipped']);
  });

  it('keeps one dropped file in the one-file form', async () => {
    setup();
    const zone = screen.getByText('Drag and drop a file here, or click to choose one');
    const file = new File([fixtureBytes('ct_explicit_le_16bit_signed_small.dcm')], 'ct.dcm');
    const entry = fileEntry('ct.dcm');
    fireEvent.drop(zone, { dataTransfer: { items: [{ webkitGetAsEntry: () => entry }], files: [file] } });
    expect(await screen.findByText('ct.dcm')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload Image' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Import a study' })).not.toBeInTheDocument();
  });

  it('goes back to the one-file form with "Choose other files"', async () => {
    const { user, input } = setup();
    await user.upload(input, [taggedCt('AAAA', 'a.dcm').file, taggedCt('BBBB', 'b.dcm').file]);
    await user.click(await screen.findByRole('button', { name: 'Choose other files' }));
    expect(screen.getByRole('button', { name: 'Upload Image' })).toBeInTheDocument();
  });
});

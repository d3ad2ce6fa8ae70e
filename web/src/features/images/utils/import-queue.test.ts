import type { Image } from '@medshare/contracts';
import { ImageMessages, UPLOAD_DUPLICATE_CODE } from '@medshare/contracts/constants';
import { ApiPaths, ImagePaths } from '@medshare/contracts/paths';
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { api, failure, ok, unreachable } from '../../../testing/handlers';
import { server } from '../../../testing/server';
import { uploadImage } from '../api/upload-image';
import { ImportMessages, type ImportItem, type ItemState, planImport } from './import-plan';
import { runImport, uploadName } from './import-queue';
import { multipartParts, pickedBytes, pickedFixture, taggedCt } from './import-testing';

const LIMITS = { maxUploadMb: 10, maxImportFiles: 2000, maxImportMb: 2048 };

function image(id: string, caption: string): Image {
  return {
    id,
    caption,
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
    image_url: ImagePaths.content(id),
  };
}

type Sent = { tag: string; caption: string; patientId: string | null; type: string };

/**
 * POST /api/upload/image answered per file (its caption: `taggedCt`'s tag) by `answer` (with the try number, from 1);
 * records what was sent and how many requests were in flight at most.
 */
function uploadServer(answer: (name: string, attempt: number) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const tries = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  server.use(
    api.post<Image>(ApiPaths.uploadImage, async ({ request }) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const form = await multipartParts(request);
        const file = form.get('file')!;
        const name = form.get('caption')?.text ?? '';
        sent.push({
          tag: name,
          caption: name,
          patientId: form.get('patientId')?.text ?? null,
          type: file.type ?? '',
        });
        const attempt = (tries.get(name) ?? 0) + 1;
        tries.set(name, attempt);
        // Long enough for the other workers to start their requests.
        await new Promise((r) => setTimeout(r, 20));
        return (await answer(name, attempt)) as ReturnType<typeof ok<Image>>;
      } finally {
        inFlight--;
      }
    }),
  );
  return { sent, tries, maxInFlight: () => maxInFlight };
}

async function run(items: ImportItem[], extra: { caption?: string; patientId?: string; signal?: AbortSignal } = {}) {
  const final = new Map<string, ItemState>();
  const seen = new Map<string, ItemState['status'][]>();
  await runImport(items, {
    caption: extra.caption ?? '',
    patientId: extra.patientId,
    maxUploadMb: 10,
    signal: extra.signal ?? new AbortController().signal,
    upload: uploadImage,
    retryDelaysMs: [5, 5, 5],
    onState: (id, state) => {
      const path = items.find((i) => i.id === id)!.path;
      final.set(path, state);
      seen.set(path, [...(seen.get(path) ?? []), state.status]);
    },
  });
  return { final, seen };
}

const plan = async (files: Parameters<typeof planImport>[0]) => (await planImport(files, LIMITS)).items;

describe('runImport (docs/product.md › Upload)', () => {
  it('sends each DICOM file on its own, at most 3 at a time; a failed file does not stop the rest; a duplicate is already stored', async () => {
    const { sent, maxInFlight } = uploadServer((tag) => {
      if (tag === 'IM_2') return failure(415, ImageMessages.invalidType);
      if (tag === 'IM_5')
        return HttpResponse.json(
          { success: true, message: ImageMessages.duplicate, code: UPLOAD_DUPLICATE_CODE, data: image('dup-5', 'x') },
          { status: 200 },
        );
      return ok(image(`id-${tag}`, 'x'), ImageMessages.uploaded, 201);
    });
    const items = await plan([
      ...Array.from({ length: 8 }, (_, i) => taggedCt(`IM_${i}`, `study/IM${i}`)),
      pickedBytes('text', 'study/notes.txt'),
    ]);
    const { final, seen } = await run(items);

    expect(sent).toHaveLength(8);
    expect(maxInFlight()).toBe(3);
    expect(final.get('study/IM0')).toEqual({ status: 'stored', imageId: 'id-IM_0' });
    expect(final.get('study/IM2')).toEqual({ status: 'failed', reason: ImageMessages.invalidType });
    expect(final.get('study/IM5')).toEqual({ status: 'duplicate', imageId: 'dup-5' });
    expect(final.get('study/IM7')).toEqual({ status: 'stored', imageId: 'id-IM_7' });
    expect(seen.get('study/IM0')?.[0]).toBe('uploading');
    // Never sent, never touched: it stays skipped.
    expect(final.has('study/notes.txt')).toBe(false);
    // Typed DICOM; each caption is the file's Study Description.
    expect(sent.map((s) => s.caption).sort()).toEqual(['IM_0', 'IM_1', 'IM_2', 'IM_3', 'IM_4', 'IM_5', 'IM_6', 'IM_7']);
    expect(sent.every((s) => s.type === 'application/dicom' && s.patientId === null)).toBe(true);
  });

  it("captions every file with the user's caption and names the patient when given", async () => {
    const { sent } = uploadServer(() => ok(image('a', 'x'), undefined, 201));
    const items = await plan([
      pickedFixture('ct_explicit_le_16bit_signed_small.dcm', 'a.dcm'),
      pickedFixture('us_rgb_explicit_le_8bit.dcm', 'b.dcm'),
    ]);
    await run(items, { caption: '  Head CT, March  ', patientId: 'p-1' });
    expect(sent.map((s) => [s.caption, s.patientId])).toEqual([
      ['Head CT, March', 'p-1'],
      ['Head CT, March', 'p-1'],
    ]);
  });

  it('falls back to "<modality> study" when a file has no study description', async () => {
    const { sent } = uploadServer(() => ok(image('a', 'x'), undefined, 201));
    await run(await plan([pickedFixture('us_rgb_explicit_le_8bit.dcm', 'us.dcm')]));
    expect(sent[0]?.caption).toBe('US study');
  });

  it('retries a file after a network error, a 5xx or a 429, and gives up after the fourth try with the reason', async () => {
    const { tries } = uploadServer((tag, attempt) => {
      if (tag === 'NET_' && attempt < 3) return unreachable();
      if (tag === 'BUSY' && attempt === 1) return failure(503, 'Storage is unavailable');
      if (tag === 'SLOW' && attempt === 1) return failure(429, 'Too many requests');
      if (tag === 'DOWN') return failure(502, 'Bad gateway');
      if (tag === 'BAD_') return failure(400, 'Please provide a caption.');
      return ok(image(tag, 'x'), undefined, 201);
    });
    const { final } = await run(
      await plan(['NET_', 'BUSY', 'SLOW', 'DOWN', 'BAD_'].map((tag) => taggedCt(tag, `${tag}.dcm`))),
    );
    expect(final.get('NET_.dcm')?.status).toBe('stored');
    expect(tries.get('NET_')).toBe(3);
    expect(final.get('BUSY.dcm')?.status).toBe('stored');
    expect(final.get('SLOW.dcm')?.status).toBe('stored');
    expect(final.get('DOWN.dcm')).toEqual({ status: 'failed', reason: 'Bad gateway (tried 4 times)' });
    expect(tries.get('DOWN')).toBe(4);
    // A refusal is not retried.
    expect(final.get('BAD_.dcm')).toEqual({ status: 'failed', reason: 'Please provide a caption.' });
    expect(tries.get('BAD_')).toBe(1);
  });

  it('stops sending when the session ends (401): the rest are listed as not sent', async () => {
    uploadServer(() => failure(401, 'Token expired'));
    const items = await plan(
      Array.from({ length: 6 }, (_, i) => pickedFixture('ct_explicit_le_16bit_signed_small.dcm', `s/${i}.dcm`)),
    );
    const { final } = await run(items);
    const reasons = [...final.values()].map((s) => (s.status === 'failed' ? s.reason : s.status));
    expect(reasons.filter((r) => r === 'Token expired')).toHaveLength(3);
    expect(reasons.filter((r) => r === ImportMessages.sessionEnded)).toHaveLength(3);
  });

  it('skips a zip entry without extension whose bytes are not DICOM, without sending it', async () => {
    const { makeZip, pickedZip, fixtureBytes } = await import('./import-testing');
    const { sent } = uploadServer(() => ok(image('a', 'x'), undefined, 201));
    const ct = fixtureBytes('ct_explicit_le_16bit_signed_small.dcm');
    const zip = await makeZip({ IM1: ct, NOTES: 'plain text' });
    const { final } = await run(await plan([pickedZip(zip, 'cd.zip')]));
    expect(final.get('cd.zip › IM1')?.status).toBe('stored');
    expect(final.get('cd.zip › NOTES')).toEqual({ status: 'skipped', reason: ImportMessages.notDicom });
    expect(sent).toHaveLength(1);
  });

  it('cancels: nothing more is sent, and the files not sent yet are listed as cancelled', async () => {
    const controller = new AbortController();
    const { sent } = uploadServer(async () => {
      controller.abort();
      return ok(image('a', 'x'), undefined, 201);
    });
    const items = await plan(
      Array.from({ length: 6 }, (_, i) => pickedFixture('ct_explicit_le_16bit_signed_small.dcm', `c/${i}.dcm`)),
    );
    const { final } = await run(items, { signal: controller.signal });
    // The three in flight were answered (MSW does not cut a mocked answer short; a browser's abort
    // would): whatever the server answered is what they show.
    expect(sent).toHaveLength(3);
    expect([...final.values()].filter((s) => s.status === 'failed')).toEqual(
      Array(3).fill({ status: 'failed', reason: ImportMessages.cancelled }),
    );
  });
});

describe('uploadName', () => {
  it('gives a disc file without an extension the .dcm the server asks for, and keeps .dcm and .dicom', () => {
    expect(uploadName('IM000001')).toBe('IM000001.dcm');
    expect(uploadName('6154')).toBe('6154.dcm');
    expect(uploadName('ct.DCM')).toBe('ct.DCM');
    expect(uploadName('scan.dicom')).toBe('scan.dicom');
    expect(uploadName('IM1.ima')).toBe('IM1.ima.dcm');
  });
});

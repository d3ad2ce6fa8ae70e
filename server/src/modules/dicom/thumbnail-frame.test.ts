import dcmjs from 'dcmjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FIXTURES, imageFixtureNames } from '../images/images.test-helpers.ts';
import { parseDicom } from './dicom-core.ts';
import { renderFirstFrame } from './render.ts';
import { type ThumbnailFrame, resample, thumbnailFrame } from './thumbnail-frame.ts';

const read = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, 'dicom', name)));

/** The full render (dcmjs-imaging, RGBA) scaled by sharp to the reduced frame's size, as the channels it has. */
async function fullRenderAt(bytes: Uint8Array, size: ThumbnailFrame): Promise<Buffer> {
  const full = await renderFirstFrame(bytes, parseDicom(bytes));
  const scaled = sharp(Buffer.from(full.pixels), { raw: { width: full.width, height: full.height, channels: 4 } })
    .removeAlpha()
    .resize(size.width, size.height, { fit: 'fill' });
  return (size.channels === 1 ? scaled.extractChannel(0) : scaled).raw().toBuffer();
}

/** The fixture with `elements` (dcmjs's tag-keyed form) set in its data set, written back as Part 10. */
function rewritten(name: string, elements: Record<string, { vr: string; Value: unknown[] }>): Uint8Array {
  const bytes = read(name);
  const dict = dcmjs.data.DicomMessage.readFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  Object.assign(dict.dict, elements);
  return new Uint8Array(dict.write());
}

describe('thumbnail frame: the first frame reduced in the worker looks as the full render does', () => {
  for (const name of imageFixtureNames())
    it(`${name}: reduced (never the full-render fallback), at most 320 px, within 1.5 grey levels of the full render scaled`, async () => {
      const bytes = read(name);
      const small = await thumbnailFrame(parseDicom(bytes), 320);
      expect(small).not.toBeNull();
      expect(Math.max(small!.width, small!.height)).toBeLessThanOrEqual(320);
      expect(small!.pixels.length).toBe(small!.width * small!.height * small!.channels);
      const reference = await fullRenderAt(bytes, small!);
      let sum = 0;
      for (let i = 0; i < reference.length; i++) sum += Math.abs(reference[i]! - small!.pixels[i]!);
      // JPEG 2000 at a reduced wavelet level and the area average against sharp's kernel differ at edges only.
      expect(sum / reference.length).toBeLessThan(1.5);
    });

  it('leaves to the full render what it does not draw: a non-linear VOI function, a modality LUT sequence, YBR stored as it is', async () => {
    const base = 'ct_explicit_le_16bit_signed_small.dcm';
    expect(await thumbnailFrame(parseDicom(read(base)), 320)).not.toBeNull();
    // The rewrite itself keeps the frame drawable: LINEAR is drawn here.
    const linear = rewritten(base, { '00281056': { vr: 'CS', Value: ['LINEAR'] } });
    expect(await thumbnailFrame(parseDicom(linear), 320)).not.toBeNull();
    const sigmoid = rewritten(base, { '00281056': { vr: 'CS', Value: ['SIGMOID'] } });
    expect(await thumbnailFrame(parseDicom(sigmoid), 320)).toBeNull();
    const modalityLut = rewritten(base, {
      '00283000': {
        vr: 'SQ',
        Value: [
          {
            '00283002': { vr: 'US', Value: [2, 0, 16] },
            '00283004': { vr: 'LO', Value: ['HU'] },
            '00283006': { vr: 'US', Value: [0, 1000] },
          },
        ],
      },
    });
    expect(await thumbnailFrame(parseDicom(modalityLut), 320)).toBeNull();
    // RLE keeps YBR as it is: not RGB once decoded.
    const rle = 'us_rgb_rle_8bit.dcm';
    expect(
      await thumbnailFrame(parseDicom(rewritten(rle, { '00280004': { vr: 'CS', Value: ['RGB'] } })), 320),
    ).not.toBeNull();
    expect(
      await thumbnailFrame(parseDicom(rewritten(rle, { '00280004': { vr: 'CS', Value: ['YBR_FULL'] } })), 320),
    ).toBeNull();
  });
});

describe('resample: area averaging to the thumbnail size', () => {
  it('averages whole blocks exactly and keeps a frame that fits as it is', () => {
    const frame = {
      width: 4,
      height: 2,
      channels: 1 as const,
      pixels: Uint8Array.from([0, 100, 200, 50, 100, 0, 50, 200]),
    };
    expect(resample(frame, 2)).toEqual({ width: 2, height: 1, channels: 1, pixels: Uint8Array.from([50, 125]) });
    expect(resample(frame, 4)).toBe(frame);
  });

  it('weighs pixels split between two outputs by their share, per channel, and keeps the mean', () => {
    // 3 → 2 columns: the middle pixel is half in each output.
    const rgb = {
      width: 3,
      height: 1,
      channels: 3 as const,
      pixels: Uint8Array.from([90, 0, 30, 30, 60, 0, 0, 120, 90]),
    };
    const out = resample(rgb, 2);
    expect(out.width).toBe(2);
    expect([...out.pixels]).toEqual([70, 20, 20, 10, 100, 60]);
    const noise = { width: 517, height: 389, channels: 1 as const, pixels: new Uint8Array(517 * 389) };
    for (let i = 0; i < noise.pixels.length; i++) noise.pixels[i] = (i * 2_654_435_761) >>> 24;
    const small = resample(noise, 320);
    expect([small.width, small.height]).toEqual([320, 241]);
    const mean = (p: Uint8Array) => p.reduce((a, b) => a + b, 0) / p.length;
    expect(Math.abs(mean(small.pixels) - mean(noise.pixels))).toBeLessThan(1);
  });
});

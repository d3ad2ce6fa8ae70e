import dcmjs from 'dcmjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FIXTURES, imageFixtureNames } from '../images/images.test-helpers.ts';
import { parseDicom } from './dicom-core.ts';
import { renderFirstFrame } from './render.ts';
import { type Samples, type ThumbnailFrame, storedValues, thumbnailFrame } from './thumbnail-frame.ts';

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

describe('thumbnail frame: the first frame windowed in the worker looks as the full render does', () => {
  for (const name of imageFixtureNames())
    it(`${name}: drawn (never the full-render fallback) as the full render draws it, within 1.5 grey levels where JPEG 2000 was decoded smaller`, async () => {
      const bytes = read(name);
      const small = await thumbnailFrame(parseDicom(bytes), 320);
      expect(small).not.toBeNull();
      // The frame's own size, or a JPEG 2000 frame's reduced one with no side under 320 px.
      const ds = parseDicom(bytes).dataSet;
      const [rows, columns] = [ds.uint16('x00280010')!, ds.uint16('x00280011')!];
      if (small!.width !== columns) expect(Math.min(small!.width, small!.height)).toBeGreaterThanOrEqual(320);
      else expect(small!.height).toBe(rows);
      expect(small!.pixels.length).toBe(small!.width * small!.height * small!.channels);
      const reference = await fullRenderAt(bytes, small!);
      let sum = 0;
      for (let i = 0; i < reference.length; i++) sum += Math.abs(reference[i]! - small!.pixels[i]!);
      // JPEG 2000 at a reduced wavelet level against the full frame scaled by sharp: close, not equal.
      expect(sum / reference.length).toBeLessThan(small!.width === columns ? Number.EPSILON : 1.5);
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

describe('storedValues: 16-bit samples, whatever their alignment', () => {
  it('reads the same values, masked and sign-extended, from an aligned and an odd-offset buffer', () => {
    const n = 1000;
    const aligned = new Uint8Array(2 * n);
    for (let i = 0; i < aligned.length; i++) aligned[i] = (i * 7919 + 13) & 255;
    // The same bytes at an odd offset: no Uint16Array view can start there, so they are joined byte by byte.
    const odd = new Uint8Array(2 * n + 1).subarray(1);
    odd.set(aligned);
    const frame = (bytes: Uint8Array): Samples => ({
      width: n,
      height: 1,
      samples: 1,
      planar: false,
      bitsAllocated: 16,
      bytes,
    });
    for (const signed of [false, true]) {
      const a = storedValues(frame(aligned), 12, signed);
      const b = storedValues(frame(odd), 12, signed);
      expect([...a.values]).toEqual([...b.values]);
      expect([a.min, a.max]).toEqual([b.min, b.max]);
      // Bits above Bits Stored are not the value; a signed value takes the sign of bit 11.
      const first = aligned[0]! | (aligned[1]! << 8);
      expect(a.values[0]).toBe(signed ? ((first & 0xfff) << 20) >> 20 : first & 0xfff);
    }
  });
});

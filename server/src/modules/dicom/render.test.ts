import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../images/images.test-helpers.ts';
import { parseDicom } from './dicom-core.ts';
import { NO_DCMTK, type Raster, dcmtkRender, hasDcmtk, meanAbsDiff, stats, toChannels } from './dicom-test-helpers.ts';
import { renderFirstFrame } from './render.ts';

/** Image fixtures dcmtk decodes, with the dcmtk tool that does it. */
const DCMTK_FIXTURES: Array<[string, string]> = [
  ['cr_implicit_le_no_preamble_mono1.dcm', 'dcmj2pnm'],
  ['ct_explicit_le_16bit_signed_small.dcm', 'dcmj2pnm'],
  ['ct_implicit_le_16bit_signed.dcm', 'dcmj2pnm'],
  ['ct_jpeg_ls_lossless_16bit_signed.dcm', 'dcml2pnm'],
  ['ct_multiframe_jpeg_lossless_sv1.dcm', 'dcmj2pnm'],
  ['mr_explicit_be_16bit_signed.dcm', 'dcmj2pnm'],
  ['mr_multiframe_rle_16bit.dcm', 'dcmj2pnm'],
  ['nm_jpeg_extended_12bit.dcm', 'dcmj2pnm'],
  ['ot_deflated_8bit.dcm', 'dcmj2pnm'],
  ['us_multiframe_ybr422_jpeg_baseline.dcm', 'dcmj2pnm'],
  ['us_palette_color_rle_2frame.dcm', 'dcmj2pnm'],
  ['us_rgb_explicit_le_8bit.dcm', 'dcmj2pnm'],
];

const path = (name: string) => join(FIXTURES, 'dicom', name);

async function render(name: string) {
  const bytes = new Uint8Array(readFileSync(path(name)));
  return renderFirstFrame(bytes, parseDicom(bytes));
}
const rasterOf = (r: Awaited<ReturnType<typeof render>>, channels: number): Raster =>
  toChannels({ width: r.width, height: r.height, channels: 4, data: Buffer.from(r.pixels) }, channels);

/** Results for docs/decisions.md: printed once per run. */
const figures: string[] = [];

describe.skipIf(!hasDcmtk)(`first-frame rendering matches dcmtk (${hasDcmtk ? 'dcmtk found' : NO_DCMTK})`, () => {
  for (const [name, tool] of DCMTK_FIXTURES) {
    it(`${name}: full size within 2 grey levels (mean absolute difference) of ${tool} with the same window`, async () => {
      const mine = await render(name);
      const reference = dcmtkRender(path(name), mine.window, tool);
      const diff = meanAbsDiff(rasterOf(mine, reference.channels), reference);
      figures.push(
        `${name}: window ${mine.window ? `${mine.window.center}/${mine.window.width} (${mine.window.source})` : 'colour'}; MAD ${diff.toFixed(3)}`,
      );
      expect(diff).toBeLessThanOrEqual(2);
    });
  }

  it('JPEG 2000 lossless renders exactly like the same MR image stored uncompressed (big endian twin)', async () => {
    const j2k = await render('mr_jpeg2000_lossless_16bit_signed.dcm');
    const twin = await render('mr_explicit_be_16bit_signed.dcm');
    expect(j2k.window).toEqual(twin.window);
    const diff = meanAbsDiff(rasterOf(j2k, 1), rasterOf(twin, 1));
    figures.push(`mr_jpeg2000_lossless_16bit_signed.dcm vs its uncompressed twin: MAD ${diff.toFixed(3)}`);
    expect(diff).toBeLessThanOrEqual(0.5);
  });

  it('JPEG 2000 lossy (dcmtk has no J2K codec): a full-size, inverted MONOCHROME1 chest with plausible statistics', async () => {
    const r = await render('cr_jpeg2000_lossy_mono1.dcm');
    expect([r.width, r.height]).toEqual([1760, 1760]);
    const s = stats(rasterOf(r, 1));
    figures.push(
      `cr_jpeg2000_lossy_mono1.dcm: statistics mean ${s.mean.toFixed(1)} std ${s.std.toFixed(1)} window ${r.window?.center}/${r.window?.width}`,
    );
    // Not blank, not saturated, real contrast.
    expect(s.mean).toBeGreaterThan(40);
    expect(s.mean).toBeLessThan(215);
    expect(s.std).toBeGreaterThan(25);
  });

  it('Enhanced CT: rescale and window come from the functional groups', async () => {
    const r = await render('ct_multiframe_jpeg_lossless_sv1.dcm');
    expect(r.window?.source).toBe('functional-groups');
  });

  it('the lenient reading of malformed_missing_seq_delimiter.dcm decodes frame 0 (dcmtk refuses the file)', async () => {
    const r = await render('malformed_missing_seq_delimiter.dcm');
    expect([r.width, r.height]).toEqual([320, 320]);
    expect(stats(rasterOf(r, 1)).std).toBeGreaterThan(10);
  });

  it('a thumbnail-sized render stays close to dcmtk scaled the same way (sharp, 320 px)', async () => {
    for (const [name, tool] of DCMTK_FIXTURES) {
      const mine = await render(name);
      const reference = dcmtkRender(path(name), mine.window, tool);
      const size = { width: 320, height: 320, fit: 'inside' as const };
      const a = await sharp(Buffer.from(mine.pixels), { raw: { width: mine.width, height: mine.height, channels: 4 } })
        .resize(size)
        .removeAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const b = await sharp(reference.data, {
        raw: { width: reference.width, height: reference.height, channels: reference.channels as 1 | 3 },
      })
        .resize(size)
        .toColourspace('srgb')
        .raw()
        .toBuffer({ resolveWithObject: true });
      const diff = meanAbsDiff(
        { width: a.info.width, height: a.info.height, channels: a.info.channels, data: a.data },
        toChannels(
          { width: b.info.width, height: b.info.height, channels: b.info.channels, data: b.data },
          a.info.channels,
        ),
      );
      figures.push(`${name}: 320 px thumbnail MAD ${diff.toFixed(3)}`);
      expect(diff, name).toBeLessThanOrEqual(2);
    }
    if (process.env.DICOM_FIGURES) console.warn(figures.join('\n'));
  });
});

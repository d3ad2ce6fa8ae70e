import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import { FIXTURES, bytesOf, fixture, uploadFile } from '../images/images.test-helpers.ts';
import { THUMBNAIL_MAX_PX } from '../images/thumbnails.ts';
import { TransferSyntax, isNativeSyntax, parseDicom } from './dicom-core.ts';
import { type Rendered, renderFirstFrame } from './render.ts';

/**
 * Every DICOM fixture with pixel data is held against dcmtk's render of it: dcmtk decompresses it
 * (dcmdrle, dcmdjpeg, dcmdjpls; dcmconv for deflate), dcm2pnm renders the first frame as PNG with
 * the window our renderer chose the same way (from the file, or min-max), and the two must agree in
 * grey levels and, for colour files, in each channel and in colourfulness (docs/decisions.md ›
 * DICOM (server)). Both our full-size render and the stored JPEG thumbnail (upload pipeline, DICOM
 * worker, sharp) are compared.
 */

const DIR = join(FIXTURES, 'dicom');
const path = (name: string) => join(DIR, name);

/** Fixtures not compared, each with its reason; every other file in the folder is compared. */
const NOT_COMPARED: Record<string, string> = {
  'dicomdir_explicit_le.dcm': 'no pixel data (DICOMDIR)',
  'ecg_waveform_12lead.dcm': 'no pixel data (ECG waveform)',
  'sr_comprehensive_explicit_le.dcm': 'no pixel data (structured report)',
  'cr_jpeg2000_lossy_mono1.dcm': 'JPEG 2000: dcmtk has no JPEG 2000 codec (render.test.ts checks it by statistics)',
  'mr_jpeg2000_lossless_16bit_signed.dcm':
    'JPEG 2000: dcmtk has no JPEG 2000 codec (render.test.ts compares it with its uncompressed twin)',
  'malformed_missing_seq_delimiter.dcm': 'malformed: dcmtk stops at the missing Sequence Delimitation Item',
  'malformed_truncated_pixeldata.dcm': 'malformed: Pixel Data runs past the end of the file (the upload refuses it)',
};
const NO_PIXELS = new Set(Object.keys(NOT_COMPARED).filter((n) => NOT_COMPARED[n]!.startsWith('no pixel data')));

const ALL = readdirSync(DIR)
  .filter((n) => n.endsWith('.dcm'))
  .sort();
const COMPARED = ALL.filter((n) => !(n in NOT_COMPARED));

const TOOLS = [
  'dcmdump',
  'dcm2pnm',
  'dcmdrle',
  'dcmdjpeg',
  'dcmdjpls',
  'dcmconv',
  'dcmcrle',
  'dcmcjpeg',
  'dcmcjpls',
  'dcmodify',
];
const missing = TOOLS.filter((tool) => spawnSync(tool, ['--version']).status !== 0);
const NO_DCMTK = `dcmtk tools missing (${missing.join(', ')}): install the Debian package dcmtk`;

/**
 * Thresholds, below what was measured (dcmtk 3.6.7, dcmjs-imaging 0.2.5, print with DICOM_FIGURES=1).
 * Full size: grey r 1.0000 for every fixture but the 12-bit lossy JPEG (0.9999), each colour channel
 * 1.0000, colourfulness equal to dcmtk's. Thumbnails (JPEG quality 80, shrunk by libvips, against
 * dcmtk's PNG scaled by sharp): grey r 0.9916–0.9996, channels 0.9819–0.9990, colourfulness up to
 * 0.64 levels above dcmtk's (the RGB ultrasound: 12.28 against 11.64); grey images 0.00. WebP at
 * quality 78, used until 2026-12-06: grey r 0.9949–0.9995, channels 0.9862–0.9986, the nearly grey US
 * cine 1.42 against 1.15. Before the planar configuration fix, us_rgb_rle_8bit.dcm measured grey r
 * −0.04 and channels −0.10 to −0.01 (grey stripes), full size and thumbnail alike.
 */
const MIN_GREY_R = 0.98;
const MIN_CHANNEL_R = 0.97;
const COLOURFULNESS = { relative: 0.15, levels: 0.5 };

interface Raster {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
}

function pearson(a: Float64Array, b: Float64Array): number {
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < a.length; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= a.length;
  mb /= b.length;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    ab += x * y;
    aa += x * x;
    bb += y * y;
  }
  // Two flat images agree; one flat and one not do not.
  if (aa === 0 || bb === 0) return aa === bb ? 1 : 0;
  return ab / Math.sqrt(aa * bb);
}

/** Channel c of every pixel (the first channel of a grey raster stands for all three). */
function channel(r: Raster, c: number): Float64Array {
  const out = new Float64Array(r.width * r.height);
  for (let i = 0; i < out.length; i++) out[i] = r.data[i * r.channels + Math.min(c, r.channels - 1)]!;
  return out;
}

/** Grey level (ITU-R BT.601 luma) of every pixel. */
function grey(r: Raster): Float64Array {
  if (r.channels === 1) return channel(r, 0);
  const [red, green, blue] = [channel(r, 0), channel(r, 1), channel(r, 2)];
  return red.map((v, i) => 0.299 * v + 0.587 * green[i]! + 0.114 * blue[i]!);
}

/** Mean spread between a pixel's largest and smallest channel: 0 for a grey image. */
function colourfulness(r: Raster): number {
  if (r.channels === 1) return 0;
  let sum = 0;
  for (let i = 0; i < r.width * r.height; i++) {
    const [a, b, c] = [r.data[i * r.channels]!, r.data[i * r.channels + 1]!, r.data[i * r.channels + 2]!];
    sum += Math.max(a, b, c) - Math.min(a, b, c);
  }
  return sum / (r.width * r.height);
}

interface Agreement {
  grey: number;
  /** Correlation of R, G and B (colour references only). */
  channels: number[];
  /** Colourfulness of ours and of dcmtk's render. */
  colourfulness: { mine: number; reference: number };
}

/** A reference this colourful (mean channel spread, grey levels) is a colour image; below, a grey one. */
const COLOUR_SPREAD = 1;

function agreement(mine: Raster, reference: Raster): Agreement {
  if (mine.width !== reference.width || mine.height !== reference.height)
    throw new Error(`size differs: ${mine.width}x${mine.height} vs ${reference.width}x${reference.height}`);
  const colourful = { mine: colourfulness(mine), reference: colourfulness(reference) };
  return {
    grey: pearson(grey(mine), grey(reference)),
    channels:
      colourful.reference >= COLOUR_SPREAD
        ? [0, 1, 2].map((c) => pearson(channel(mine, c), channel(reference, c)))
        : [],
    colourfulness: colourful,
  };
}

function expectAgreement(name: string, a: Agreement) {
  expect(a.grey, `${name}: grey-level correlation`).toBeGreaterThanOrEqual(MIN_GREY_R);
  const { mine, reference } = a.colourfulness;
  if (reference < COLOUR_SPREAD) {
    expect(mine, `${name}: a grey image stays grey`).toBeLessThan(COLOUR_SPREAD);
    return;
  }
  for (const [c, r] of a.channels.entries())
    expect(r, `${name}: correlation of channel ${'RGB'[c]}`).toBeGreaterThanOrEqual(MIN_CHANNEL_R);
  expect(Math.abs(mine - reference), `${name}: colourfulness ${mine} against dcmtk's ${reference}`).toBeLessThanOrEqual(
    COLOURFULNESS.relative * reference + COLOURFULNESS.levels,
  );
}

const format = ({ grey, channels, colourfulness: c }: Agreement) =>
  `grey r ${grey.toFixed(4)}` +
  (channels.length ? `, R/G/B r ${channels.map((r) => r.toFixed(4)).join('/')}` : '') +
  `, colourfulness ${c.mine.toFixed(2)} (dcmtk ${c.reference.toFixed(2)})`;

/** The dcmtk tool (and options) that writes the file uncompressed, or null when it already is. */
function decompressor(transferSyntax: string): string[] | null {
  switch (transferSyntax) {
    case TransferSyntax.rle:
      return ['dcmdrle'];
    case TransferSyntax.jpegBaseline:
    case TransferSyntax.jpegExtended:
    case TransferSyntax.jpegLossless:
    case TransferSyntax.jpegLosslessSV1:
      return ['dcmdjpeg'];
    case TransferSyntax.jpegLsLossless:
    case TransferSyntax.jpegLsNearLossless:
      return ['dcmdjpls'];
    case TransferSyntax.deflatedLE:
      return ['dcmconv', '+te'];
    default:
      if (isNativeSyntax(transferSyntax)) return null;
      throw new Error(`no dcmtk decompressor for ${transferSyntax}`);
  }
}

/** dcm2pnm's window options for the window our renderer chose, found by dcmtk the same way. */
function windowOptions(file: string, window: Rendered['window']): string[] {
  if (!window) return [];
  if (window.source === 'dataset') return ['+Wi', '1'];
  if (window.source === 'min-max') return ['+Wm'];
  // Enhanced objects: the first window in the functional groups (dcm2pnm reads only the top level).
  const dump = execFileSync('dcmdump', ['+P', '0028,1050', '+P', '0028,1051', file], { encoding: 'latin1' });
  const value = (tag: string) => new RegExp(`\\(${tag}\\) DS \\[([^\\]\\\\]+)`).exec(dump)![1]!;
  return ['+Ww', value('0028,1050'), value('0028,1051')];
}

let work: string;
const run = (tool: string, args: string[]) => execFileSync(tool, args, { stdio: 'pipe' });

/** dcmtk's render of the first frame: decompressed by the matching tool, then dcm2pnm to PNG. */
async function dcmtkRender(file: string, window: Rendered['window']): Promise<Buffer> {
  const { transferSyntax } = parseDicom(new Uint8Array(readFileSync(file)));
  const tool = decompressor(transferSyntax);
  const base = join(work, basename(file));
  let input = file;
  if (tool) {
    input = `${base}.native.dcm`;
    run(tool[0]!, [...tool.slice(1), file, input]);
  }
  run('dcm2pnm', ['+F', '1', ...windowOptions(file, window), '--write-png', input, `${base}.png`]);
  return readFileSync(`${base}.png`);
}

async function rasterOf(image: Sharp): Promise<Raster> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data };
}

async function render(file: string): Promise<Rendered> {
  const bytes = new Uint8Array(readFileSync(file));
  return renderFirstFrame(bytes, parseDicom(bytes));
}

/** Our render at full size against dcmtk's. */
async function compareFullSize(file: string): Promise<Agreement> {
  const mine = await render(file);
  const reference = await rasterOf(sharp(await dcmtkRender(file, mine.window)));
  const raw = { width: mine.width, height: mine.height, channels: 4 as const };
  return agreement(await rasterOf(sharp(Buffer.from(mine.pixels), { raw }).removeAlpha()), reference);
}

const SOURCE = 'us_rgb_explicit_le_8bit.dcm';
/**
 * Every colour layout dcmtk writes from the RGB fixture: the encoder, then Planar Configuration set
 * to 1 (or left at 0), or decoded back to native pixel data colour by plane.
 */
const LAYOUTS: Array<{ name: string; encode: string[]; planar?: true; native?: true }> = [
  { name: 'RLE', encode: ['dcmcrle'] },
  { name: 'RLE', encode: ['dcmcrle'], planar: true },
  { name: 'JPEG lossless SV1', encode: ['dcmcjpeg', '+e1'] },
  { name: 'JPEG lossless SV1', encode: ['dcmcjpeg', '+e1'], planar: true },
  { name: 'JPEG baseline (YBR_FULL_422)', encode: ['dcmcjpeg', '+eb'] },
  { name: 'JPEG-LS line-interleaved', encode: ['dcmcjpls', '+il'] },
  { name: 'JPEG-LS line-interleaved', encode: ['dcmcjpls', '+il'], planar: true },
  { name: 'JPEG-LS sample-interleaved', encode: ['dcmcjpls', '+is'] },
  { name: 'JPEG-LS sample-interleaved', encode: ['dcmcjpls', '+is'], planar: true },
  { name: 'JPEG-LS not interleaved', encode: ['dcmcjpls', '+in'] },
  { name: 'JPEG-LS not interleaved', encode: ['dcmcjpls', '+in'], planar: true },
  { name: 'native, colour by plane', encode: ['dcmcjpls', '+il'], planar: true, native: true },
];
const layoutName = (l: (typeof LAYOUTS)[number]) =>
  l.native ? l.name : `${l.name}, Planar Configuration ${l.planar ? 1 : 0}`;

/** Results for docs/decisions.md, printed with DICOM_FIGURES=1. */
const figures: string[] = [];

it.runIf(missing.length > 0 && !!process.env.CI)('CI has dcmtk, so that every fixture is compared', () => {
  throw new Error(NO_DCMTK);
});

// Rendering does not depend on the database: the PostgreSQL project would repeat the same work.
describe.skipIf(missing.length > 0 || process.env.MEDSHARE_TEST_DB === 'postgres')(
  `every fixture renders like dcmtk (${missing.length ? NO_DCMTK : 'dcmtk found'})`,
  () => {
    let t: TestApp;
    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), 'render-dcmtk-'));
      t = await createTestApp();
    });
    afterAll(async () => {
      rmSync(work, { recursive: true, force: true });
      await t?.close();
      if (process.env.DICOM_FIGURES) console.warn(figures.join('\n'));
    });

    it('every fixture in the folder is compared, or listed with the reason it is not', () => {
      expect(COMPARED.length).toBeGreaterThan(0);
      for (const name of Object.keys(NOT_COMPARED)) expect(ALL, `${name} is listed but absent`).toContain(name);
      expect(COMPARED).toContain('us_rgb_rle_8bit.dcm');
    });

    it('the reasons hold: no pixel data, JPEG 2000, or a file dcmtk refuses', () => {
      for (const name of Object.keys(NOT_COMPARED)) {
        const reason = NOT_COMPARED[name]!;
        if (NO_PIXELS.has(name)) {
          expect(parseDicom(new Uint8Array(readFileSync(path(name)))).dataSet.elements.x7fe00010, name).toBeUndefined();
        } else if (reason.startsWith('JPEG 2000')) {
          const ts = parseDicom(new Uint8Array(readFileSync(path(name)))).transferSyntax;
          expect([TransferSyntax.j2k, TransferSyntax.j2kLossless], name).toContain(ts);
        } else {
          const run = spawnSync('dcm2pnm', ['+F', '1', path(name), join(work, `${name}.png`)]);
          expect(run.status, `${name}: dcmtk reads it after all`).not.toBe(0);
        }
      }
    });

    for (const name of Object.keys(NOT_COMPARED)) it.skip(`${name}: not compared (${NOT_COMPARED[name]})`, () => {});

    for (const name of COMPARED) {
      it(`${name}: the full-size first frame agrees with dcmtk's (grey levels, and each channel and the colour of a colour image)`, async () => {
        const a = await compareFullSize(path(name));
        figures.push(`${name} full size: ${format(a)}`);
        expectAgreement(name, a);
      });
    }

    it('every colour layout renders like dcmtk, whatever Planar Configuration says: RLE, JPEG lossless and JPEG-LS (each interleave mode) with 0 and 1, JPEG baseline YBR, native colour by plane', async () => {
      for (const [i, layout] of LAYOUTS.entries()) {
        let file = join(work, `layout-${i}.dcm`);
        run(layout.encode[0]!, [...layout.encode.slice(1), path(SOURCE), file]);
        if (layout.planar) run('dcmodify', ['-nb', '-m', '(0028,0006)=1', file]);
        if (layout.native) {
          run('dcmdjpls', ['+pr', file, `${file}.planar.dcm`]);
          file = `${file}.planar.dcm`;
          const native = parseDicom(new Uint8Array(readFileSync(file)));
          expect([isNativeSyntax(native.transferSyntax), native.dataSet.uint16('x00280006')]).toEqual([true, 1]);
        }
        const a = await compareFullSize(file);
        figures.push(`${SOURCE} as ${layoutName(layout)}: ${format(a)}`);
        expectAgreement(layoutName(layout), a);
      }
    }, 60_000);

    it('each stored thumbnail (upload pipeline, DICOM worker, JPEG) agrees with dcmtk scaled the same way', async () => {
      // One uploader per file: the CT fixtures share a SOP Instance UID, and an uploader's instance is stored once.
      const ids: Array<[string, string, string]> = [];
      for (const name of COMPARED) {
        const uploader = await newUser(t, 'healthProvider');
        const res = await uploadFile(t, uploader.token, fixture(`dicom/${name}`), { caption: name });
        expect(res.statusCode, `${name}: ${res.body}`).toBe(201);
        ids.push([name, res.json().data.id, uploader.token]);
      }
      await t.app.ctx.services.images.idle();
      for (const [name, id, token] of ids) {
        const res = await t.request({ method: 'GET', url: `/api/images/${id}/thumbnail`, token });
        expect(res.statusCode, name).toBe(200);
        const thumb = await rasterOf(sharp(bytesOf(res)).removeAlpha());
        const mine = await render(path(name));
        const reference = await rasterOf(
          sharp(await dcmtkRender(path(name), mine.window)).resize(THUMBNAIL_MAX_PX, THUMBNAIL_MAX_PX, {
            fit: 'inside',
            withoutEnlargement: true,
          }),
        );
        const a = agreement(thumb, reference);
        figures.push(`${name} thumbnail: ${format(a)}`);
        expectAgreement(name, a);
      }
    }, 120_000);
  },
);

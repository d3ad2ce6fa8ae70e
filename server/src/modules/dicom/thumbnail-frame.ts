import type { DataSet } from 'dicom-parser';
import { createRequire } from 'node:module';
import { type ParsedDicom, TransferSyntax, decodeRleFrame, frameBytes, isNativeSyntax } from './dicom-core.ts';
import { jpegLsInterleave, renderFirstFrame } from './render.ts';
import { decodeFrame } from './transcode.ts';

/**
 * The first frame of a DICOM image drawn for its thumbnail, in the worker: only what a thumbnail
 * of at most `maxSide` pixels a side shows is decoded, and windowed to 8 bits. JPEG 2000 frames are
 * decoded at a reduced resolution (its wavelet levels: a 1 760² CR at 440², 63 → 9 ms), other
 * compressed frames by dcmjs-codecs (a quarter to a seventh of dcmjs-imaging's render), and the
 * modality rescale, VOI window and MONOCHROME1 inversion run as one lookup per stored value into
 * one grey channel. sharp then resizes and encodes it (images/thumbnails.ts), in place of the area
 * averaging this module did in JavaScript (bench/RESULTS.md › Issue 16: thumbnails resized by libvips).
 * The same rules as render.ts's full render (docs/decisions.md › DICOM (server)): the data set's first
 * window, else the min-max of the stored values (padding excluded), linear VOI (PS3.3 C.11.2.1.2).
 *
 * Palettes go through their tables, enhanced objects' rescale and window come from their functional
 * groups. Anything else (modality or VOI LUT sequences, non-linear VOI functions, Presentation LUT
 * INVERSE, YBR stored as it is, other bit depths) answers null, and the caller renders the frame in full.
 */
export interface ThumbnailFrame {
  /** The decoded size: the frame's, or a JPEG 2000 frame's reduced one (no side under `maxSide`). */
  width: number;
  height: number;
  /** 1: grey; 3: RGB. 8 bits a sample, interleaved. */
  channels: 1 | 3;
  pixels: Uint8Array;
}

/** What a thumbnail is made from: the windowed frame, or the full render's RGBA where none could be made. */
export interface ThumbnailPixels {
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  pixels: Uint8Array;
}

const require = createRequire(import.meta.url);

interface J2KDecoder {
  getEncodedBuffer(length: number): Uint8Array;
  decode(): void;
  decodeSubResolution(level: number, layer: number): void;
  calculateSizeAtDecompositionLevel(level: number): { width: number; height: number };
  getDecodedBuffer(): Uint8Array;
  getFrameInfo(): { width: number; height: number; bitsPerSample: number; componentCount: number; isSigned: boolean };
  delete(): void;
}
let openjpeg: Promise<{ J2KDecoder: new () => J2KDecoder }> | null = null;

/** OpenJPEG in WebAssembly (@cornerstonejs/codec-openjpeg), loaded from node_modules once per worker. */
function loadOpenJpeg() {
  const factory = require('@cornerstonejs/codec-openjpeg/decodewasmjs') as (module: object) => Promise<{
    J2KDecoder: new () => J2KDecoder;
  }>;
  // Its log lines (one per header it reads) never reach the worker's output.
  openjpeg ??= factory({ print: () => undefined, printErr: () => undefined });
  return openjpeg;
}

/** Values of one frame as stored: width × height × samples, interleaved unless `planar`. */
export interface Samples {
  width: number;
  height: number;
  samples: 1 | 3;
  planar: boolean;
  bitsAllocated: 8 | 16;
  bytes: Uint8Array;
}

const u16 = (ds: DataSet, tag: string): number | undefined => {
  const el = ds.elements[tag];
  return el && el.length >= 2 ? ds.uint16(tag) : undefined;
};
const text = (ds: DataSet, tag: string): string => (ds.string(tag) ?? '').trim().toUpperCase();
const decimal = (ds: DataSet, tag: string): number | undefined => {
  const el = ds.elements[tag];
  if (!el || el.length === 0) return undefined;
  const n = ds.floatString(tag, 0);
  return n !== undefined && Number.isFinite(n) ? n : undefined;
};

/** Attributes that change how a frame looks in ways this path does not draw: the full render draws them. */
const DRAWN_ONLY_BY_FULL_RENDER = [
  'x00283000', // Modality LUT Sequence
  'x00283010', // VOI LUT Sequence
];

const firstItem = (ds: DataSet | undefined, tag: string): DataSet | undefined => ds?.elements[tag]?.items?.[0]?.dataSet;

/**
 * Rescale and window as render.ts's liftFunctionalGroups finds them: the top level, else the
 * first frame's functional groups, else the shared ones (enhanced objects, PS3.3 C.7.6.16).
 */
function pixelTransform(ds: DataSet) {
  const groups = [ds, firstItem(ds, 'x52009230'), firstItem(ds, 'x52009229')];
  let rescale: { slope: number; intercept: number } | undefined;
  let window: { center: number; width: number } | undefined;
  for (const [index, group] of groups.entries()) {
    if (!group) continue;
    const transform = index === 0 ? group : firstItem(group, 'x00289145');
    const voi = index === 0 ? group : firstItem(group, 'x00289132');
    const slope = transform && decimal(transform, 'x00281053');
    if (!rescale && transform && slope !== undefined)
      rescale = { slope, intercept: decimal(transform, 'x00281052') ?? 0 };
    const center = voi && decimal(voi, 'x00281050');
    const width = voi && decimal(voi, 'x00281051');
    if (!window && center !== undefined && width !== undefined) window = { center, width };
  }
  return { rescale: rescale ?? { slope: 1, intercept: 0 }, window };
}

/** The worker's `thumbnail` operation: the reduced frame, else the full render (RGBA, not resized). */
export async function thumbnailPixels(
  input: Uint8Array,
  parsed: ParsedDicom,
  maxSide: number,
): Promise<ThumbnailPixels> {
  const small = await thumbnailFrame(parsed, maxSide);
  if (small) return small;
  const { width, height, pixels } = await renderFirstFrame(input, parsed);
  return { width, height, channels: 4, pixels };
}

export async function thumbnailFrame(parsed: ParsedDicom, maxSide: number): Promise<ThumbnailFrame | null> {
  const ds = parsed.dataSet;
  const rows = u16(ds, 'x00280010') ?? 0;
  const columns = u16(ds, 'x00280011') ?? 0;
  const samples = u16(ds, 'x00280002') ?? 1;
  const bitsAllocated = u16(ds, 'x00280100') ?? 0;
  const bitsStored = u16(ds, 'x00280101') ?? bitsAllocated;
  const highBit = u16(ds, 'x00280102') ?? bitsStored - 1;
  const photometric = text(ds, 'x00280004');
  const voiFunction = text(ds, 'x00281056');
  const presentationShape = text(ds, 'x20500020');
  if (rows === 0 || columns === 0) return null;
  if (bitsAllocated !== 8 && bitsAllocated !== 16) return null;
  if (bitsStored < 1 || bitsStored > bitsAllocated || highBit !== bitsStored - 1) return null;
  if (DRAWN_ONLY_BY_FULL_RENDER.some((tag) => ds.elements[tag])) return null;
  if (voiFunction !== '' && voiFunction !== 'LINEAR') return null;
  if (presentationShape !== '' && presentationShape !== 'IDENTITY') return null;
  const grey = samples === 1 && (photometric === 'MONOCHROME1' || photometric === 'MONOCHROME2');
  const palette = samples === 1 && photometric === 'PALETTE COLOR' ? paletteOf(ds) : null;
  const colour = samples === 3 && bitsAllocated === 8 && decodesToRgb(parsed.transferSyntax, photometric);
  if (!grey && !colour && !palette) return null;

  const frame = await decodedSamples(parsed, { rows, columns, samples, bitsAllocated }, maxSide);
  if (!frame) return null;
  if (colour) return colourPixels(frame);
  const signed = u16(ds, 'x00280103') === 1;
  const stored = storedValues(frame, bitsStored, signed);
  if (palette) return paletteLevels(frame, stored, palette);
  return greyLevels(frame, stored, ds, { bitsStored, signed, inverted: photometric === 'MONOCHROME1' });
}

/**
 * Whether frame 0 comes out of decodedSamples as RGB: stored RGB; JPEG 2000's YBR_ICT/RCT (OpenJPEG
 * inverts the component transform); any colour model dcmjs-codecs converts (JPEG, JPEG-LS, HTJ2K).
 * YBR stored as it is (native, RLE) stays with the full render.
 */
function decodesToRgb(ts: string, photometric: string): boolean {
  if (photometric === 'RGB') return true;
  if (isNativeSyntax(ts) || ts === TransferSyntax.rle) return false;
  if (ts === TransferSyntax.j2k || ts === TransferSyntax.j2kLossless)
    return photometric === 'YBR_ICT' || photometric === 'YBR_RCT';
  return true;
}

/** Frame 0's stored values: native as they are, RLE by our decoder, JPEG 2000 at the smallest level still ≥ maxSide. */
async function decodedSamples(
  parsed: ParsedDicom,
  g: { rows: number; columns: number; samples: number; bitsAllocated: number },
  maxSide: number,
): Promise<Samples | null> {
  const ts = parsed.transferSyntax;
  const base = { samples: g.samples as 1 | 3, bitsAllocated: g.bitsAllocated as 8 | 16 };
  const frame = frameBytes(parsed, 0);
  const size = g.rows * g.columns * g.samples * (g.bitsAllocated / 8);
  if (!frame.encapsulated) {
    if (frame.bytes.length < size) return null;
    const planar = g.samples === 3 && parsed.dataSet.uint16('x00280006') === 1;
    return { ...base, width: g.columns, height: g.rows, planar, bytes: frame.bytes };
  }
  if (ts === TransferSyntax.rle) {
    const bytes = decodeRleFrame(frame.bytes, {
      rows: g.rows,
      columns: g.columns,
      samplesPerPixel: g.samples,
      bitsAllocated: g.bitsAllocated,
    });
    return { ...base, width: g.columns, height: g.rows, planar: true, bytes };
  }
  if (ts === TransferSyntax.j2k || ts === TransferSyntax.j2kLossless) {
    const { J2KDecoder } = await loadOpenJpeg();
    let level = 0;
    while (level < 5 && Math.max(g.rows, g.columns) >> (level + 1) >= maxSide) level++;
    const decode = (at: number): Samples | null => {
      const decoder = new J2KDecoder();
      try {
        decoder.getEncodedBuffer(frame.bytes.length).set(frame.bytes);
        if (at > 0) decoder.decodeSubResolution(at, 0);
        else decoder.decode();
        const size = at > 0 ? decoder.calculateSizeAtDecompositionLevel(at) : { width: g.columns, height: g.rows };
        const info = decoder.getFrameInfo();
        if (info.componentCount !== g.samples || (info.bitsPerSample > 8 ? 16 : 8) !== g.bitsAllocated) return null;
        const bytes = decoder.getDecodedBuffer().slice(0, size.width * size.height * g.samples * (g.bitsAllocated / 8));
        return { ...base, width: size.width, height: size.height, planar: false, bytes };
      } finally {
        decoder.delete();
      }
    };
    try {
      return decode(level);
    } catch (err) {
      // Fewer wavelet levels than asked: the whole frame, by a fresh decoder.
      if (level === 0) throw err;
      return decode(0);
    }
  }
  // JPEG (every process), JPEG-LS, HTJ2K: dcmjs-codecs, YBR converted to RGB; JPEG-LS without interleave is planar.
  const bytes = await decodeFrame(parsed, 0);
  const planar =
    g.samples === 3 &&
    (ts === TransferSyntax.jpegLsLossless || ts === TransferSyntax.jpegLsNearLossless) &&
    jpegLsInterleave(frame.bytes) === 0;
  return { ...base, width: g.columns, height: g.rows, planar, bytes };
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * `n` little-endian 16-bit samples: a view of the bytes where the host is little-endian too and they
 * are aligned, else a copy joined byte by byte (bench/RESULTS.md › A thumbnail's stored values read
 * as 16-bit words). Samples past the end of short bytes read as 0.
 */
function littleEndianWords(b: Uint8Array, n: number): Uint16Array {
  if (LITTLE_ENDIAN_HOST && b.byteOffset % 2 === 0 && b.byteLength >= 2 * n)
    return new Uint16Array(b.buffer, b.byteOffset, n);
  const words = new Uint16Array(n);
  for (let i = 0; i < n; i++) words[i] = (b[2 * i] ?? 0) | ((b[2 * i + 1] ?? 0) << 8);
  return words;
}

/** Stored values as numbers, masked to Bits Stored and sign-extended (what lies above Bits Stored is not the value), with their range. */
export function storedValues(f: Samples, bitsStored: number, signed: boolean) {
  const n = f.width * f.height;
  const values = new Int32Array(n);
  const mask = bitsStored >= 32 ? -1 : (1 << bitsStored) - 1;
  const shift = 32 - bitsStored;
  const b = f.bytes;
  let min = 2 ** 31 - 1;
  let max = -(2 ** 31);
  const u16 = f.bitsAllocated === 16 ? littleEndianWords(b, n) : null;
  // One loop per case, so that the inner loop has no branch on the format.
  if (u16 && signed)
    for (let i = 0; i < n; i++) {
      const v = ((u16[i]! & mask) << shift) >> shift;
      values[i] = v;
      min = v < min ? v : min;
      max = v > max ? v : max;
    }
  else if (u16)
    for (let i = 0; i < n; i++) {
      const v = u16[i]! & mask;
      values[i] = v;
      min = v < min ? v : min;
      max = v > max ? v : max;
    }
  else
    for (let i = 0; i < n; i++) {
      const v = signed ? ((b[i]! & mask) << shift) >> shift : b[i]! & mask;
      values[i] = v;
      min = v < min ? v : min;
      max = v > max ? v : max;
    }
  return { values, min, max };
}

function greyLevels(
  f: Samples,
  stored: ReturnType<typeof storedValues>,
  ds: DataSet,
  p: { bitsStored: number; signed: boolean; inverted: boolean },
): ThumbnailFrame {
  const { values } = stored;
  const transform = pixelTransform(ds);
  const { slope, intercept } = transform.rescale;
  const minStored = p.signed ? -(2 ** (p.bitsStored - 1)) : 0;
  const maxStored = p.signed ? 2 ** (p.bitsStored - 1) - 1 : 2 ** p.bitsStored - 1;

  let center = transform.window?.center;
  let width = transform.window?.width;
  if (center === undefined || width === undefined || width <= 0) {
    // As dcmjs-imaging: Smallest/Largest Image Pixel Value when given, else the frame's min and max
    // (Pixel Padding Value excluded), within what Bits Stored can hold, rescaled and truncated.
    let low = u16(ds, 'x00280106');
    let high = u16(ds, 'x00280107');
    let fromFrame = false;
    if (low === undefined || high === undefined || low >= high) {
      const padding = ds.elements.x00280120 ? u16(ds, 'x00280120') : undefined;
      low = stored.min;
      high = stored.max;
      if (padding !== undefined && (padding === low || padding === high)) {
        low = values[0]!;
        high = values[0]!;
        for (let i = 0; i < values.length; i++) {
          const v = values[i]!;
          if (v === padding) continue;
          if (v < low) low = v;
          if (v > high) high = v;
        }
      }
      low = Math.max(low, minStored);
      high = Math.min(high, maxStored);
      fromFrame = true;
    }
    const lo = Math.trunc(low * slope + intercept);
    const hi = Math.trunc(high * slope + intercept);
    // dcmjs-imaging gives a window from the frame at least 1 wide, one from the attributes as it is.
    width = fromFrame ? Math.max(1, Math.abs(hi - lo)) : Math.abs(hi - lo);
    center = (hi + lo) / 2;
  }

  // One output level per stored value present: rescale, linear window (PS3.3 C.11.2.1.2.1), MONOCHROME1 inverted.
  const lut = new Uint8Array(stored.max - stored.min + 1);
  const c05 = center - 0.5;
  const w1 = Math.max(width - 1, 1e-9);
  for (let s = stored.min; s <= stored.max; s++) {
    const y = Math.trunc(((s * slope + intercept - c05) / w1 + 0.5) * 255);
    const level = y < 0 ? 0 : y > 255 ? 255 : y;
    lut[s - stored.min] = p.inverted ? 255 - level : level;
  }

  const pixels = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) pixels[i] = lut[values[i]! - stored.min]!;
  return { width: f.width, height: f.height, channels: 1, pixels };
}

function colourPixels(f: Samples): ThumbnailFrame {
  const n = f.width * f.height;
  // A copy: the worker hands the pixels' buffer over, and a native frame's bytes are a view of the file.
  let pixels = f.bytes.slice(0, 3 * n);
  if (f.planar) {
    // RRR…GGG…BBB to RGBRGB…
    pixels = new Uint8Array(3 * n);
    for (let i = 0; i < n; i++) {
      pixels[3 * i] = f.bytes[i]!;
      pixels[3 * i + 1] = f.bytes[n + i]!;
      pixels[3 * i + 2] = f.bytes[2 * n + i]!;
    }
  }
  return { width: f.width, height: f.height, channels: 3, pixels };
}

interface Palette {
  /** Red, green and blue, 8 bits an entry. */
  tables: [Uint8Array, Uint8Array, Uint8Array];
  firstMapped: number;
}

/**
 * The three palette tables (PS3.3 C.7.6.3.1.5-6), each its descriptor's entries (0 meaning 65 536)
 * of 8 or 16 bits, kept as 8 bits (the high byte); null when a table is missing, segmented or short.
 */
function paletteOf(ds: DataSet): Palette | null {
  const tables: Uint8Array[] = [];
  let firstMapped = 0;
  for (const [descriptorTag, dataTag] of [
    ['x00281101', 'x00281201'],
    ['x00281102', 'x00281202'],
    ['x00281103', 'x00281203'],
  ] as const) {
    const descriptor = ds.elements[descriptorTag];
    const data = ds.elements[dataTag];
    if (!descriptor || descriptor.length < 6 || !data) return null;
    const entries = ds.uint16(descriptorTag, 0) || 65_536;
    firstMapped = ds.uint16(descriptorTag, 1) ?? 0;
    const bits = ds.uint16(descriptorTag, 2);
    const wide = bits === 16 || data.length >= entries * 2;
    if (data.length < entries * (wide ? 2 : 1)) return null;
    const table = new Uint8Array(entries);
    const at = ds.byteArray.byteOffset + data.dataOffset;
    const view = new DataView(ds.byteArray.buffer, at, data.length);
    for (let i = 0; i < entries; i++) table[i] = wide ? view.getUint16(2 * i, true) >> 8 : view.getUint8(i);
    tables.push(table);
  }
  return { tables: tables as Palette['tables'], firstMapped };
}

/**
 * Indices through the palette's three tables (below the first mapped index, the first entry; past
 * the last, the last), built for the indices present, to interleaved RGB.
 */
function paletteLevels(f: Samples, stored: ReturnType<typeof storedValues>, palette: Palette): ThumbnailFrame {
  const tables = palette.tables.map((table) => {
    const lut = new Uint8Array(stored.max - stored.min + 1);
    for (let s = stored.min; s <= stored.max; s++)
      lut[s - stored.min] = table[Math.min(table.length - 1, Math.max(0, s - palette.firstMapped))]!;
    return lut;
  });
  const [r, g, b] = tables as [Uint8Array, Uint8Array, Uint8Array];
  const { values, min } = stored;
  const pixels = new Uint8Array(3 * values.length);
  for (let i = 0; i < values.length; i++) {
    const k = values[i]! - min;
    pixels[3 * i] = r[k]!;
    pixels[3 * i + 1] = g[k]!;
    pixels[3 * i + 2] = b[k]!;
  }
  return { width: f.width, height: f.height, channels: 3, pixels };
}

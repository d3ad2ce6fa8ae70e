import imaging from 'dcmjs-imaging';
import { createRequire } from 'node:module';
import {
  type ParsedDicom,
  DicomMessages,
  DicomRejection,
  TransferSyntax,
  dcmjsSource,
  decodeRleFrame,
  frameBytes,
  isNativeSyntax,
} from './dicom-core.ts';

const { DicomImage, NativePixelDecoder, WindowLevel } = imaging;
const require = createRequire(import.meta.url);

let ready: Promise<void> | null = null;

/** Loads the bundled WASM codecs from node_modules once per worker (nothing is fetched at run time). */
export function initCodecs(): Promise<void> {
  ready ??= NativePixelDecoder.initializeAsync({
    webAssemblyModulePathOrUrl: require.resolve('dcmjs-imaging/build/dcmjs-native-codecs.wasm'),
    logNativeDecodersMessages: false,
  });
  return ready;
}

export interface Rendered {
  width: number;
  height: number;
  /** RGBA, 8 bits per channel. */
  pixels: Uint8Array;
  /** The VOI window applied to greyscale images (center, width), or null for colour. */
  window: { center: number; width: number; source: 'dataset' | 'functional-groups' | 'min-max' | 'request' } | null;
}

type Elements = Record<string, unknown>;
const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
const numeric = (v: unknown): number | null => {
  const n = Number(first(v));
  return v === undefined || v === null || v === '' || !Number.isFinite(n) ? null : n;
};

/**
 * Enhanced multi-frame objects keep rescale and VOI window in functional group sequences
 * (PS3.3 C.7.6.16): shared first, then the first frame's. Lifted to the top level, where the
 * rendering pipeline reads them.
 */
export function liftFunctionalGroups(el: Elements): boolean {
  const groups = [first(el.PerFrameFunctionalGroupsSequence), first(el.SharedFunctionalGroupsSequence)].filter(
    (g): g is Elements => !!g && typeof g === 'object',
  );
  let lifted = false;
  for (const g of groups) {
    const transform = first(g.PixelValueTransformationSequence) as Elements | undefined;
    if (transform && el.RescaleSlope === undefined && numeric(transform.RescaleSlope) !== null) {
      el.RescaleSlope = numeric(transform.RescaleSlope);
      el.RescaleIntercept = numeric(transform.RescaleIntercept) ?? 0;
      lifted = true;
    }
    const voi = first(g.FrameVOILUTSequence) as Elements | undefined;
    if (
      voi &&
      el.WindowCenter === undefined &&
      numeric(voi.WindowCenter) !== null &&
      numeric(voi.WindowWidth) !== null
    ) {
      el.WindowCenter = numeric(voi.WindowCenter);
      el.WindowWidth = numeric(voi.WindowWidth);
      lifted = true;
    }
  }
  return lifted;
}

/** The interleave mode of a JPEG-LS frame's first scan (0 none, 1 line, 2 sample), or null when no scan header is found. */
export function jpegLsInterleave(frame: Uint8Array): number | null {
  let at = 2; // after SOI
  while (at + 4 <= frame.length) {
    if (frame[at] !== 0xff) return null;
    const marker = frame[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const length = (frame[at + 2]! << 8) | frame[at + 3]!;
    if (marker === 0xda) {
      // SOS: length, Ns, Ns × (component id, mapping table), NEAR, ILV.
      const ilv = at + 4 + 1 + 2 * frame[at + 4]! + 1;
      return ilv < frame.length ? frame[ilv]! : null;
    }
    at += 2 + length;
  }
  return null;
}

/**
 * The Planar Configuration the renderer must be given for a frame as it is once decoded: 0 colour
 * by pixel (RGBRGB…), 1 colour by plane (RRR…GGG…BBB). (0028,0006) describes native pixel data;
 * an encapsulated frame leaves its codec in the codec's own layout, whatever the data set says
 * (docs/decisions.md › DICOM (server)):
 * - RLE: every sample is its own segment (PS3.5 Annex G): planes (decodeRleFrame);
 * - JPEG-LS: as its scan is interleaved: none gives planes, line or sample gives pixels;
 * - JPEG (every process) and JPEG 2000: pixels.
 * The one place this is decided, for every RGB and YBR path.
 */
export function decodedPlanarConfiguration(transferSyntax: string, declared: number, frame: Uint8Array): 0 | 1 {
  if (isNativeSyntax(transferSyntax)) return declared === 1 ? 1 : 0;
  if (transferSyntax === TransferSyntax.rle) return 1;
  if (transferSyntax === TransferSyntax.jpegLsLossless || transferSyntax === TransferSyntax.jpegLsNearLossless)
    return jpegLsInterleave(frame) === 0 ? 1 : 0;
  return 0;
}

/**
 * Puts frame `index` (0-based) into `image` as the renderer must see it: native frames little
 * endian (as frameBytes gives them), encapsulated frames joined from their fragments (frames split
 * over several fragments), RLE frames decoded here, as native pixel data, because dcmjs-imaging
 * 0.2.5 hands its RLE codec the inverse of Planar Configuration (its output is planar exactly when
 * the data set says colour by pixel), which no value of the attribute renders right. Colour frames
 * carry the layout decodedPlanarConfiguration gives.
 */
function putFrame(image: InstanceType<typeof DicomImage>, parsed: ParsedDicom, index: number): void {
  const el = image.getElements();
  const frame = frameBytes(parsed, index);
  const samples = Number(el.SamplesPerPixel ?? 1);
  let pixels = frame.bytes;
  if (!frame.encapsulated) image.setTransferSyntaxUid(TransferSyntax.explicitLE);
  else if (parsed.transferSyntax === TransferSyntax.rle) {
    pixels = decodeRleFrame(frame.bytes, {
      rows: Number(el.Rows),
      columns: Number(el.Columns),
      samplesPerPixel: samples,
      bitsAllocated: Number(el.BitsAllocated),
    });
    image.setTransferSyntaxUid(TransferSyntax.explicitLE);
  }
  el.PixelData = [pixels.buffer.slice(pixels.byteOffset, pixels.byteOffset + pixels.byteLength)];
  el.NumberOfFrames = 1;
  if (samples > 1)
    el.PlanarConfiguration = decodedPlanarConfiguration(
      parsed.transferSyntax,
      Number(el.PlanarConfiguration ?? 0),
      frame.bytes,
    );
}

/**
 * Renders frame `index` (0-based): modality LUT (rescale), the VOI window asked for, else the data
 * set's (or the functional groups'; min-max of the modality values when there is none),
 * MONOCHROME1 inverted, palette and YBR converted to RGB. Only that frame's bytes reach dcmjs.
 */
export async function renderFrameAt(
  input: Uint8Array,
  parsed: ParsedDicom,
  index: number,
  window: { center: number; width: number } | null = null,
): Promise<Rendered> {
  await initCodecs();
  if (!parsed.dataSet.elements.x7fe00010) throw new DicomRejection(400, DicomMessages.noFrames);
  const image = new DicomImage(dcmjsSource(input, parsed, 'none'));
  putFrame(image, parsed, index);
  const el = image.getElements();
  const hadWindow = el.WindowCenter !== undefined && el.WindowWidth !== undefined;
  const lifted = liftFunctionalGroups(el);
  const result = image.render({
    frame: 0,
    ...(window ? { windowLevel: new WindowLevel(window.width, window.center) } : {}),
  });
  const wl = result.windowLevel;
  return {
    width: result.width,
    height: result.height,
    pixels: new Uint8Array(result.pixels),
    window: wl
      ? {
          center: wl.getLevel(),
          width: wl.getWindow(),
          source: window
            ? 'request'
            : hadWindow
              ? 'dataset'
              : lifted && el.WindowCenter !== undefined
                ? 'functional-groups'
                : 'min-max',
        }
      : null,
  };
}

/** The first frame with the object's own window: thumbnails, analysis, WADO-RS rendered by default. */
export const renderFirstFrame = (input: Uint8Array, parsed: ParsedDicom): Promise<Rendered> =>
  renderFrameAt(input, parsed, 0);

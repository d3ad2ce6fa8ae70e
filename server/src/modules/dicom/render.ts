import imaging from 'dcmjs-imaging';
import { createRequire } from 'node:module';
import { type ParsedDicom, DicomRejection, DicomMessages, asPart10, frameBytes } from './dicom-core.ts';

const { DicomImage, NativePixelDecoder } = imaging;
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
  window: { center: number; width: number; source: 'dataset' | 'functional-groups' | 'min-max' } | null;
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

/**
 * Renders the first frame: modality LUT (rescale), VOI window from the data set (or the
 * functional groups; min-max of the modality values when there is none), MONOCHROME1 inverted,
 * palette and YBR converted to RGB. Encapsulated frames are handed over already joined (frames
 * split over several fragments).
 */
export async function renderFirstFrame(input: Uint8Array, parsed: ParsedDicom): Promise<Rendered> {
  await initCodecs();
  const part10 = asPart10(input, parsed);
  const buffer = part10.buffer.slice(part10.byteOffset, part10.byteOffset + part10.byteLength) as ArrayBuffer;
  const image = new DicomImage(buffer);
  const el = image.getElements();
  if (!el.PixelData) throw new DicomRejection(400, DicomMessages.noFrames);
  const frame = frameBytes(parsed, 0);
  if (frame.encapsulated) {
    const b = frame.bytes;
    el.PixelData = [b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)];
    el.NumberOfFrames = 1;
  }
  const hadWindow = el.WindowCenter !== undefined && el.WindowWidth !== undefined;
  const lifted = liftFunctionalGroups(el);
  const result = image.render({ frame: 0 });
  const wl = result.windowLevel;
  return {
    width: result.width,
    height: result.height,
    pixels: new Uint8Array(result.pixels),
    window: wl
      ? {
          center: wl.getLevel(),
          width: wl.getWindow(),
          source: hadWindow ? 'dataset' : lifted && el.WindowCenter !== undefined ? 'functional-groups' : 'min-max',
        }
      : null,
  };
}

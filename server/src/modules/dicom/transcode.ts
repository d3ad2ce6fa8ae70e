import dcmjs from 'dcmjs';
import codecs from 'dcmjs-codecs';
import type { DataSet } from 'dicom-parser';
import { createRequire } from 'node:module';
import { type ParsedDicom, DicomMessages, DicomRejection, TransferSyntax, asPart10, frameBytes } from './dicom-core.ts';

/**
 * Transfer-syntax changes for WADO-RS (worker side): compressed frames decoded to native pixels,
 * and whole objects re-encoded as Explicit VR Little Endian. dcmjs-codecs (by the author of
 * dcmjs-imaging, which renders here already) does the decoding with its bundled WASM codecs;
 * nothing is hand-written. docs/decisions.md › DICOMweb content negotiation.
 */
const { NativeCodecs, Context, Transcoder } = codecs;
const require = createRequire(import.meta.url);

let ready: Promise<void> | null = null;
/** Loads the codecs from node_modules once per worker (nothing is fetched at run time). */
function initCodecs(): Promise<void> {
  ready ??= NativeCodecs.initializeAsync({
    webAssemblyModulePathOrUrl: require.resolve('dcmjs-codecs/build/dcmjs-native-codecs.wasm'),
    logCodecsInfo: false,
    logCodecsTrace: false,
  });
  return ready;
}

type Decoder = 'decodeRle' | 'decodeJpeg' | 'decodeJpegLs' | 'decodeJpeg2000' | 'decodeHtJpeg2000';
const DECODER: Record<string, Decoder> = {
  [TransferSyntax.rle]: 'decodeRle',
  [TransferSyntax.jpegBaseline]: 'decodeJpeg',
  [TransferSyntax.jpegExtended]: 'decodeJpeg',
  [TransferSyntax.jpegLossless]: 'decodeJpeg',
  [TransferSyntax.jpegLosslessSV1]: 'decodeJpeg',
  [TransferSyntax.jpegLsLossless]: 'decodeJpegLs',
  [TransferSyntax.jpegLsNearLossless]: 'decodeJpegLs',
  [TransferSyntax.j2kLossless]: 'decodeJpeg2000',
  [TransferSyntax.j2k]: 'decodeJpeg2000',
  [TransferSyntax.htj2kLossless]: 'decodeHtJpeg2000',
  [TransferSyntax.htj2kLosslessRpcl]: 'decodeHtJpeg2000',
  [TransferSyntax.htj2k]: 'decodeHtJpeg2000',
};

const us = (ds: DataSet, tag: string, fallback: number): number => {
  const el = ds.elements[tag];
  return (el && el.length >= 2 ? ds.uint16(tag) : undefined) ?? fallback;
};

/**
 * Frame `index` (0-based) of an encapsulated object decoded to native pixels, little endian (YBR
 * JPEG frames converted to RGB, as decoders do). Its length is checked against the declared size.
 */
export async function decodeFrame(parsed: ParsedDicom, index: number): Promise<Uint8Array> {
  return (await decodeFrameWithContext(parsed, index)).bytes;
}

/** decodeFrame, with the photometric interpretation and planar configuration of the decoded pixels. */
async function decodeFrameWithContext(
  parsed: ParsedDicom,
  index: number,
): Promise<{ bytes: Uint8Array; photometric: string | undefined; planar: number | undefined }> {
  const decoder = DECODER[parsed.transferSyntax];
  if (!decoder) throw new DicomRejection(400, DicomMessages.unsupportedSyntax(parsed.transferSyntax));
  await initCodecs();
  const ds = parsed.dataSet;
  const rows = us(ds, 'x00280010', 0);
  const columns = us(ds, 'x00280011', 0);
  const samples = us(ds, 'x00280002', 1);
  const bits = us(ds, 'x00280100', 8);
  const context = new Context({
    width: columns,
    height: rows,
    bitsAllocated: bits,
    bitsStored: us(ds, 'x00280101', bits),
    samplesPerPixel: samples,
    pixelRepresentation: us(ds, 'x00280103', 0),
    planarConfiguration: us(ds, 'x00280006', 0),
    photometricInterpretation: (ds.string('x00280004') ?? 'MONOCHROME2').trim(),
    encodedBuffer: frameBytes(parsed, index).bytes,
  });
  let decoded: Uint8Array | undefined;
  let out: InstanceType<typeof Context>;
  try {
    out = NativeCodecs[decoder](context, { convertColorspaceToRgb: true });
    decoded = out.getDecodedBuffer();
  } catch {
    throw new DicomRejection(400, DicomMessages.noFrames);
  }
  const expected = rows * columns * samples * (bits / 8);
  if (!decoded || decoded.length < expected) throw new DicomRejection(400, DicomMessages.noFrames);
  return {
    bytes: decoded.subarray(0, expected),
    photometric: out.getPhotometricInterpretation(),
    planar: out.getPlanarConfiguration(),
  };
}

/**
 * The whole object as a Part 10 file in Explicit VR Little Endian (the caller has checked that the
 * stored syntax allows it without loss). Native syntaxes: dcmjs-codecs' Transcoder re-encodes the
 * data set (big endian pixels swapped). Compressed: every frame decoded as decodeFrame does (frames
 * split over fragments included, which the Transcoder does not take) and written by dcmjs as
 * native pixel data. A bare data set gets its File Meta group first.
 */
export async function toExplicitLittleEndian(input: Uint8Array, parsed: ParsedDicom): Promise<Uint8Array> {
  await initCodecs();
  const part10 = asPart10(input, parsed);
  const buffer = part10.buffer.slice(part10.byteOffset, part10.byteOffset + part10.byteLength) as ArrayBuffer;
  const pixel = parsed.dataSet.elements.x7fe00010;
  // Values dcmjs would refuse to write (a DA of 10 characters in an old file) are written as read.
  const writeOptions = { allowInvalidVRLength: true };
  if (parsed.transferSyntax === TransferSyntax.deflatedLE) {
    // Inflated (within the bounds of parseDicom), a deflated data set is Explicit VR LE already:
    // a File Meta group naming that syntax, then the inflated bytes as they are.
    let metaEnd = 0;
    for (const [tag, el] of Object.entries(parsed.dataSet.elements))
      if (tag.startsWith('x0002')) metaEnd = Math.max(metaEnd, el.dataOffset + el.length);
    const meta = dcmjs.data.DicomMessage.readFile(buffer, { untilTag: '00080005', ignoreErrors: true }).meta;
    meta['00020010'] = { vr: 'UI', Value: [TransferSyntax.explicitLE] };
    const head = new Uint8Array(new dcmjs.data.DicomDict(meta).write(writeOptions));
    const body = parsed.byteArray.subarray(metaEnd);
    const out = new Uint8Array(head.length + body.length);
    out.set(head, 0);
    out.set(body, head.length);
    return out;
  }
  if (!pixel?.encapsulatedPixelData) {
    const transcoder = new Transcoder(buffer);
    transcoder.transcode(TransferSyntax.explicitLE);
    return new Uint8Array(transcoder.getDicomPart10(writeOptions));
  }
  const frames = Math.max(1, Number.parseInt(parsed.dataSet.string('x00280008') ?? '1', 10) || 1);
  const decoded = [];
  for (let i = 0; i < frames; i++) decoded.push(await decodeFrameWithContext(parsed, i));
  const joined = new Uint8Array(decoded.reduce((n, f) => n + f.bytes.length, 0));
  let at = 0;
  for (const f of decoded) {
    joined.set(f.bytes, at);
    at += f.bytes.length;
  }
  const message = dcmjs.data.DicomMessage.readFile(buffer, { ignoreErrors: true });
  const bits = us(parsed.dataSet, 'x00280100', 8);
  // Native pixel data has an even length: an odd one (8-bit, odd pixel count) gets its pad byte.
  const padded = joined.length % 2 ? new Uint8Array(joined.length + 1) : joined;
  if (padded !== joined) padded.set(joined);
  message.dict['7FE00010'] = { vr: bits > 8 ? 'OW' : 'OB', Value: [padded.buffer] };
  const first = decoded[0]!;
  if (first.photometric) message.dict['00280004'] = { vr: 'CS', Value: [first.photometric] };
  if (us(parsed.dataSet, 'x00280002', 1) > 1) message.dict['00280006'] = { vr: 'US', Value: [first.planar ?? 0] };
  message.meta['00020010'] = { vr: 'UI', Value: [TransferSyntax.explicitLE] };
  return new Uint8Array(message.write(writeOptions));
}

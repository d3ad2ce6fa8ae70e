import dicomParser, { type DataSet, type Element } from 'dicom-parser';
import { inflateRawSync } from 'node:zlib';
import { errorCode, errorMessage } from '../../errors.ts';

/**
 * Parsing, checking and frame extraction of DICOM objects with dicom-parser. Pure functions over
 * bytes: they run inside the DICOM worker (dicom.worker.ts), never on the request path.
 */

/** A file the upload refuses: status and a message safe to show (never a value read from the file). */
export class DicomRejection extends Error {
  override name = 'DicomRejection';
  readonly status: 400 | 413 | 415;
  constructor(status: 400 | 413 | 415, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * Memory bounds (docs/security.md › Memory bounds). An object whose declared pixel data
 * (rows × columns × frames × samples × bits allocated / 8) exceeds MAX_PIXEL_BYTES, or one frame
 * of which has more than MAX_FRAME_PIXELS pixels, is refused at upload and on every read; a
 * deflated data set is never inflated past MAX_INFLATED_BYTES, whatever its header says.
 */
export const MAX_PIXEL_BYTES = 256 * 1024 * 1024;
/** 32 Mi pixels: a 5 792 × 5 792 frame, larger than any mammography or CR detector; RGBA rendering of it is 128 MiB. */
export const MAX_FRAME_PIXELS = 32 * 1024 * 1024;
/** Attributes besides pixel data (overlays, functional groups, private data) may add this much. */
export const MAX_NON_PIXEL_BYTES = 16 * 1024 * 1024;
export const MAX_INFLATED_BYTES = MAX_PIXEL_BYTES + MAX_NON_PIXEL_BYTES;
const MAX_PIXEL_MIB = MAX_PIXEL_BYTES / 2 ** 20;
const MAX_INFLATED_MIB = MAX_INFLATED_BYTES / 2 ** 20;
const MAX_FRAME_PIXELS_TEXT = MAX_FRAME_PIXELS.toLocaleString('en-US');

export const DicomMessages = {
  notDicom: 'The file is not a readable DICOM object (no DICOM header or data set was found).',
  truncated: 'The DICOM file is truncated or damaged: an element runs past the end of the file.',
  malformed: 'The DICOM file is malformed and cannot be read.',
  dicomdir: 'DICOMDIR files are media indexes without images; upload the DICOM image files it lists instead.',
  unsupportedSyntax: (uid: string) =>
    `DICOM transfer syntax ${uid} is not supported (video and unknown syntaxes are refused).`,
  badImage: 'The DICOM image attributes are inconsistent (rows, columns, bits or samples are missing or invalid).',
  tooLarge: `The DICOM image is too large: at most ${MAX_FRAME_PIXELS_TEXT} pixels per frame are accepted.`,
  pixelBytes: (mib: number) =>
    `The DICOM pixel data would take ${mib} MiB once decoded (rows × columns × frames × samples × bits); at most ${MAX_PIXEL_MIB} MiB are accepted.`,
  inflated: `The deflated DICOM data set inflates to more than ${MAX_INFLATED_MIB} MiB and is refused.`,
  answerTooLarge: (mib: number) =>
    `These frames together exceed ${mib} MiB, the most one answer may carry: ask for fewer frames per request.`,
  pixelDataShort: 'The DICOM pixel data is shorter than its rows, columns and frames require (truncated file).',
  noFrames: 'The DICOM pixel data holds no frame.',
  metadataTooLarge: (mib: number) =>
    `The DICOM attributes take more than ${mib} MiB as DICOM JSON (too many values or sequence items) and are refused.`,
} as const;

export const TransferSyntax = {
  implicitLE: '1.2.840.10008.1.2',
  explicitLE: '1.2.840.10008.1.2.1',
  deflatedLE: '1.2.840.10008.1.2.1.99',
  explicitBE: '1.2.840.10008.1.2.2',
  rle: '1.2.840.10008.1.2.5',
  jpegBaseline: '1.2.840.10008.1.2.4.50',
  jpegExtended: '1.2.840.10008.1.2.4.51',
  jpegLossless: '1.2.840.10008.1.2.4.57',
  jpegLosslessSV1: '1.2.840.10008.1.2.4.70',
  jpegLsLossless: '1.2.840.10008.1.2.4.80',
  jpegLsNearLossless: '1.2.840.10008.1.2.4.81',
  j2kLossless: '1.2.840.10008.1.2.4.90',
  j2k: '1.2.840.10008.1.2.4.91',
  htj2kLossless: '1.2.840.10008.1.2.4.201',
  htj2kLosslessRpcl: '1.2.840.10008.1.2.4.202',
  htj2k: '1.2.840.10008.1.2.4.203',
} as const;

const NATIVE = new Set<string>([
  TransferSyntax.implicitLE,
  TransferSyntax.explicitLE,
  TransferSyntax.deflatedLE,
  TransferSyntax.explicitBE,
]);
/** Encapsulated syntaxes the bundled WASM codecs (dcmjs-imaging) decode. */
const ENCAPSULATED = new Set<string>([
  TransferSyntax.rle,
  TransferSyntax.jpegBaseline,
  TransferSyntax.jpegExtended,
  TransferSyntax.jpegLossless,
  TransferSyntax.jpegLosslessSV1,
  TransferSyntax.jpegLsLossless,
  TransferSyntax.jpegLsNearLossless,
  TransferSyntax.j2kLossless,
  TransferSyntax.j2k,
  TransferSyntax.htj2kLossless,
  TransferSyntax.htj2kLosslessRpcl,
  TransferSyntax.htj2k,
]);
export const isNativeSyntax = (uid: string) => NATIVE.has(uid);
export const isSupportedSyntax = (uid: string) => NATIVE.has(uid) || ENCAPSULATED.has(uid);

/** Media type of one encapsulated frame as sent by WADO-RS (PS3.18 §8.7.3.5.2). */
export function frameMediaType(ts: string): string {
  if (ts === TransferSyntax.rle) return 'image/dicom-rle';
  if (ts === TransferSyntax.jpegBaseline || ts === TransferSyntax.jpegExtended) return 'image/jpeg';
  if (ts === TransferSyntax.jpegLossless || ts === TransferSyntax.jpegLosslessSV1) return 'image/jpeg';
  if (ts === TransferSyntax.jpegLsLossless || ts === TransferSyntax.jpegLsNearLossless) return 'image/jls';
  if (ts === TransferSyntax.j2kLossless || ts === TransferSyntax.j2k) return 'image/jp2';
  if (ts.startsWith('1.2.840.10008.1.2.4.20')) return 'image/jphc';
  return 'application/octet-stream';
}

export const SopClass = {
  mediaStorageDirectory: '1.2.840.10008.1.3.10',
} as const;

const VRS = new Set(
  'AE AS AT CS DA DS DT FD FL IS LO LT OB OD OF OL OV OW PN SH SL SQ SS ST SV TM UC UI UL UN UR US UT UV'.split(' '),
);

export interface ParsedDicom {
  dataSet: DataSet;
  transferSyntax: string;
  /** The bytes dicom-parser walked (the inflated copy for deflated files; a preamble added when there was none). */
  byteArray: Uint8Array;
  /** The file had a 128-byte preamble and 'DICM'. */
  part10: boolean;
  warnings: string[];
}

/** zlib's codes for a stream that is broken (not one that is too large). */
const ZLIB_DATA_ERRORS = new Set(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'Z_NEED_DICT', 'Z_STREAM_ERROR']);

/** Inflates a deflated data set, never past MAX_INFLATED_BYTES (zlib stops there; a lying header gains nothing). */
function inflater(bytes: Uint8Array, position: number): Uint8Array {
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(bytes.subarray(position), { maxOutputLength: MAX_INFLATED_BYTES });
  } catch (err) {
    // Only zlib's data errors say the stream itself is broken. Anything else (past the bound, or the
    // memory for it not to be had: a RangeError, ERR_BUFFER_TOO_LARGE, Z_MEM_ERROR, or whatever an
    // allocation fails with under load, as one CI run saw) is the size refusal.
    if (ZLIB_DATA_ERRORS.has(errorCode(err) ?? '')) throw new DicomRejection(400, DicomMessages.malformed);
    throw new DicomRejection(413, DicomMessages.inflated);
  }
  const out = new Uint8Array(position + inflated.length);
  out.set(bytes.subarray(0, position), 0);
  out.set(inflated, position);
  return out;
}

/**
 * A deflated Part 10 file with its data set inflated, or null for any other file. dicom-parser finds
 * the end of the File Meta group by reading one more element and checking its group; on a deflated
 * file that element is compressed bytes, and when they happen to read as a sequence (VR 'SQ') it
 * throws (about 3 % of one test's generated files). The group length says where the group ends.
 */
function inflatedPart10(bytes: Uint8Array): Uint8Array | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hasGroupLength =
    bytes.length >= 144 &&
    view.getUint16(132, true) === 0x0002 &&
    view.getUint16(134, true) === 0x0000 &&
    String.fromCharCode(bytes[136]!, bytes[137]!) === 'UL';
  if (!hasGroupLength) return null;
  const metaEnd = 144 + view.getUint32(140, true);
  if (metaEnd > bytes.length) return null;
  const meta = dicomParser.readPart10Header(bytes.subarray(0, metaEnd));
  if ((meta.string('x00020010') ?? '').trim() !== TransferSyntax.deflatedLE) return null;
  return inflater(bytes, metaEnd);
}

/** The message of whatever dicom-parser threw (it throws strings and objects as well as Errors). */
function problemOf(err: unknown): string {
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object' && 'exception' in err) return String((err as { exception: unknown }).exception);
  return errorMessage(err);
}

/**
 * Parses a Part 10 file (preamble + 'DICM' + meta) or a bare data set (no preamble, no meta:
 * little endian, explicit VR when the first element carries a VR, else implicit). Throws
 * DicomRejection for anything that is not a complete DICOM object.
 */
export function parseDicom(input: Uint8Array): ParsedDicom {
  const part10 = input.length >= 132 && String.fromCharCode(...input.subarray(128, 132)) === 'DICM';
  let bytes = input;
  let guessed: string | undefined;
  if (!part10) {
    if (input.length < 8) throw new DicomRejection(415, DicomMessages.notDicom);
    const group = input[0]! | (input[1]! << 8);
    const explicit = VRS.has(String.fromCharCode(input[4]!, input[5]!));
    if (group === 0x0002) {
      // A meta header without its preamble: give it one, the rest is a normal Part 10 stream.
      bytes = new Uint8Array(132 + input.length);
      bytes.set([0x44, 0x49, 0x43, 0x4d], 128);
      bytes.set(input, 132);
    } else if (group === 0x0008) {
      guessed = explicit ? TransferSyntax.explicitLE : TransferSyntax.implicitLE;
    } else {
      throw new DicomRejection(415, DicomMessages.notDicom);
    }
  }
  let dataSet: DataSet;
  try {
    const inflated = guessed ? null : inflatedPart10(bytes);
    dataSet = inflated
      ? dicomParser.parseDicom(inflated, { inflater: (whole: Uint8Array) => whole })
      : dicomParser.parseDicom(bytes, guessed ? { TransferSyntaxUID: guessed, inflater } : { inflater });
  } catch (err) {
    // The inflater's own refusals (dicom-parser may wrap them as { exception }).
    if (err instanceof DicomRejection) throw err;
    const wrapped =
      err && typeof err === 'object' && 'exception' in err ? (err as { exception: unknown }).exception : null;
    if (wrapped instanceof DicomRejection) throw wrapped;
    const problem = problemOf(err);
    if (/overrun|past end|end of buffer|beyond/i.test(problem)) throw new DicomRejection(400, DicomMessages.truncated);
    if (/DICM|not a valid DICOM|transfer syntax/i.test(problem) && !/unsupported/i.test(problem))
      throw new DicomRejection(415, DicomMessages.notDicom);
    throw new DicomRejection(400, DicomMessages.malformed);
  }
  const transferSyntax = (guessed ?? dataSet.string('x00020010') ?? '').trim();
  if (!transferSyntax) throw new DicomRejection(415, DicomMessages.notDicom);
  // dicom-parser accepts any byte soup that happens to parse; a DICOM object names its SOP class or has pixels.
  if (!dataSet.elements.x00080016 && !dataSet.elements.x7fe00010 && !dataSet.elements.x00020002)
    throw new DicomRejection(415, DicomMessages.notDicom);
  return {
    dataSet,
    transferSyntax,
    byteArray: dataSet.byteArray,
    part10: part10 || !guessed,
    warnings: [...((dataSet as unknown as { warnings?: string[] }).warnings ?? [])],
  };
}

const str = (ds: DataSet, tag: string): string | null => {
  try {
    const v = ds.string(tag);
    return v === undefined || v === '' ? null : v.trim() || null;
  } catch {
    return null;
  }
};
const num = (ds: DataSet, tag: string): number | null => {
  const el = ds.elements[tag];
  if (!el || el.length === 0) return null;
  try {
    const v = el.length === 2 ? ds.uint16(tag) : el.length === 4 ? ds.uint32(tag) : undefined;
    return v === undefined || Number.isNaN(v) ? null : v;
  } catch {
    return null;
  }
};
const intString = (ds: DataSet, tag: string): number | null => {
  const v = str(ds, tag);
  if (v === null) return null;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : null;
};

/**
 * 'YYYY-MM-DD' when the four-, two- and two-digit parts name a day of the calendar in years 0001–9999
 * (what a PostgreSQL date column holds: year 0000 is out of its range), else null. No `Date.UTC`: it
 * reads years 0–99 as 1900–1999.
 */
export function calendarDate(year: string, month: string, day: string): string | null {
  const [y, m, d] = [Number(year), Number(month), Number(day)];
  if (y < 1 || m < 1 || m > 12 || d < 1) return null;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days ? `${year}-${month}-${day}` : null;
}

/**
 * A DA value ('YYYYMMDD', or the old 'YYYY.MM.DD') as 'YYYY-MM-DD', or null when it is no day of
 * the calendar: such a file is stored with the column empty, never refused for its date.
 */
export function dicomDate(value: string | null): string | null {
  if (!value) return null;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value.replace(/[.-]/g, ''));
  return m ? calendarDate(m[1]!, m[2]!, m[3]!) : null;
}

/** Non-PHI attributes kept in columns (and shown on list items). */
export interface DicomSummary {
  kind: 'image' | 'document';
  sopClassUid: string | null;
  sopInstanceUid: string | null;
  studyInstanceUid: string | null;
  seriesInstanceUid: string | null;
  modality: string | null;
  bodyPart: string | null;
  studyDate: string | null;
  rows: number | null;
  columns: number | null;
  frames: number | null;
  bitsAllocated: number | null;
  bitsStored: number | null;
  photometricInterpretation: string | null;
  transferSyntaxUid: string;
  burnedInAnnotation: boolean;
}

/** Attributes that identify the patient: read only for viewers of the content, never stored in columns or logged. */
export interface DicomPhi {
  patientName: string | null;
  patientId: string | null;
  patientBirthDate: string | null;
  patientSex: string | null;
  accessionNumber: string | null;
  institutionName: string | null;
  referringPhysicianName: string | null;
}

export interface Inspection {
  summary: DicomSummary;
  phi: DicomPhi;
  warnings: string[];
}

export function phiOf(ds: DataSet): DicomPhi {
  return {
    patientName: str(ds, 'x00100010'),
    patientId: str(ds, 'x00100020'),
    patientBirthDate: dicomDate(str(ds, 'x00100030')),
    patientSex: str(ds, 'x00100040'),
    accessionNumber: str(ds, 'x00080050'),
    institutionName: str(ds, 'x00080080'),
    referringPhysicianName: str(ds, 'x00080090'),
  };
}

/** Bytes of one frame of native pixel data. */
export function nativeFrameSize(ds: DataSet): number {
  const rows = num(ds, 'x00280010') ?? 0;
  const cols = num(ds, 'x00280011') ?? 0;
  const spp = num(ds, 'x00280002') ?? 1;
  const ba = num(ds, 'x00280100') ?? 0;
  return ba === 1 ? Math.ceil((rows * cols * spp) / 8) : rows * cols * spp * (ba / 8);
}

/** Checks a parsed object and reads what the upload keeps. Throws DicomRejection. */
/** A US value (0–65 535), else null. */
const withinUs = (value: number | null) => (value !== null && value >= 0 && value <= 0xffff ? value : null);
/** A bit count (at most 64 in any transfer syntax), else null. */
const bitsIn = (value: number | null) => (value !== null && value >= 0 && value <= 64 ? value : null);

export function inspect(parsed: ParsedDicom): Inspection {
  const { dataSet: ds, transferSyntax } = parsed;
  const sopClassUid = str(ds, 'x00080016') ?? str(ds, 'x00020002');
  if (sopClassUid === SopClass.mediaStorageDirectory || ds.elements.x00041220)
    throw new DicomRejection(415, DicomMessages.dicomdir);
  if (!isSupportedSyntax(transferSyntax))
    throw new DicomRejection(415, DicomMessages.unsupportedSyntax(transferSyntax.slice(0, 64)));
  const pixel = ds.elements.x7fe00010;
  // US values (a malformed file may give them four bytes): what does not fit their VR is unknown, not
  // a number for the integer columns to refuse (a document with Rows 3 000 000 000 answered 500).
  const rows = withinUs(num(ds, 'x00280010'));
  const columns = withinUs(num(ds, 'x00280011'));
  const bitsAllocated = bitsIn(num(ds, 'x00280100'));
  const frames = pixel ? Math.max(1, intString(ds, 'x00280008') ?? 1) : null;
  const summary: DicomSummary = {
    kind: pixel ? 'image' : 'document',
    sopClassUid,
    sopInstanceUid: str(ds, 'x00080018') ?? str(ds, 'x00020003'),
    studyInstanceUid: str(ds, 'x0020000d'),
    seriesInstanceUid: str(ds, 'x0020000e'),
    modality: str(ds, 'x00080060')?.slice(0, 16) ?? null,
    bodyPart: str(ds, 'x00180015')?.slice(0, 64) ?? null,
    studyDate: dicomDate(str(ds, 'x00080020')),
    rows,
    columns,
    frames,
    bitsAllocated,
    bitsStored: bitsIn(num(ds, 'x00280101')),
    photometricInterpretation: str(ds, 'x00280004')?.slice(0, 32) ?? null,
    transferSyntaxUid: transferSyntax,
    burnedInAnnotation: (str(ds, 'x00280301') ?? '').toUpperCase() === 'YES',
  };
  if (pixel) checkImage(parsed, pixel, summary);
  return { summary, phi: phiOf(ds), warnings: parsed.warnings };
}

function checkImage(parsed: ParsedDicom, pixel: Element, s: DicomSummary) {
  const ds = parsed.dataSet;
  const spp = num(ds, 'x00280002') ?? 1;
  if (
    !s.rows ||
    !s.columns ||
    !s.bitsAllocated ||
    ![1, 8, 16, 32].includes(s.bitsAllocated) ||
    (s.bitsStored !== null && (s.bitsStored < 1 || s.bitsStored > s.bitsAllocated)) ||
    ![1, 3].includes(spp) ||
    !s.photometricInterpretation ||
    !s.frames ||
    s.frames > 100_000
  )
    throw new DicomRejection(400, DicomMessages.badImage);
  if (s.rows * s.columns > MAX_FRAME_PIXELS) throw new DicomRejection(413, DicomMessages.tooLarge);
  const declared = nativeFrameSize(ds) * s.frames;
  if (declared > MAX_PIXEL_BYTES)
    throw new DicomRejection(413, DicomMessages.pixelBytes(Math.ceil(declared / 2 ** 20)));
  if (pixel.encapsulatedPixelData) {
    if (!pixel.fragments?.length) throw new DicomRejection(400, DicomMessages.noFrames);
    frameBytes(parsed, 0); // throws when frame 0 cannot be found
  } else {
    if (pixel.length < nativeFrameSize(ds) * s.frames) throw new DicomRejection(400, DicomMessages.pixelDataShort);
  }
}

export interface Frame {
  bytes: Uint8Array;
  /** Native frames are little endian after extraction (big endian data is swapped). */
  encapsulated: boolean;
}

/** The bytes of frame `index` (0-based): fragments of an encapsulated frame joined, native frames sliced. */
export function frameBytes(parsed: ParsedDicom, index: number): Frame {
  const ds = parsed.dataSet;
  const pixel = ds.elements.x7fe00010;
  if (!pixel) throw new DicomRejection(400, DicomMessages.noFrames);
  const frames = Math.max(1, intString(ds, 'x00280008') ?? 1);
  if (index < 0 || index >= frames) throw new RangeError('frame out of range');
  if (!pixel.encapsulatedPixelData) {
    const size = nativeFrameSize(ds);
    const start = pixel.dataOffset + index * size;
    if (start + size > pixel.dataOffset + pixel.length || start + size > parsed.byteArray.length)
      throw new DicomRejection(400, DicomMessages.pixelDataShort);
    // A view: callers copy only what they keep (the frames answer, bounded by its byte cap).
    let bytes = parsed.byteArray.subarray(start, start + size);
    const ba = num(ds, 'x00280100') ?? 8;
    if (parsed.transferSyntax === TransferSyntax.explicitBE && ba > 8) {
      const width = ba / 8;
      const swapped = new Uint8Array(bytes.length);
      for (let i = 0; i + width <= bytes.length; i += width)
        for (let j = 0; j < width; j++) swapped[i + j] = bytes[i + width - 1 - j]!;
      bytes = swapped;
    }
    return { bytes, encapsulated: false };
  }
  const fragments = pixel.fragments ?? [];
  try {
    if (frames === 1)
      return {
        bytes: dicomParser.readEncapsulatedPixelDataFromFragments(ds, pixel, 0, fragments.length),
        encapsulated: true,
      };
    if (pixel.basicOffsetTable?.length === frames)
      return {
        bytes: dicomParser.readEncapsulatedImageFrame(ds, pixel, index, pixel.basicOffsetTable),
        encapsulated: true,
      };
    if (fragments.length === frames)
      return { bytes: dicomParser.readEncapsulatedPixelDataFromFragments(ds, pixel, index, 1), encapsulated: true };
    // Several fragments per frame and no offset table: a JPEG frame starts with its SOI marker.
    const table = dicomParser.createJPEGBasicOffsetTable(ds, pixel);
    if (table.length !== frames) throw new Error('frames cannot be told apart');
    return { bytes: dicomParser.readEncapsulatedImageFrame(ds, pixel, index, table), encapsulated: true };
  } catch (err) {
    if (err instanceof DicomRejection) throw err;
    throw new DicomRejection(400, DicomMessages.noFrames);
  }
}

export interface FrameGeometry {
  rows: number;
  columns: number;
  samplesPerPixel: number;
  bitsAllocated: number;
}

/**
 * One RLE Lossless frame (PS3.5 Annex G) decoded to native little-endian bytes. Every byte of every
 * sample is its own segment (most significant byte first), so the frame comes out colour by plane
 * (all red, then all green, then all blue) whatever Planar Configuration says: the renderer is told
 * so (render.ts, decodedPlanarConfiguration). A header that does not match the frame is refused; a
 * segment that ends early leaves the rest of its plane at zero, as lenient readers do.
 */
export function decodeRleFrame(frame: Uint8Array, g: FrameGeometry): Uint8Array {
  const bytes = g.bitsAllocated / 8;
  const pixels = g.rows * g.columns;
  const segments = g.samplesPerPixel * bytes;
  if (!Number.isInteger(bytes) || segments > 15 || frame.length < 64)
    throw new DicomRejection(400, DicomMessages.malformed);
  const header = new DataView(frame.buffer, frame.byteOffset, 64);
  if (header.getUint32(0, true) !== segments) throw new DicomRejection(400, DicomMessages.malformed);
  const out = new Uint8Array(pixels * segments);
  for (let s = 0; s < segments; s++) {
    const start = header.getUint32(4 + 4 * s, true);
    const end = s + 1 < segments ? header.getUint32(8 + 4 * s, true) : frame.length;
    if (start < 64 || end < start || end > frame.length) throw new DicomRejection(400, DicomMessages.malformed);
    // Plane of sample s / bytes; within a pixel, the segment's byte counted from the least significant.
    let at = Math.floor(s / bytes) * pixels * bytes + (bytes - 1 - (s % bytes));
    const stop = at + pixels * bytes;
    let i = start;
    while (i < end && at < stop) {
      const control = frame[i++]!;
      if (control < 128) {
        // Literal run of control + 1 bytes.
        for (let n = control + 1; n > 0 && i < end && at < stop; n--, at += bytes) out[at] = frame[i++]!;
      } else if (control > 128 && i < end) {
        // Replicate run: the next byte 257 - control times (-127..-1 as a signed byte); 128 is a no-op.
        const value = frame[i++]!;
        for (let n = 257 - control; n > 0 && at < stop; n--, at += bytes) out[at] = value;
      }
    }
  }
  return out;
}

/** Preamble + 'DICM' + a File Meta group naming `transferSyntax`, built from the data set's SOP UIDs. */
function metaHeader(ds: DataSet, transferSyntax: string): Buffer {
  return part10Header(
    str(ds, 'x00080016') ?? str(ds, 'x00020002') ?? '1.2.840.10008.5.1.4.1.1.7',
    str(ds, 'x00080018') ?? str(ds, 'x00020003') ?? '2.25.0',
    transferSyntax,
  );
}

/**
 * Preamble + 'DICM' + a File Meta group (PS3.10 §7.1) for a data set of `transferSyntax`: what turns
 * a data set received by C-STORE (which carries no meta group) into a Part 10 file, its bytes after
 * the header left as they came.
 */
export function part10Header(sopClassUid: string, sopInstanceUid: string, transferSyntax: string): Buffer {
  const elements: Array<[number, string, Uint8Array]> = [];
  const text = (s: string, pad: number) => {
    const b = Buffer.from(s, 'latin1');
    return b.length % 2 ? Buffer.concat([b, Buffer.from([pad])]) : b;
  };
  elements.push([0x0001, 'OB', new Uint8Array([0, 1])]);
  elements.push([0x0002, 'UI', text(sopClassUid, 0)]);
  elements.push([0x0003, 'UI', text(sopInstanceUid, 0)]);
  elements.push([0x0010, 'UI', text(transferSyntax, 0)]);
  elements.push([0x0012, 'UI', text('2.25.288218140434406434717693574219440311001', 0)]);
  elements.push([0x0013, 'SH', text('MEDSHARE', 0x20)]);
  const encoded = elements.map(([el, vr, value]) => {
    const long = vr === 'OB';
    const head = Buffer.alloc(long ? 12 : 8);
    head.writeUInt16LE(0x0002, 0);
    head.writeUInt16LE(el, 2);
    head.write(vr, 4, 'latin1');
    if (long) head.writeUInt32LE(value.length, 8);
    else head.writeUInt16LE(value.length, 6);
    return Buffer.concat([head, value]);
  });
  const body = Buffer.concat(encoded);
  const groupLength = Buffer.alloc(12);
  groupLength.writeUInt16LE(0x0002, 0);
  groupLength.writeUInt16LE(0x0000, 2);
  groupLength.write('UL', 4, 'latin1');
  groupLength.writeUInt16LE(4, 6);
  groupLength.writeUInt32LE(body.length, 8);
  const preamble = Buffer.alloc(132);
  preamble.write('DICM', 128, 'latin1');
  return Buffer.concat([preamble, groupLength, body]);
}

/**
 * Preamble + 'DICM' + a File Meta group for a bare data set (files written without them), so that
 * Part 10 readers (dcmjs, WADO-RS clients) take it. Part 10 input is returned as it is.
 */
export function asPart10(input: Uint8Array, parsed: ParsedDicom): Uint8Array {
  if (input.length >= 132 && Buffer.from(input.subarray(128, 132)).toString('latin1') === 'DICM') return input;
  if (parsed.part10) return parsed.byteArray; // meta header without preamble: the copy with one
  return Buffer.concat([metaHeader(parsed.dataSet, parsed.transferSyntax), input]);
}

/**
 * The object as dcmjs should read it (rendering, the JSON model), as one fresh ArrayBuffer: every
 * attribute, but native pixel data cut to its first frame ('frame0') or to nothing ('none'), and a
 * deflated data set handed over already inflated (as Explicit VR Little Endian), so that dcmjs
 * neither holds every frame nor inflates the file a second time, without our bound.
 */
export function dcmjsSource(input: Uint8Array, parsed: ParsedDicom, keep: 'frame0' | 'none'): ArrayBuffer {
  const ds = parsed.dataSet;
  const pixel = ds.elements.x7fe00010;
  const deflated = parsed.transferSyntax === TransferSyntax.deflatedLE;
  if (!pixel || pixel.encapsulatedPixelData || pixel.hadUndefinedLength) {
    if (!deflated) {
      const whole = asPart10(input, parsed);
      return whole.buffer.slice(whole.byteOffset, whole.byteOffset + whole.byteLength) as ArrayBuffer;
    }
  }
  const bytes = parsed.byteArray;
  // Where the data set starts: after the File Meta group (none in a bare data set).
  let metaEnd = 0;
  for (const [tag, el] of Object.entries(ds.elements))
    if (tag.startsWith('x0002')) metaEnd = Math.max(metaEnd, el.dataOffset + el.length);
  const head =
    deflated || !parsed.part10
      ? metaHeader(ds, deflated ? TransferSyntax.explicitLE : parsed.transferSyntax)
      : bytes.subarray(0, metaEnd);
  const datasetStart = parsed.part10 ? metaEnd : 0;
  if (!pixel || pixel.encapsulatedPixelData || pixel.hadUndefinedLength) {
    const out = new Uint8Array(head.length + bytes.length - datasetStart);
    out.set(head, 0);
    out.set(bytes.subarray(datasetStart), head.length);
    return out.buffer;
  }
  const frame = nativeFrameSize(ds);
  const kept = keep === 'none' ? 0 : Math.min(pixel.length, frame + (frame % 2));
  const pixelEnd = pixel.dataOffset + pixel.length;
  const tail = bytes.subarray(Math.min(pixelEnd, bytes.length));
  const out = new Uint8Array(head.length + (pixel.dataOffset - datasetStart) + kept + tail.length);
  let at = 0;
  out.set(head, at);
  at += head.length;
  out.set(bytes.subarray(datasetStart, pixel.dataOffset), at);
  at += pixel.dataOffset - datasetStart;
  // The element's 32-bit length sits just before its value (explicit and implicit VR alike).
  const view = new DataView(out.buffer);
  view.setUint32(at - 4, kept, parsed.transferSyntax !== TransferSyntax.explicitBE);
  out.set(bytes.subarray(pixel.dataOffset, pixel.dataOffset + kept), at);
  at += kept;
  out.set(tail, at);
  return out.buffer;
}

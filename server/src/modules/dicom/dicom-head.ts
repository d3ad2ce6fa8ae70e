import dicomParser, { type DataSet } from 'dicom-parser';
import { Transform, type TransformCallback } from 'node:stream';
import { constants, inflateRawSync } from 'node:zlib';
import { TransferSyntax } from './dicom-core.ts';

/**
 * What an incoming instance says about itself before it is stored: enough to name it in a STOW
 * answer or a C-STORE log, to check it belongs to the study a STOW URL names, and to find its
 * patient (DIMSE). Read from the first bytes only (at most HEAD_LIMIT), on the request path, so it
 * walks attributes up to the Series Instance UID and never pixel data; the whole object is still
 * checked in the DICOM worker by the upload pipeline.
 */
export interface DicomHead {
  sopClassUid: string | null;
  sopInstanceUid: string | null;
  studyUid: string | null;
  seriesUid: string | null;
  modality: string | null;
  /** Patient ID (0010,0020): PHI, used only to compute the patient key and then dropped. */
  patientId: string | null;
  /** False when the first HEAD_LIMIT bytes did not reach past (0020,000E): the fields may be missing. */
  reached: boolean;
}

/** How far the head is read: attributes before the Study Instance UID are a few kilobytes in practice. */
export const HEAD_LIMIT = 1024 * 1024;
const PAST_SERIES_UID = 'x0020000e';
const VRS = new Set(
  'AE AS AT CS DA DS DT FD FL IS LO LT OB OD OF OL OV OW PN SH SL SQ SS ST SV TM UC UI UL UN UR US UT UV'.split(' '),
);
const UNKNOWN: DicomHead = {
  sopClassUid: null,
  sopInstanceUid: null,
  studyUid: null,
  seriesUid: null,
  modality: null,
  patientId: null,
  reached: false,
};

/** A deflated data set's first part, inflated as far as the bytes at hand go, never past 4 × HEAD_LIMIT. */
function partialInflater(bytes: Uint8Array, position: number): Uint8Array {
  const inflated = inflateRawSync(bytes.subarray(position), {
    finishFlush: constants.Z_SYNC_FLUSH,
    maxOutputLength: 4 * HEAD_LIMIT,
  });
  // Nothing inflated yet: dicom-parser would read the bytes before `position` as the data set.
  if (inflated.length === 0) throw new Error('no deflated bytes yet');
  const out = new Uint8Array(position + inflated.length);
  out.set(bytes.subarray(0, position), 0);
  out.set(inflated, position);
  return out;
}

const text = (ds: DataSet, tag: string): string | null => {
  try {
    const v = ds.string(tag)?.trim();
    return v ? v : null;
  } catch {
    return null;
  }
};

/**
 * The head of `bytes` (a Part 10 file, a meta group without preamble, or a bare data set), or null
 * when more bytes are needed. `complete`: these are all the bytes there are.
 */
export function readHead(bytes: Uint8Array, complete: boolean): DicomHead | null {
  // Fewer bytes than a Part 10 preamble and prefix cannot tell what they are yet.
  if (bytes.length < 132 && !complete) return null;
  let input = bytes;
  let guessed: string | undefined;
  const part10 = bytes.length >= 132 && Buffer.from(bytes.subarray(128, 132)).toString('latin1') === 'DICM';
  if (!part10) {
    if (bytes.length < 8) return complete ? UNKNOWN : null;
    const group = bytes[0]! | (bytes[1]! << 8);
    if (group === 0x0002) {
      input = new Uint8Array(132 + bytes.length);
      input.set([0x44, 0x49, 0x43, 0x4d], 128);
      input.set(bytes, 132);
    } else if (group === 0x0008) {
      guessed = VRS.has(String.fromCharCode(bytes[4]!, bytes[5]!))
        ? TransferSyntax.explicitLE
        : TransferSyntax.implicitLE;
    } else {
      return UNKNOWN;
    }
  }
  let ds: DataSet | undefined;
  try {
    ds = dicomParser.parseDicom(input, {
      // The last attribute the head needs: the ~130 after it (of a CT's ~265) cost 140 µs more per instance.
      untilTag: PAST_SERIES_UID,
      inflater: partialInflater,
      ...(guessed ? { TransferSyntaxUID: guessed } : {}),
    });
  } catch (err) {
    // dicom-parser hands over what it parsed before the bytes ran out.
    if (err && typeof err === 'object' && 'dataSet' in err) ds = (err as { dataSet: DataSet }).dataSet;
  }
  if (!ds) return complete ? UNKNOWN : null;
  // Reached: the Series Instance UID is read whole, or an attribute after it has begun. That the
  // parse ended is not enough: dicom-parser ends without an error on a value the bytes cut short.
  // Only elements that lie after the meta group count: of a deflated head cut short, dicom-parser's
  // partial data set also holds "elements" read from the preamble.
  const tags = Object.keys(ds.elements);
  const metaEnd = Math.max(0, ...tags.filter((t) => t.startsWith('x0002')).map((t) => ds.elements[t]!.dataOffset));
  const series = ds.elements[PAST_SERIES_UID];
  const reached =
    (series !== undefined && series.dataOffset + series.length <= ds.byteArray.length) ||
    tags.some((t) => t > PAST_SERIES_UID && ds.elements[t]!.dataOffset > metaEnd);
  if (!reached && !complete) return null;
  return {
    sopClassUid: text(ds, 'x00080016') ?? text(ds, 'x00020002'),
    sopInstanceUid: text(ds, 'x00080018') ?? text(ds, 'x00020003'),
    studyUid: text(ds, 'x0020000d'),
    seriesUid: text(ds, PAST_SERIES_UID),
    modality: text(ds, 'x00080060'),
    patientId: text(ds, 'x00100020'),
    reached,
  };
}

/**
 * A pass-through for an instance on its way to the store that reads its head on the side: the
 * bytes are kept only until the head is read (at most HEAD_LIMIT), the parse retried each time the
 * kept bytes double. `check` may refuse the instance once its head is known (the stream then fails
 * with that error, so the upload stores nothing); it runs at the latest when the stream ends.
 */
export class HeadProbe extends Transform {
  readonly head: Promise<DicomHead>;
  private resolveHead!: (head: DicomHead) => void;
  private kept: Buffer[] = [];
  private keptBytes = 0;
  private nextTry = 4096;
  private known: DicomHead | null = null;
  private readonly check: (head: DicomHead) => Error | null;

  constructor(check: (head: DicomHead) => Error | null = () => null) {
    super();
    this.check = check;
    this.head = new Promise((resolve) => (this.resolveHead = resolve));
  }

  private settle(head: DicomHead): Error | null {
    this.known = head;
    this.kept = [];
    this.resolveHead(head);
    return this.check(head);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.known === null && this.keptBytes < HEAD_LIMIT) {
      this.kept.push(chunk);
      this.keptBytes += chunk.length;
      if (this.keptBytes >= this.nextTry || this.keptBytes >= HEAD_LIMIT) {
        this.nextTry = this.keptBytes * 2;
        // Usually the first piece holds the head: read it in place (Buffer.concat copies even one).
        const bytes = this.kept.length === 1 ? this.kept[0]! : Buffer.concat(this.kept);
        const head = readHead(bytes.subarray(0, HEAD_LIMIT), this.keptBytes >= HEAD_LIMIT);
        if (head) {
          const refused = this.settle(head);
          if (refused) return done(refused);
        }
      }
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.known === null) {
      const refused = this.settle(readHead(Buffer.concat(this.kept), true) ?? UNKNOWN);
      if (refused) return done(refused);
    }
    done();
  }

  override _destroy(err: Error | null, done: (error: Error | null) => void): void {
    // A part cut short still answers what was read of it (its UIDs name the failure).
    if (this.known === null) this.settle(readHead(Buffer.concat(this.kept), true) ?? UNKNOWN);
    done(err);
  }
}

import dcmjs from 'dcmjs';
import { createDeflateRaw, deflateRawSync } from 'node:zlib';
import { TransferSyntax } from './dicom-core.ts';

/**
 * Deflated Explicit VR Little Endian objects for the memory-bound tests, built with dcmjs (the
 * attributes) and zlib (the data set, pixel data included, deflated as a stream: the zeros are
 * never held whole). `pixelBytes` may differ from what rows × columns × frames declare (a lying header).
 */
export async function deflatedDicom(o: {
  rows: number;
  columns: number;
  frames?: number;
  pixelBytes?: number;
  sopInstanceUid?: string;
}): Promise<Buffer> {
  const frames = o.frames ?? 1;
  const pixelBytes = o.pixelBytes ?? o.rows * o.columns * frames;
  const uid = o.sopInstanceUid ?? `2.25.${BigInt(`0x${crypto.randomUUID().replace(/-/g, '')}`)}`;
  const el = (vr: string, value: unknown) => ({ vr, Value: [value] });
  const sopClass = '1.2.840.10008.5.1.4.1.1.7';
  // The attributes as dcmjs writes them (Explicit VR Little Endian), without pixel data.
  const dict = new dcmjs.data.DicomDict({
    '00020001': { vr: 'OB', Value: [new Uint8Array([0, 1]).buffer] },
    '00020002': el('UI', sopClass),
    '00020003': el('UI', uid),
    '00020010': el('UI', TransferSyntax.explicitLE),
    '00020012': el('UI', '2.25.1'),
  });
  dict.dict = {
    '00080016': el('UI', sopClass),
    '00080018': el('UI', uid),
    '00080060': el('CS', 'OT'),
    '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Bound^Memory' }] },
    '00100020': el('LO', 'MEM-1'),
    '0020000D': el('UI', `${uid}.1`),
    '0020000E': el('UI', `${uid}.2`),
    '00280002': el('US', 1),
    '00280004': el('CS', 'MONOCHROME2'),
    '00280008': el('IS', String(frames)),
    '00280010': el('US', o.rows),
    '00280011': el('US', o.columns),
    '00280100': el('US', 8),
    '00280101': el('US', 8),
    '00280102': el('US', 7),
    '00280103': el('US', 0),
  };
  const written = Buffer.from(dict.write());
  const metaEnd = 132 + 12 + written.readUInt32LE(140);
  const attributes = written.subarray(metaEnd);
  const pixelHeader = Buffer.alloc(12);
  pixelHeader.writeUInt16LE(0x7fe0, 0);
  pixelHeader.writeUInt16LE(0x0010, 2);
  pixelHeader.write('OB', 4, 'latin1');
  pixelHeader.writeUInt32LE(pixelBytes + (pixelBytes % 2), 8);

  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const write = (b: Buffer) =>
    new Promise<void>((resolve) => (deflate.write(b) ? resolve() : deflate.once('drain', resolve)));
  await write(Buffer.from(attributes));
  await write(pixelHeader);
  const zeros = Buffer.alloc(1 << 20);
  for (let left = pixelBytes + (pixelBytes % 2); left > 0; left -= zeros.length)
    await write(left >= zeros.length ? zeros : zeros.subarray(0, left));
  deflate.end();
  await done;
  return Buffer.concat([metaGroup(sopClass, uid, TransferSyntax.deflatedLE), ...out]);
}

/** Preamble, 'DICM' and a File Meta group naming `ts` (dcmjs would write the data set with it). */
function metaGroup(sopClass: string, uid: string, ts: string): Buffer {
  const dict = new dcmjs.data.DicomDict({
    '00020001': { vr: 'OB', Value: [new Uint8Array([0, 1]).buffer] },
    '00020002': { vr: 'UI', Value: [sopClass] },
    '00020003': { vr: 'UI', Value: [uid] },
    '00020010': { vr: 'UI', Value: [ts] },
    '00020012': { vr: 'UI', Value: ['2.25.1'] },
  });
  dict.dict = {};
  const written = Buffer.from(dict.write());
  return written.subarray(0, 132 + 12 + written.readUInt32LE(140));
}

/** VRs whose length is 32-bit in Explicit VR Little Endian (PS3.5 Table 7.1-1). */
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'UC', 'UN', 'UR', 'UT']);

/** One Explicit VR Little Endian element, written by hand: values of any length (dcmjs refuses over-long ones). */
export function rawElement(tag: string, vr: string, value: string | Buffer): Buffer {
  let bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  if (bytes.length % 2) bytes = Buffer.concat([bytes, Buffer.from([vr === 'UI' || vr === 'OB' ? 0 : 0x20])]);
  const long = LONG_VRS.has(vr);
  const head = Buffer.alloc(long ? 12 : 8);
  head.writeUInt16LE(Number.parseInt(tag.slice(0, 4), 16), 0);
  head.writeUInt16LE(Number.parseInt(tag.slice(4), 16), 2);
  head.write(vr, 4, 'latin1');
  if (long) head.writeUInt32LE(bytes.length, 8);
  else head.writeUInt16LE(bytes.length, 6);
  return Buffer.concat([head, bytes]);
}

/**
 * An 8-bit MONOCHROME2 secondary-capture image in Explicit VR Little Endian (or deflated), its data
 * set written by hand so that `extra` elements (sorted in by tag) may be as long as a test needs.
 */
export function rawDicom(o: {
  rows?: number;
  columns?: number;
  frames?: number;
  study?: string;
  series?: string;
  sop?: string;
  extra?: Array<[string, string, string | Buffer]>;
  deflate?: boolean;
}): Buffer {
  const rows = o.rows ?? 2;
  const columns = o.columns ?? 2;
  const frames = o.frames ?? 1;
  const sop = o.sop ?? `2.25.${BigInt(`0x${crypto.randomUUID().replace(/-/g, '')}`)}`;
  const us = (n: number) => Buffer.from([n & 0xff, n >> 8]);
  const sopClass = '1.2.840.10008.5.1.4.1.1.7';
  const elements: Array<[string, string, string | Buffer]> = [
    ['00080016', 'UI', sopClass],
    ['00080018', 'UI', sop],
    ['00080060', 'CS', 'OT'],
    ['00100010', 'PN', 'Raw^Bounds'],
    ['00100020', 'LO', 'RAW-1'],
    ['0020000D', 'UI', o.study ?? `${sop}.1`],
    ['0020000E', 'UI', o.series ?? `${sop}.2`],
    ['00280002', 'US', us(1)],
    ['00280004', 'CS', 'MONOCHROME2'],
    ['00280008', 'IS', String(frames)],
    ['00280010', 'US', us(rows)],
    ['00280011', 'US', us(columns)],
    ['00280100', 'US', us(8)],
    ['00280101', 'US', us(8)],
    ['00280102', 'US', us(7)],
    ['00280103', 'US', us(0)],
    ['7FE00010', 'OB', Buffer.alloc(rows * columns * frames)],
    ...(o.extra ?? []),
  ];
  elements.sort((a, b) => a[0].localeCompare(b[0]));
  const data = Buffer.concat(elements.map(([tag, vr, value]) => rawElement(tag, vr, value)));
  const ts = o.deflate ? TransferSyntax.deflatedLE : TransferSyntax.explicitLE;
  return Buffer.concat([metaGroup(sopClass, sop, ts), o.deflate ? deflateRawSync(data, { level: 1 }) : data]);
}

/**
 * DICOM PS3.15 Annex E, Basic Application Level Confidentiality Profile: every row of Table E.1-1
 * (confidentiality-profile.json, resolved to one action each in confidentiality-profile.ts),
 * applied at every level of the data set: sequence items are cleaned like the top level, and a
 * sequence whose action is X goes whole. Private attributes (odd groups) are removed everywhere,
 * none retained. Beyond the table, conservatively: every remaining person name and every
 * remaining date and date-time is emptied (no "retain longitudinal temporal information"
 * option), and every remaining UID outside the DICOM root 1.2.840.10008 is replaced like the
 * listed ones (so references inside sequences stay consistent).
 */
import dcmjs from 'dcmjs';
import { type KeyObject, createHmac, createSecretKey } from 'node:crypto';
import { type Action, PROFILE, rangeAction } from './confidentiality-profile.ts';
import { type ParsedDicom, TransferSyntax, asPart10 } from './dicom-core.ts';

export { PROFILE } from './confidentiality-profile.ts';

/** (0012,0063) is LO: at most 64 characters. */
export const DEIDENTIFICATION_METHOD = 'MedShare: DICOM PS3.15 Annex E Basic Profile, Table E.1-1';

/** 2.25.<decimal> of the first 128 bits of HMAC-SHA256(key, scope | uid): stable per scope, not reversible. */
export function mappedUid(key: Uint8Array | KeyObject, scope: string, uid: string): string {
  const digest = createHmac('sha256', key).update(`${scope}\0${uid}`).digest();
  return `2.25.${BigInt(`0x${digest.subarray(0, 16).toString('hex')}`).toString(10)}`;
}

interface DictElement {
  vr: string;
  Value?: unknown[];
}
type Dict = Record<string, DictElement>;

export const IMPLEMENTATION_CLASS_UID = '2.25.288218140434406434717693574219440311001';

/** UIDs that name classes and syntaxes, not instances: kept as they are. */
const CLASS_UID_TAGS = new Set([
  '00020002',
  '00020010',
  '00020012',
  '00080016',
  '0008001A',
  '0008001B',
  '00080062',
  '00081150',
  '00041510',
  '00041512',
]);

function explicitHeader(vr: string, length: number): Buffer {
  const h = Buffer.alloc(12);
  h.writeUInt16LE(0x7fe0, 0);
  h.writeUInt16LE(0x0010, 2);
  h.write(vr, 4, 'latin1');
  h.writeUInt32LE(length, 8);
  return h;
}
function item(group: number, element: number, body: Uint8Array): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16LE(group, 0);
  h.writeUInt16LE(element, 2);
  h.writeUInt32LE(body.length, 4);
  return Buffer.concat([h, body]);
}

/** (7FE0,0010) in Explicit VR Little Endian, from the source's bytes: fragments as they were, native words swapped from big endian. */
function pixelElement(parsed: ParsedDicom): Uint8Array {
  const ds = parsed.dataSet;
  const pixel = ds.elements.x7fe00010;
  if (!pixel) return new Uint8Array(0);
  if (pixel.encapsulatedPixelData) {
    const table = Buffer.alloc(4 * (pixel.basicOffsetTable?.length ?? 0));
    (pixel.basicOffsetTable ?? []).forEach((v, i) => table.writeUInt32LE(v, i * 4));
    const fragments = (pixel.fragments ?? []).map((f) =>
      item(0xfffe, 0xe000, parsed.byteArray.subarray(f.position, f.position + f.length)),
    );
    return Buffer.concat([
      explicitHeader('OB', 0xffffffff),
      item(0xfffe, 0xe000, table),
      ...fragments,
      item(0xfffe, 0xe0dd, new Uint8Array(0)),
    ]);
  }
  const bitsAllocated = ds.uint16('x00280100') ?? 8;
  let data = Buffer.from(parsed.byteArray.subarray(pixel.dataOffset, pixel.dataOffset + pixel.length));
  if (parsed.transferSyntax === TransferSyntax.explicitBE && bitsAllocated === 16) data = Buffer.from(data).swap16();
  else if (parsed.transferSyntax === TransferSyntax.explicitBE && bitsAllocated === 32)
    data = Buffer.from(data).swap32();
  if (data.length % 2) data = Buffer.concat([data, Buffer.alloc(1)]);
  return Buffer.concat([explicitHeader(bitsAllocated > 8 ? 'OW' : 'OB', data.length), data]);
}

const BINARY_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'UN', 'AT']);
const NUMBER_VRS = new Set(['US', 'SS', 'UL', 'SL', 'FL', 'FD', 'SV', 'UV', 'IS', 'DS']);

/** A D action's value: one dummy valid for the VR (binary values have none that means anything: emptied). */
function dummy(vr: string, values: unknown[] | undefined, mapUid: (uid: string) => string): unknown[] {
  if (vr === 'UI') return (values ?? []).filter((v) => typeof v === 'string' && v).map((v) => mapUid(v as string));
  if (BINARY_VRS.has(vr)) return [];
  if (NUMBER_VRS.has(vr)) return [0];
  switch (vr) {
    case 'PN':
      return [{ Alphabetic: 'ANONYMIZED' }];
    case 'DA':
      return ['19000101'];
    case 'TM':
      return ['000000'];
    case 'DT':
      return ['19000101000000'];
    case 'AS':
      return ['000Y'];
    default:
      return ['ANONYMIZED'];
  }
}

function cleanItems(element: DictElement, mapUid: (uid: string) => string) {
  for (const item of element.Value ?? []) if (item && typeof item === 'object') clean(item as Dict, mapUid, false);
}

function clean(dict: Dict, mapUid: (uid: string) => string, meta: boolean) {
  for (const tag of Object.keys(dict)) {
    const element = dict[tag]!;
    const upper = tag.toUpperCase();
    const group = Number.parseInt(upper.slice(0, 4), 16);
    // Table E.1-1 "(gggg,eeee) where gggg is odd": X, with no safe private attribute retained.
    if (!meta && group % 2 === 1) {
      delete dict[tag];
      continue;
    }
    const action: Action | null = PROFILE.get(upper)?.action ?? rangeAction(upper);
    switch (action) {
      case 'X':
        delete dict[tag];
        continue;
      case 'Z':
        element.Value = [];
        continue;
      case 'D':
        element.Value = dummy(element.vr, element.Value, mapUid);
        continue;
      case 'U':
        // A UID row holding something else (a UN read from an implicit object) cannot be mapped: removed.
        if (element.vr !== 'UI') delete dict[tag];
        else element.Value = (element.Value ?? []).map((v) => (typeof v === 'string' && v ? mapUid(v) : v));
        continue;
      case 'U*':
        cleanItems(element, mapUid);
        continue;
      case 'K':
        continue;
      case null:
        break;
    }
    if (element.vr === 'UI' && Array.isArray(element.Value) && !CLASS_UID_TAGS.has(upper)) {
      element.Value = element.Value.map((v) =>
        typeof v === 'string' && v && !v.startsWith('1.2.840.10008.') ? mapUid(v) : v,
      );
      continue;
    }
    if (element.vr === 'PN' || element.vr === 'DA' || element.vr === 'DT') {
      if (Array.isArray(element.Value) && element.Value.length) element.Value = [];
      continue;
    }
    if (element.vr === 'SQ') cleanItems(element, mapUid);
  }
}

export interface DeidentifyResult {
  bytes: Uint8Array;
  studyInstanceUid: string | null;
  seriesInstanceUid: string | null;
  sopInstanceUid: string | null;
}

/**
 * A de-identified Part 10 copy. Native big-endian, implicit and deflated objects are rewritten as
 * Explicit VR Little Endian (pixel words swapped when needed); encapsulated pixel data is kept as
 * it is (the fragments are copied, never re-encoded).
 */
export function deidentify(input: Uint8Array, parsed: ParsedDicom, key: Uint8Array, scope: string): DeidentifyResult {
  const part10 = asPart10(input, parsed);
  const buffer = part10.buffer.slice(part10.byteOffset, part10.byteOffset + part10.byteLength) as ArrayBuffer;
  const message = dcmjs.data.DicomMessage.readFile(buffer, { ignoreErrors: true });
  const dict = message.dict as Dict;
  const metaDict = message.meta as Dict;
  const cache = new Map<string, string>();
  // One KeyObject for every UID of the object (a raw key costs 20 µs more per HMAC: crypto/envelope.ts keyObjectOf).
  const uidKey = createSecretKey(key);
  const mapUid = (uid: string) => {
    const clean = uid.replace(/\0/g, '').trim();
    let m = cache.get(clean);
    if (!m) {
      m = mappedUid(uidKey, scope, clean);
      cache.set(clean, m);
    }
    return m;
  };
  clean(dict, mapUid, false);
  clean(metaDict, mapUid, true);

  const ts = parsed.transferSyntax;
  if (ts === TransferSyntax.implicitLE || ts === TransferSyntax.explicitBE || ts === TransferSyntax.deflatedLE) {
    metaDict['00020010'] = { vr: 'UI', Value: [TransferSyntax.explicitLE] };
  }
  dict['00120062'] = { vr: 'CS', Value: ['YES'] };
  dict['00120063'] = { vr: 'LO', Value: [DEIDENTIFICATION_METHOD] };
  dict['00120064'] = {
    vr: 'SQ',
    Value: [
      {
        '00080100': { vr: 'SH', Value: ['113100'] },
        '00080102': { vr: 'SH', Value: ['DCM'] },
        '00080104': { vr: 'LO', Value: ['Basic Application Confidentiality Profile'] },
      },
    ],
  };
  // Keep the meta header's instance UID equal to the data set's.
  const sop = (dict['00080018']?.Value?.[0] as string | undefined) ?? null;
  if (sop) metaDict['00020003'] = { vr: 'UI', Value: [sop] };
  metaDict['00020012'] = { vr: 'UI', Value: [IMPLEMENTATION_CLASS_UID] };
  metaDict['00020013'] = { vr: 'SH', Value: ['MEDSHARE'] };
  // Pixel data is copied from the source bytes, not re-encoded by dcmjs (which re-fragments
  // encapsulated frames); nothing after it (padding, signatures) is kept.
  for (const tag of Object.keys(dict)) if (tag.toUpperCase() >= '7FE00010') delete dict[tag];
  const out = new dcmjs.data.DicomDict(metaDict);
  out.dict = dict;
  const head = new Uint8Array(out.write({ allowInvalidVRLength: true }));
  const pixels = pixelElement(parsed);
  const written = new Uint8Array(head.length + pixels.length);
  written.set(head, 0);
  written.set(pixels, head.length);
  return {
    bytes: written,
    studyInstanceUid: (dict['0020000D']?.Value?.[0] as string | undefined) ?? null,
    seriesInstanceUid: (dict['0020000E']?.Value?.[0] as string | undefined) ?? null,
    sopInstanceUid: sop,
  };
}

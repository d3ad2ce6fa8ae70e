import dcmjs from 'dcmjs';
import type { DataSet, Element } from 'dicom-parser';
import { type ParsedDicom, TransferSyntax, dcmjsSource } from './dicom-core.ts';
import { capText, textCapOf } from './text-caps.ts';

/** An attribute of the DICOM JSON model (PS3.18 Annex F). */
export interface JsonAttribute {
  vr: string;
  Value?: unknown[];
  InlineBinary?: string;
}
export type DicomJson = Record<string, JsonAttribute>;

const BINARY = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'UN']);
/** Binary values up to this size are sent inline (base64); larger ones (pixel data) are left out. */
const INLINE_MAX = 4096;

/** A value as kept: strings and each component group of a person name capped; numbers and the rest as they are. */
function capValue(value: unknown, max: number): unknown {
  if (typeof value === 'string') return capText(value, max);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const name = value as Record<string, unknown>;
    if (['Alphabetic', 'Ideographic', 'Phonetic'].some((k) => typeof name[k] === 'string'))
      return Object.fromEntries(Object.entries(name).map(([k, v]) => [k, typeof v === 'string' ? capText(v, max) : v]));
  }
  return value;
}

function convert(dict: Record<string, { vr: string; Value?: unknown[] }>): DicomJson {
  const out: DicomJson = {};
  for (const tag of Object.keys(dict).sort()) {
    const element = dict[tag]!;
    const key = tag.toUpperCase();
    if (BINARY.has(element.vr)) {
      const first = element.Value?.[0];
      const bytes = first instanceof ArrayBuffer ? new Uint8Array(first) : null;
      out[key] =
        bytes && bytes.length <= INLINE_MAX && key !== '7FE00010'
          ? { vr: element.vr, InlineBinary: Buffer.from(bytes).toString('base64') }
          : { vr: element.vr };
      continue;
    }
    if (element.vr === 'SQ') {
      out[key] = {
        vr: 'SQ',
        ...(element.Value?.length
          ? { Value: element.Value.map((item) => convert(item as Record<string, { vr: string; Value?: unknown[] }>)) }
          : {}),
      };
      continue;
    }
    const max = textCapOf(element.vr);
    const values = (element.Value ?? [])
      .filter((v) => v !== undefined && v !== null && v !== '')
      .map((v) => capValue(v, max));
    out[key] = values.length ? { vr: element.vr, Value: values } : { vr: element.vr };
  }
  return out;
}

/** An attribute as dcmjs reads it (the input of `convert`): binary values as ArrayBuffers, person names as objects. */
type ReadAttribute = { vr: string; Value?: unknown[] };
type ReadDict = Record<string, ReadAttribute>;

/**
 * dcmjs's reading of the data set: the reference for `readParsed`, and the reader of every object
 * that one declines. Native pixel data is left out before dcmjs reads the object.
 */
export function readWithDcmjs(input: Uint8Array, parsed: ParsedDicom): ReadDict {
  const message = dcmjs.data.DicomMessage.readFile(dcmjsSource(input, parsed, 'none'), { ignoreErrors: true });
  return message.dict as ReadDict;
}

/** The VRs dcmjs 0.51 has a reader for; it reads any other (OL, OV, SV, a dictionary's 'lt') as UN. */
const DCMJS_VRS = new Set(
  'AE AS AT CS DA DS DT FD FL IS LO LT OB OD OF OW PN SH SL SQ SS ST TM UC UI UL UN UR US UT UV'.split(' '),
);
/** Text VRs read byte for byte (dcmjs readAsciiString); the others are decoded by the character set. */
const ASCII_VRS = new Set(['AE', 'AS', 'CS', 'DA', 'DS', 'DT', 'IS', 'TM', 'UI', 'UR']);
const ENCODED_VRS = new Set(['LO', 'LT', 'PN', 'SH', 'ST', 'UC', 'UT']);
/** Binary numbers: bytes per value and how one is read (little endian). */
const NUMBERS: Readonly<Record<string, { size: number; read: (v: DataView, at: number) => number }>> = {
  US: { size: 2, read: (v, at) => v.getUint16(at, true) },
  SS: { size: 2, read: (v, at) => v.getInt16(at, true) },
  UL: { size: 4, read: (v, at) => v.getUint32(at, true) },
  SL: { size: 4, read: (v, at) => v.getInt32(at, true) },
  FL: { size: 4, read: (v, at) => v.getFloat32(at, true) },
  FD: { size: 8, read: (v, at) => v.getFloat64(at, true) },
  // dcmjs gives an attribute tag as one number, group × 65 536 + element.
  AT: { size: 4, read: (v, at) => v.getUint16(at, true) * 65_536 + v.getUint16(at + 2, true) },
};
/** Multiple values whose last one is padded to an even length lose that pad (dcmjs dropPadByte); the VRs with a maximum. */
const PAD_DROPPED: Readonly<Record<string, string>> = {
  AE: ' ',
  AS: ' ',
  CS: ' ',
  DA: ' ',
  DS: ' ',
  DT: ' ',
  IS: ' ',
  LO: ' ',
  SH: ' ',
  ST: ' ',
  TM: ' ',
  UI: '\0',
};
/** The character sets read here (dcmjs's mapping, by the first value normalised); any other is left to dcmjs. */
const DECODERS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    '': 'iso-8859-1',
    'iso-ir-6': 'iso-8859-1',
    'iso-2022-ir-6': 'iso-8859-1',
    'iso-ir-100': 'latin1',
    'iso-2022-ir-100': 'latin1',
    'iso-ir-192': 'utf-8',
  }),
);
const decoders = new Map<string, InstanceType<typeof TextDecoder>>();
const decoderFor = (label: string) => {
  let decoder = decoders.get(label);
  if (!decoder) decoders.set(label, (decoder = new TextDecoder(label)));
  return decoder;
};
const rtrim = (s: string) => s.replace(/\s*$/g, '');
const numberOf = (s: string) => {
  const kept = s.trim().replace(/[^0-9.\\\-+e]/gi, '');
  return kept === '' ? null : Number(kept);
};

/** What `readParsed` does not read as dcmjs would: the object goes to dcmjs instead. */
class Decline extends Error {}

function dropPad(values: string[], vr: string): string[] {
  const pad = PAD_DROPPED[vr];
  if (pad === undefined || values.length < 2) return values;
  const last = values[values.length - 1]!;
  if (last.length % 2 !== 0 && last.endsWith(pad)) values[values.length - 1] = last.slice(0, -1);
  return values;
}

/** A text value as dcmjs makes it, from its decoded (or byte-for-byte) string. */
function textValues(vr: string, s: string): unknown[] {
  switch (vr) {
    case 'AE':
    case 'LO':
    case 'SH':
      return dropPad(s.trim().split('\\'), vr);
    case 'CS':
      return dropPad(s.split('\\'), vr).map((v) => v.trim());
    case 'DS':
    case 'IS':
      return dropPad(s.split('\\'), vr).map(numberOf);
    case 'AS':
    case 'DA':
    case 'DT':
    case 'UR':
      return dropPad(s.split('\\'), vr);
    case 'ST':
    case 'TM':
    case 'UC':
    case 'UT':
      return dropPad(rtrim(s).split('\\'), vr);
    case 'LT':
      return [rtrim(s)];
    case 'UI': {
      const unpadded = s.endsWith('\0') ? s.slice(0, -1) : s;
      return dropPad(unpadded.split('\\'), vr).map((v) => v.replace(/[^0-9.]/g, ''));
    }
    case 'PN': {
      const unpadded = s.endsWith(' ') ? s.slice(0, -1) : s;
      return unpadded
        .split('\\')
        .filter(Boolean)
        .map((v) => {
          const [alphabetic, ideographic, phonetic] = v.split('=');
          return {
            ...(alphabetic ? { Alphabetic: alphabetic } : {}),
            ...(ideographic ? { Ideographic: ideographic } : {}),
            ...(phonetic ? { Phonetic: phonetic } : {}),
          };
        });
    }
  }
  throw new Decline(vr);
}

/** The standard dictionary's VR of a dicom-parser tag ('x00100010'), as dcmjs looks it up. */
const dictionaryVr = (tag: string): string | undefined =>
  dcmjs.data.DicomMetaDictionary.dictionary[`(${tag.slice(1, 5)},${tag.slice(5, 9)})`.toUpperCase()]?.vr;

/** The VR dcmjs gives an element of an implicit VR data set (its dictionary, else its fallbacks). */
function implicitVr(tag: string, element: Element): string {
  const group = Number.parseInt(tag.slice(1, 5), 16);
  const number = Number.parseInt(tag.slice(5, 9), 16);
  const known = dictionaryVr(tag);
  if (known === 'ox') return 'OW';
  if (known === 'xs') return 'US';
  // Any other the reader has no class for ('lt', 'up', OL…) becomes UN with DCMJS_VRS, as in dcmjs.
  if (known) return known;
  if (element.hadUndefinedLength) {
    // dicom-parser keeps no items of a private sequence; dcmjs reads them.
    if (group % 2 === 1) throw new Decline(tag);
    return 'SQ';
  }
  if (tag === 'x7fe00010') return 'OW';
  if (group % 2 === 1 && number > 0 && number < 0x100) return 'LO';
  return 'UN';
}

/**
 * The data set in the form dcmjs reads it, made from the parse the upload check already did
 * (dicom-parser), so that an object is parsed once: the same VRs, values and text rules as dcmjs
 * 0.51 (held to it across the fixtures by dicom-json.test.ts). Declines (null) what it does not
 * read the same way: big endian, character sets other than Latin-1 and UTF-8 (or one inside an
 * item), explicit UN of a known attribute, binary values of undefined length, private sequences of
 * undefined length in implicit VR, UV, numbers of a length that is no multiple of their size.
 */
export function readParsed(parsed: ParsedDicom): ReadDict | null {
  if (parsed.transferSyntax === TransferSyntax.explicitBE) return null;
  const implicit = parsed.transferSyntax === TransferSyntax.implicitLE;
  const bytes = parsed.byteArray;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const top = parsed.dataSet;
  const latin1 = decoderFor('latin1');
  /**
   * The data set's character set, for its items' text as well (PS3.5 §6.1.2.5.1): dcmjs decodes
   * the text inside items as Latin-1 whatever the set, so a UTF-8 name in an item is read right here
   * and garbled by dcmjs (a known difference, held by dicom-json.test.ts; docs/decisions.md › DICOM
   * JSON from the one parse lists both).
   */
  const topDecoder = (): InstanceType<typeof TextDecoder> => {
    const charset = top.elements.x00080005;
    if (!charset) return latin1;
    const values = Buffer.from(bytes.buffer, bytes.byteOffset + charset.dataOffset, charset.length)
      .toString('latin1')
      .split('\\')
      .map((v) => v.trim());
    const label = DECODERS.get(values[0]!.replace(/[_ ]/g, '-').toLowerCase());
    if (values.length > 1 || label === undefined) throw new Decline('character set');
    return decoderFor(label);
  };

  const read = (ds: DataSet, nested: boolean, decoder: InstanceType<typeof TextDecoder>): ReadDict => {
    const out: ReadDict = {};
    for (const tag of Object.keys(ds.elements)) {
      if (!nested && tag.startsWith('x0002')) continue;
      // dicom-parser keeps an item's delimiter as an element of the item.
      if (nested && tag === 'xfffee00d') continue;
      if (nested && tag === 'x00080005') throw new Decline(tag);
      const element = ds.elements[tag]!;
      const key = tag.slice(1).toUpperCase();
      const stated = implicit ? implicitVr(tag, element) : element.vr;
      if (!stated) throw new Decline(tag);
      // dcmjs reads an explicit UN of a known attribute again by its dictionary VR.
      if (stated === 'UN' && !implicit && dictionaryVr(tag)) throw new Decline(tag);
      const vr = DCMJS_VRS.has(stated) ? stated : 'UN';
      if (tag === 'x00080005' && !nested) {
        out[key] = { vr: 'CS', Value: ['ISO_IR 192'] };
        continue;
      }
      if (tag === 'x7fe00010') {
        out[key] = { vr, Value: [] };
        continue;
      }
      if (vr === 'SQ') {
        if (!element.items && element.length > 0) throw new Decline(tag);
        // dcmjs keeps no empty item (nothing between the item's start and its end).
        const items = (element.items ?? []).filter((item) =>
          Object.keys(item.dataSet?.elements ?? {}).some((t) => t !== 'xfffee00d'),
        );
        out[key] = { vr, Value: items.map((item) => read(item.dataSet!, true, decoder)) };
        continue;
      }
      const { dataOffset: at, length } = element;
      if (element.hadUndefinedLength) throw new Decline(tag);
      const number = NUMBERS[vr];
      if (number) {
        if (length === 0) {
          out[key] = { vr, Value: vr === 'AT' ? [] : [0] };
          continue;
        }
        if (length % number.size !== 0) throw new Decline(tag);
        const values: number[] = [];
        for (let i = 0; i < length; i += number.size) values.push(number.read(view, at + i));
        out[key] = { vr, Value: values };
        continue;
      }
      if (ASCII_VRS.has(vr) || ENCODED_VRS.has(vr)) {
        if (vr === 'AS' && length === 0) {
          out[key] = { vr, Value: [''] };
          continue;
        }
        const raw = bytes.subarray(at, at + length);
        const s = ASCII_VRS.has(vr)
          ? Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('latin1')
          : decoder.decode(raw);
        out[key] = { vr, Value: textValues(vr, s) };
        continue;
      }
      if (BINARY.has(vr)) {
        // Only a value `convert` sends inline is copied; a larger one is left out of the model either way.
        const start = bytes.byteOffset + at;
        out[key] = { vr, Value: length <= INLINE_MAX ? [bytes.buffer.slice(start, start + length)] : [] };
        continue;
      }
      throw new Decline(vr);
    }
    return out;
  };
  try {
    return read(top, false, topDecoder());
  } catch {
    // A Decline, or a value that lies outside the bytes: dcmjs reads it (with ignoreErrors) as before.
    return null;
  }
}

/**
 * The data set (without the File Meta group) in the DICOM JSON model, each text value capped
 * (textCapOf): from the upload check's own parse where `readParsed` reads the object as dcmjs
 * would, else by dcmjs (docs/decisions.md › DICOM JSON from the one parse).
 */
export function toDicomJson(input: Uint8Array, parsed: ParsedDicom): DicomJson {
  return convertRead(readParsed(parsed) ?? readWithDcmjs(input, parsed));
}

/** The DICOM JSON model of a data set as read (`readParsed`, `readWithDcmjs`): values capped, empties dropped. */
export const convertRead = (dict: ReadDict): DicomJson => convert(dict);

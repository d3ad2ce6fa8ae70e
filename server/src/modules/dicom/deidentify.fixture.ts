import dcmjs from 'dcmjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROFILE_RANGES, PROFILE_ROWS } from './confidentiality-profile.ts';

/**
 * A real image with a distinct marker planted in every attribute of Table E.1-1 (and in an
 * instance of each tag range, and in a private element), at the top level and again inside an
 * item of a sequence the profile keeps. Shared by the de-identification tests.
 */
interface DictElement {
  vr: string;
  Value?: unknown[];
}
type Dict = Record<string, DictElement>;

export interface Plant {
  tag: string;
  vr: string;
  where: 'top' | 'item';
  /** Text that must not appear in the de-identified bytes (null where the value is a bare number). */
  marker: string | null;
  value: unknown[];
}

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/dicom');
/** Kept by the profile (not in the table): the planted copies inside its item must be cleaned in place. */
export const CONTAINER = '00400260'; // Performed Protocol Code Sequence
/** Sequences the table keeps (U*): their items reference other instances by UID. */
const REFERENCE_SEQUENCES = new Set(['00081140', '00082112']);
const TEXT_VRS = new Set(['AE', 'CS', 'SH', 'LO', 'ST', 'LT', 'UT', 'UC', 'UR', 'PN']);
const BINARY_VRS = new Set(['OB', 'OW', 'OD', 'OF', 'OL', 'OV', 'UN']);
/** Groups that belong to the file meta header, commands or directories, or follow the pixel data: top level only. */
const TOP_ONLY = (tag: string) => /^(0000|0002|0004|FFFA|FFFC)/.test(tag);

function marker(tag: string, vr: string, i: number, where: Plant['where']): Omit<Plant, 'tag' | 'vr' | 'where'> {
  const w = where === 'top' ? 'T' : 'S';
  const text = `MK${tag}${w}`;
  if (TEXT_VRS.has(vr)) return { marker: text, value: [vr === 'PN' ? { Alphabetic: text } : text] };
  if (BINARY_VRS.has(vr)) return { marker: text, value: [new TextEncoder().encode(`${text} `).buffer] };
  const n = i + (where === 'top' ? 0 : 1000);
  switch (vr) {
    case 'UI': {
      const uid = `1.2.826.0.1.3680043.10.999.${10000 + n}`;
      return { marker: uid, value: [uid] };
    }
    case 'DA':
      return {
        marker: `${1600 + i}0${where === 'top' ? 1 : 2}17`,
        value: [`${1600 + i}0${where === 'top' ? 1 : 2}17`],
      };
    case 'DT': {
      const dt = `${1600 + i}0${where === 'top' ? 3 : 4}17112233.${String(n).padStart(6, '0')}`;
      return { marker: dt, value: [dt] };
    }
    case 'TM': {
      const tm = `2359${where === 'top' ? 59 : 58}.${String(n).padStart(6, '0')}`;
      return { marker: tm, value: [tm] };
    }
    case 'DS':
      return { marker: `98765.${String(n).padStart(6, '0')}`, value: [`98765.${String(n).padStart(6, '0')}`] };
    case 'IS':
      return { marker: String(1900000000 + n), value: [1900000000 + n] };
    case 'AS':
      return { marker: null, value: [`${String(n % 1000).padStart(3, '0')}D`] };
    case 'SQ': {
      if (!REFERENCE_SEQUENCES.has(tag)) return { marker: text, value: [{ '00080104': { vr: 'LO', Value: [text] } }] };
      const reference = `1.2.826.0.1.3680043.10.998.${10000 + n}`;
      const item = {
        '00081150': { vr: 'UI', Value: ['1.2.840.10008.5.1.4.1.1.2'] },
        '00081155': { vr: 'UI', Value: [reference] },
      };
      return { marker: reference, value: [item] };
    }
    default: // US, SS, UL, SL, FL, FD, SV, UV: a number has no findable text
      return { marker: null, value: [40000 + (n % 20000)] };
  }
}

/** Every row of the table plus an instance of each range and a private element, with its marker. */
export function plants(where: Plant['where']): Plant[] {
  const out: Plant[] = [];
  PROFILE_ROWS.forEach((row, i) => {
    if (where === 'item' && TOP_ONLY(row.tag)) return;
    out.push({ tag: row.tag, vr: row.vr, where, ...marker(row.tag, row.vr, i, where) });
  });
  const extra = [
    { tag: '50002500', vr: 'LO' }, // Curve Label: any element of (50xx,xxxx)
    { tag: '50003000', vr: 'OB' }, // Curve Data
    { tag: '60003000', vr: 'OW' }, // Overlay Data
    { tag: '60004000', vr: 'LT' }, // Overlay Comments
    { tag: '00090010', vr: 'LO' }, // private creator
    { tag: '00091001', vr: 'LO' }, // private element
  ];
  extra.forEach(({ tag, vr }, k) => {
    out.push({ tag, vr, where, ...marker(tag, vr, PROFILE_ROWS.length + k, where) });
  });
  if (PROFILE_RANGES.length !== 4) throw new Error('the table has ranges this fixture does not plant');
  return out;
}

/** Attributes outside the table that the copy must keep, planted next to the markers. */
export const KEPT = {
  top: { '00080070': 'KEEPMANUFACTURER' }, // Manufacturer
  item: { '00080100': 'KEEPCODE', '00080102': 'KEEPSCHEME' }, // Code Value, Coding Scheme Designator
};

/**
 * The fixture `name` with every plant written in (top level and inside the container's item).
 * `studyUid` sets the study so that two files of one study can be compared.
 */
export function plantedFile(name = 'ct_explicit_le_16bit_signed_small.dcm', studyUid?: string): Uint8Array {
  const source = readFileSync(join(FIXTURES, name));
  const message = dcmjs.data.DicomMessage.readFile(
    source.buffer.slice(source.byteOffset, source.byteOffset + source.byteLength) as ArrayBuffer,
  );
  const dict = message.dict as Dict;
  const meta = message.meta as Dict;
  for (const plant of plants('top')) {
    if (plant.tag.startsWith('0002')) meta[plant.tag] = { vr: plant.vr, Value: plant.value };
    else dict[plant.tag] = { vr: plant.vr, Value: plant.value };
  }
  const item: Dict = {};
  for (const plant of plants('item')) item[plant.tag] = { vr: plant.vr, Value: plant.value };
  for (const [tag, value] of Object.entries(KEPT.item)) item[tag] = { vr: 'SH', Value: [value] };
  dict[CONTAINER] = { vr: 'SQ', Value: [item] };
  dict['00080070'] = { vr: 'LO', Value: [KEPT.top['00080070']] };
  if (studyUid) dict['0020000D'] = { vr: 'UI', Value: [studyUid] };
  // The trailing padding and signatures would be written after the pixel data: dcmjs writes in key order.
  const out = new dcmjs.data.DicomDict(meta);
  out.dict = dict;
  return new Uint8Array(out.write({ allowInvalidVRLength: true }));
}

/** The data set of a Part 10 file as dcmjs reads it (meta header under `meta`). */
export function readDict(bytes: Uint8Array): { dict: Dict; meta: Dict } {
  const message = dcmjs.data.DicomMessage.readFile(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
    { ignoreErrors: true },
  );
  return { dict: message.dict as Dict, meta: message.meta as Dict };
}

import dcmjs from 'dcmjs';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../images/images.test-helpers.ts';
import { DicomRejection, TransferSyntax, parseDicom } from './dicom-core.ts';
import { convertRead, readParsed, readWithDcmjs, toDicomJson } from './dicom-json.ts';
import { plantedFile } from './deidentify.fixture.ts';

type Dict = Record<string, { vr: string; Value?: unknown[] }>;

const read = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, 'dicom', name)));

/** `name` with `elements` set in its data set (dcmjs's form), written back as Part 10 in `syntax`. */
function rewritten(name: string, elements: Dict, syntax?: string): Uint8Array {
  const bytes = read(name);
  const message = dcmjs.data.DicomMessage.readFile(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
  );
  Object.assign(message.dict, elements);
  if (syntax) (message.meta as Dict)['00020010'] = { vr: 'UI', Value: [syntax] };
  return new Uint8Array(message.write({ allowInvalidVRLength: true }));
}

/** Values that take each of dcmjs's text rules: padding, multiplicity, trimming, numbers, names, tags. */
const EDGES: Dict = {
  '00080008': { vr: 'CS', Value: ['ORIGINAL ', ' PRIMARY', 'AXIAL'] },
  '00080020': { vr: 'DA', Value: ['20240102'] },
  '00080030': { vr: 'TM', Value: ['101010.5 '] },
  '00080050': { vr: 'SH', Value: [' ACC 7 '] },
  '00080080': { vr: 'LO', Value: ['St. Mary ', ' Second'] },
  '00080090': { vr: 'PN', Value: [{ Alphabetic: 'Doe^Jane', Ideographic: 'Ideo', Phonetic: 'Pho' }] },
  '00081030': { vr: 'LO', Value: ['Chest CT'] },
  '00081070': { vr: 'PN', Value: [{ Alphabetic: 'One^A' }, { Alphabetic: 'Two^B' }] },
  '00100010': { vr: 'PN', Value: [{ Alphabetic: 'Müller^Zoë' }] },
  '00101010': { vr: 'AS', Value: ['045Y'] },
  '00104000': { vr: 'LT', Value: ['line one\\still one  '] },
  '00180050': { vr: 'DS', Value: ['1.25', ' -0.5e2', '3'] },
  '00181063': { vr: 'DS', Value: [] },
  '00200013': { vr: 'IS', Value: ['12'] },
  '00200037': { vr: 'DS', Value: ['1', '0', '0', '0', '1', '0'] },
  '00209156': { vr: 'US', Value: [1, 2, 65535] },
  '00280009': { vr: 'AT', Value: [0x00181063, 0x00200013] },
  '00321060': { vr: 'LO', Value: [] },
  '00400275': { vr: 'SQ', Value: [{ '00400007': { vr: 'LO', Value: ['inner'] } }, {}] },
  '00081199': { vr: 'SQ', Value: [] },
  '00189327': { vr: 'FD', Value: [1.5, -2.25] },
  '00186020': { vr: 'SL', Value: [-7, 8] },
  '00180088': { vr: 'DS', Value: ['2.5'] },
  '00204000': { vr: 'LT', Value: ['A comment with \u00e9'] },
  '00291010': { vr: 'OB', Value: [new Uint8Array([1, 2, 3, 4]).buffer] },
  // Larger than the model sends inline: left out (and never copied).
  '00291020': { vr: 'OB', Value: [new Uint8Array(5000).fill(7).buffer] },
};

/** Every fixture, the planted PHI file, and the edge values in each syntax and character set read here. */
function cases(): Array<{ name: string; bytes: Uint8Array<ArrayBufferLike> }> {
  const out: Array<{ name: string; bytes: Uint8Array<ArrayBufferLike> }> = readdirSync(join(FIXTURES, 'dicom'))
    .sort()
    .map((name) => ({ name, bytes: read(name) }));
  out.push({ name: 'planted PHI (sequences, every attribute of the profile)', bytes: plantedFile() });
  const base = 'ct_explicit_le_16bit_signed_small.dcm';
  for (const [label, syntax] of [
    ['explicit LE', TransferSyntax.explicitLE],
    ['implicit LE', TransferSyntax.implicitLE],
  ] as const) {
    out.push({ name: `edges, ${label}, no character set`, bytes: rewritten(base, EDGES, syntax) });
    for (const charset of ['ISO_IR 100', 'ISO_IR 192'])
      out.push({
        name: `edges, ${label}, ${charset}`,
        bytes: rewritten(base, { ...EDGES, '00080005': { vr: 'CS', Value: [charset] } }, syntax),
      });
  }
  return out;
}

/** What the fast path leaves to dcmjs among the cases, and why (a change here is a change of rule). */
const DECLINED: Record<string, string> = {
  'mr_explicit_be_16bit_signed.dcm': 'big endian',
  'dicomdir_explicit_le.dcm': 'a character set inside an item (directory records); refused at upload anyway',
  'ot_deflated_8bit.dcm': 'an element the inflated parse gives without a VR',
  'planted PHI (sequences, every attribute of the profile)': 'an SV value (Selector SV Value)',
};

describe('DICOM JSON from the upload check’s own parse (docs/decisions.md › DICOM JSON from the one parse)', () => {
  for (const { name, bytes } of cases())
    it(`${name}: the same model as dcmjs reads, or left to dcmjs only where DECLINED says`, () => {
      let parsed;
      try {
        parsed = parseDicom(bytes);
      } catch (err) {
        // Refused at upload: never stored, so never turned into JSON.
        expect(err).toBeInstanceOf(DicomRejection);
        return;
      }
      const fast = readParsed(parsed);
      if (name in DECLINED) {
        expect(fast).toBeNull();
        return;
      }
      expect(fast, 'the fast path read it').not.toBeNull();
      const reference = convertRead(readWithDcmjs(bytes, parsed));
      expect(convertRead(fast!)).toEqual(reference);
      expect(toDicomJson(bytes, parsed)).toEqual(reference);
    });

  it('the edge values come out as the DICOM JSON model says (names as objects, numbers as numbers, UTF-8 decoded)', () => {
    const bytes = rewritten(
      'ct_explicit_le_16bit_signed_small.dcm',
      { ...EDGES, '00080005': { vr: 'CS', Value: ['ISO_IR 192'] } },
      TransferSyntax.implicitLE,
    );
    const json = toDicomJson(bytes, parseDicom(bytes));
    expect(json['00100010']).toEqual({ vr: 'PN', Value: [{ Alphabetic: 'Müller^Zoë' }] });
    expect(json['00081070']?.Value).toEqual([{ Alphabetic: 'One^A' }, { Alphabetic: 'Two^B' }]);
    expect(json['00180050']).toEqual({ vr: 'DS', Value: [1.25, -50, 3] });
    expect(json['00080008']?.Value).toEqual(['ORIGINAL', 'PRIMARY', 'AXIAL']);
    expect(json['00400275']?.Value?.[0]).toEqual({ '00400007': { vr: 'LO', Value: ['inner'] } });
    expect(json['00080005']).toEqual({ vr: 'CS', Value: ['ISO_IR 192'] });
    expect(json['7FE00010']).toEqual({ vr: 'OW' });
    expect(json['00291010']).toEqual({ vr: 'UN', InlineBinary: 'AQIDBA==' });
    expect(json['00291020']).toEqual({ vr: 'UN' });
  });

  it('VRs dcmjs has no reader for (OL, OV, SV) are UN, as dcmjs gives them, in either syntax', () => {
    const base = 'ct_explicit_le_16bit_signed_small.dcm';
    const value = { vr: 'OB', Value: [new Uint8Array([1, 0, 0, 0, 2, 0, 0, 0]).buffer] };
    // Explicit: written as OB, then its VR bytes made OL (dcmjs writes no OL of its own).
    const explicit = Buffer.from(rewritten(base, { '00660040': value }));
    const at = explicit.indexOf(Buffer.from([0x66, 0x00, 0x40, 0x00, 0x4f, 0x42]));
    expect(at).toBeGreaterThan(0);
    explicit[at + 5] = 0x4c; // 'L'
    // Implicit: the dictionary says OL.
    const implicit = rewritten(base, { '00660129': value }, TransferSyntax.implicitLE);
    for (const [bytes, tag] of [
      [new Uint8Array(explicit), '00660040'],
      [implicit, '00660129'],
    ] as const) {
      const parsed = parseDicom(bytes);
      const fast = convertRead(readParsed(parsed)!);
      expect(fast[tag]).toEqual({ vr: 'UN', InlineBinary: 'AQAAAAIAAAA=' });
      expect(fast).toEqual(convertRead(readWithDcmjs(bytes, parsed)));
    }
  });

  it('text inside items is decoded by the data set’s character set (dcmjs reads it as Latin-1: the one difference)', () => {
    const bytes = rewritten('ct_explicit_le_16bit_signed_small.dcm', {
      '00080005': { vr: 'CS', Value: ['ISO_IR 192'] },
      '00400275': { vr: 'SQ', Value: [{ '00400007': { vr: 'LO', Value: ['Zoë'] } }] },
    });
    const parsed = parseDicom(bytes);
    const item = (json: Record<string, { Value?: unknown[] }>) =>
      (json['00400275']?.Value?.[0] as Record<string, { Value?: unknown[] }>)['00400007']?.Value;
    expect(item(toDicomJson(bytes, parsed))).toEqual(['Zoë']);
    expect(item(convertRead(readWithDcmjs(bytes, parsed)))).toEqual(['ZoÃ«']);
  });

  it('a character set named like an Object property is declined and left to dcmjs, never thrown', () => {
    const bytes = rewritten('ct_explicit_le_16bit_signed_small.dcm', {
      '00080005': { vr: 'CS', Value: ['CONSTRUCTOR'] },
    });
    const parsed = parseDicom(bytes);
    expect(readParsed(parsed)).toBeNull();
    // dcmjs reads it as before (its ignoreErrors stops at the character set it cannot use).
    expect(toDicomJson(bytes, parsed)).toEqual(convertRead(readWithDcmjs(bytes, parsed)));
  });

  it('a character set it does not read, an explicit UN of a known attribute and a nested character set go to dcmjs', () => {
    const base = 'ct_explicit_le_16bit_signed_small.dcm';
    const japanese = rewritten(base, { '00080005': { vr: 'CS', Value: ['ISO 2022 IR 87'] } });
    expect(readParsed(parseDicom(japanese))).toBeNull();
    const unknown = rewritten(base, { '00081030': { vr: 'UN', Value: [new TextEncoder().encode('CT HEAD ').buffer] } });
    expect(readParsed(parseDicom(unknown))).toBeNull();
    const nested = rewritten(base, {
      '00400275': { vr: 'SQ', Value: [{ '00080005': { vr: 'CS', Value: ['ISO_IR 192'] } }] },
    });
    expect(readParsed(parseDicom(nested))).toBeNull();
    // Each still gets its model, from dcmjs.
    for (const bytes of [japanese, unknown, nested])
      expect(toDicomJson(bytes, parseDicom(bytes))['00080016']).toBeDefined();
  });
});

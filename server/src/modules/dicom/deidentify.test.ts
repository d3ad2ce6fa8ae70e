import { describe, expect, it } from 'vitest';
import { PROFILE, PROFILE_ROWS, PROFILE_SOURCE, resolve } from './confidentiality-profile.ts';
import { parseDicom } from './dicom-core.ts';
import { DEIDENTIFICATION_METHOD, deidentify, mappedUid } from './deidentify.ts';
import { CONTAINER, KEPT, type Plant, plantedFile, plants, readDict } from './deidentify.fixture.ts';

const key = new Uint8Array(32).fill(7);
const run = (bytes: Uint8Array, scope = 'owner-1') => deidentify(bytes, parseDicom(bytes), key, scope);
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

type Dict = ReturnType<typeof readDict>['dict'];
const at = (dict: Dict, meta: Dict, plant: Plant) =>
  plant.where === 'item'
    ? (dict[CONTAINER]?.Value?.[0] as Dict | undefined)?.[plant.tag]
    : (plant.tag.startsWith('0002') ? meta : dict)[plant.tag];
/** dcmjs reads a zero-length string as [''] and a zero-length binary value as one empty buffer. */
const isEmpty = (values: unknown[]) =>
  values.every((v) => v === '' || v === null || (v instanceof ArrayBuffer && v.byteLength === 0));
/** Comparable form of a value: binary values as their bytes. */
const comparable = (values: unknown[]) =>
  JSON.stringify(values.map((v) => (v instanceof ArrayBuffer ? Buffer.from(v).toString('hex') : v)));

/** Every tag anywhere in the data set, sequence items included. */
function allTags(dict: Dict, out: string[] = []): string[] {
  for (const [tag, element] of Object.entries(dict)) {
    out.push(tag.toUpperCase());
    if (element.vr === 'SQ') for (const item of element.Value ?? []) allTags(item as Dict, out);
  }
  return out;
}

describe('PS3.15 Table E.1-1 as data', () => {
  it('is whole, names its source, and lists the attributes issue 14 found in copies', () => {
    expect(PROFILE_ROWS.length).toBeGreaterThanOrEqual(650);
    expect(new Set(PROFILE_ROWS.map((r) => r.tag)).size).toBe(PROFILE_ROWS.length);
    expect(PROFILE_SOURCE.url).toMatch(/part15\/chapter_E\.html#table_E\.1-1$/);
    expect(PROFILE_SOURCE.edition).toMatch(/2023b/);
    for (const tag of ['00321066', '00380500', '00400007', '00401102', '00401400', '00402001', '00402010'])
      expect(PROFILE.get(tag)?.action, tag).toBe('X');
  });

  it('resolves combined codes to the strongest action', () => {
    expect(['X/Z', 'X/D', 'X/Z/D', 'C'].map((c) => resolve(c as never, 'LO'))).toEqual(['X', 'X', 'X', 'X']);
    expect(resolve('Z/D', 'DA')).toBe('Z');
    expect(resolve('D', 'SQ')).toBe('X');
    expect(resolve('D', 'LO')).toBe('D');
    expect(resolve('X/Z/U*', 'SQ')).toBe('U*');
  });
});

describe('deidentify (Basic Application Level Confidentiality Profile)', () => {
  const source = plantedFile();
  const all = [...plants('top'), ...plants('item')];
  const copy = run(source);
  const { dict, meta } = readDict(copy.bytes);

  it('plants a findable marker in every listed attribute, at the top level and inside an item', () => {
    const text = latin1(source);
    const missing = all.filter((p) => p.marker && !text.includes(p.marker)).map((p) => `${p.where} ${p.tag}`);
    expect(missing).toEqual([]);
    expect(all.filter((p) => p.where === 'top').length).toBe(PROFILE_ROWS.length + 6);
    expect(all.filter((p) => p.where === 'item').length).toBeGreaterThan(640);
  });

  it('leaves none of the markers in the copy’s bytes', () => {
    const text = latin1(copy.bytes);
    const leaked = all.filter((p) => p.marker && text.includes(p.marker)).map((p) => `${p.where} ${p.tag} ${p.marker}`);
    expect(leaked).toEqual([]);
  });

  it('applies each row’s action in the parsed copy: X gone, Z empty, D dummy, U mapped, U* cleaned inside', () => {
    const wrong: string[] = [];
    for (const plant of all) {
      const element = at(dict, meta, plant);
      const rule = PROFILE.get(plant.tag);
      const action = rule?.action ?? 'X'; // ranges and private elements: X
      const values = element?.Value ?? [];
      const planted = comparable(plant.value);
      const say = (what: string) => wrong.push(`${plant.where} ${plant.tag} ${rule?.name ?? ''} (${action}): ${what}`);
      if (action === 'X') {
        if (element) say('present');
      } else if (!element) {
        say('missing');
      } else if (action === 'Z') {
        if (!isEmpty(values)) say(`not empty: ${JSON.stringify(values)}`);
      } else if (action === 'D') {
        if (comparable(values) === planted) say('kept its value');
        // Binary values have no meaningful dummy: emptied.
        if (!['OB', 'OW', 'UN'].includes(plant.vr) && isEmpty(values)) say('no dummy value');
      } else if (action === 'U') {
        if (!values.every((v) => typeof v === 'string' && /^2\.25\.\d+$/.test(v))) say(`not mapped: ${values}`);
      } else if (action === 'U*') {
        const reference = (values[0] as Dict | undefined)?.['00081155']?.Value?.[0];
        if (typeof reference !== 'string' || !/^2\.25\.\d+$/.test(reference)) say(`reference not mapped: ${reference}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('removes private attributes, curves and overlay data/comments everywhere', () => {
    const tags = allTags(dict);
    expect(tags.filter((t) => Number.parseInt(t.slice(0, 4), 16) % 2 === 1)).toEqual([]);
    expect(tags.filter((t) => /^50/.test(t) || /^60..(3000|4000)$/.test(t))).toEqual([]);
  });

  it('keeps what the table does not list: equipment, codes inside a kept item, the image itself', () => {
    expect(dict['00080070']?.Value).toEqual([KEPT.top['00080070']]);
    const item = dict[CONTAINER]?.Value?.[0] as Dict;
    expect(item['00080100']?.Value).toEqual([KEPT.item['00080100']]);
    expect(item['00080102']?.Value).toEqual([KEPT.item['00080102']]);
    const before = parseDicom(source);
    const after = parseDicom(copy.bytes);
    for (const tag of ['x00080060', 'x00080016', 'x00280010', 'x00280011', 'x00280100'])
      expect(after.dataSet.string(tag), tag).toBe(before.dataSet.string(tag));
    const pixels = (p: ReturnType<typeof parseDicom>) => {
      const e = p.dataSet.elements.x7fe00010!;
      return Buffer.from(p.byteArray.subarray(e.dataOffset, e.dataOffset + e.length));
    };
    expect(pixels(after).equals(pixels(before))).toBe(true);
  });

  it('marks the copy only after the profile ran: Patient Identity Removed, method, CID 7050 code 113100', () => {
    expect(dict['00120062']?.Value).toEqual(['YES']);
    expect(dict['00120063']?.Value).toEqual([DEIDENTIFICATION_METHOD]);
    expect(DEIDENTIFICATION_METHOD.length).toBeLessThanOrEqual(64);
    const code = dict['00120064']?.Value?.[0] as Dict;
    expect(code['00080100']?.Value).toEqual(['113100']);
    expect(code['00080102']?.Value).toEqual(['DCM']);
    expect(code['00080104']?.Value).toEqual(['Basic Application Confidentiality Profile']);
    expect(meta['00020003']?.Value).toEqual(dict['00080018']?.Value);
  });

  it('maps UIDs consistently: two files of one study share the new study UID, a keyed HMAC of the old one', () => {
    const study = '1.2.826.0.1.3680043.10.999.424242';
    const a = run(plantedFile('ct_explicit_le_16bit_signed_small.dcm', study));
    const b = run(plantedFile('us_rgb_explicit_le_8bit.dcm', study));
    expect(a.studyInstanceUid).toBe(mappedUid(key, 'owner-1', study));
    expect(b.studyInstanceUid).toBe(a.studyInstanceUid);
    // Both files carry the same planted Series and SOP UIDs too, so those map alike as well.
    expect(b.seriesInstanceUid).toBe(a.seriesInstanceUid);
    expect(a.studyInstanceUid).not.toContain('424242');
    // Another owner's copies are not linkable to these.
    expect(run(plantedFile('ct_explicit_le_16bit_signed_small.dcm', study), 'owner-2').studyInstanceUid).not.toBe(
      a.studyInstanceUid,
    );
  });
});

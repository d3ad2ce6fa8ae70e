import dcmjs from 'dcmjs';
import dicomParser from 'dicom-parser';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../images/images.test-helpers.ts';
import { readHead } from './dicom-head.ts';

const read = (name: string): Uint8Array<ArrayBuffer> => new Uint8Array(readFileSync(join(FIXTURES, 'dicom', name)));
const text = (ds: dicomParser.DataSet, tag: string) => ds.string(tag)?.trim() || null;

/** The object as dcmjs reads it (the reference here: another library than the one under test). */
const messageOf = (bytes: Uint8Array<ArrayBuffer>) =>
  dcmjs.data.DicomMessage.readFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
const dictOf = (bytes: Uint8Array<ArrayBuffer>) => messageOf(bytes).dict as Record<string, { Value?: unknown[] }>;
const valueOf = (dict: Record<string, { Value?: unknown[] }>, tag: string) => {
  const v = dict[tag]?.Value?.[0];
  return typeof v === 'string' && v.trim() ? v.trim() : null;
};

/** Every Part 10 fixture with a Series Instance UID (the DICOMDIR and the malformed ones aside). */
const WITH_SERIES = readdirSync(join(FIXTURES, 'dicom')).filter((name) => {
  if (!name.endsWith('.dcm') || name.startsWith('malformed') || name.startsWith('dicomdir')) return false;
  try {
    return valueOf(dictOf(read(name)), '0020000E') !== null;
  } catch {
    return false; // no preamble: dcmjs reads Part 10 files only
  }
});

describe('readHead', () => {
  it.each(WITH_SERIES)('%s: the UIDs, modality and patient ID a full parse finds, from the first 64 KiB', (name) => {
    const bytes = read(name);
    const head = readHead(bytes.subarray(0, 64 * 1024), bytes.length <= 64 * 1024);
    const dict = dictOf(bytes);
    const value = (tag: string) => valueOf(dict, tag);
    expect(head).toEqual({
      sopClassUid: value('00080016'),
      sopInstanceUid: value('00080018'),
      studyUid: value('0020000D'),
      seriesUid: value('0020000E'),
      modality: value('00080060'),
      patientId: value('00100020'),
      reached: true,
    });
  });

  it('waits for more bytes while the head stops before the Series Instance UID, and says so once there are none', () => {
    const bytes = read('ct_implicit_le_16bit_signed.dcm');
    const ds = dicomParser.parseDicom(bytes);
    // Cut inside the Study Instance UID's value, the attribute before the Series Instance UID.
    const cut = ds.elements.x0020000d!.dataOffset + 2;
    expect(readHead(bytes.subarray(0, cut), false)).toBeNull();
    const partial = readHead(bytes.subarray(0, cut), true);
    expect(partial).toMatchObject({ sopInstanceUid: text(ds, 'x00080018'), seriesUid: null, reached: false });
  });

  it.each(['ct_implicit_le_16bit_signed.dcm', 'ct_explicit_le_16bit_signed_small.dcm', 'ot_deflated_8bit.dcm'])(
    '%s: cut anywhere up to past the Series Instance UID, the head is either awaited or whole',
    (name) => {
      const bytes = read(name);
      const whole = readHead(bytes, true)!;
      expect(whole.seriesUid).not.toBeNull();
      for (let cut = 8; cut < Math.min(bytes.length, 6000); cut += 3) {
        const head = readHead(bytes.subarray(0, cut), false);
        if (head) expect(head, `cut at ${cut}`).toEqual(whole);
      }
    },
  );

  it('a file without a Series Instance UID is read to its end, and reached', () => {
    const bytes = read('ct_explicit_le_16bit_signed_small.dcm');
    const message = messageOf(bytes);
    delete (message.dict as Record<string, unknown>)['0020000E'];
    const without = new Uint8Array(message.write());
    expect(readHead(without, true)).toMatchObject({ seriesUid: null, studyUid: expect.any(String), reached: true });
  });
});

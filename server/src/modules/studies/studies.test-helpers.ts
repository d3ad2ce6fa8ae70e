import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, type FixtureFile } from '../images/images.test-helpers.ts';

/** A fresh UID under the UUID-derived root 2.25 (PS3.5 §B.2). */
export const newUid = () => `2.25.${BigInt(`0x${randomBytes(16).toString('hex')}`).toString(10)}`;

export interface GeneratedStudy {
  studyUid: string;
  series: Array<{ uid: string; number: number; instances: Array<{ sop: string; number: number; file: FixtureFile }> }>;
}

/**
 * A small multi-series study made from one real CT fixture with dcmtk's dcmodify: new Study, Series
 * and SOP Instance UIDs, Series and Instance Numbers, descriptions. `series` lists each series'
 * instance count; instances are written in reverse Instance Number order, so that a listing sorted
 * by upload order or by file is not sorted by number.
 */
export function generateStudy(
  series: number[],
  opts: { studyDescription?: string; patientName?: string; source?: string; extra?: string[] } = {},
): GeneratedStudy {
  const dir = mkdtempSync(join(tmpdir(), 'medshare-study-'));
  const source = join(FIXTURES, opts.source ?? 'dicom/ct_explicit_le_16bit_signed_small.dcm');
  const studyUid = newUid();
  try {
    return {
      studyUid,
      series: series.map((count, s) => {
        const uid = newUid();
        const instances = Array.from({ length: count }, (_, k) => count - k).map((number) => {
          const sop = newUid();
          const path = join(dir, `${s + 1}-${number}.dcm`);
          copyFileSync(source, path);
          execFileSync('dcmodify', [
            '-nb',
            '-i',
            `(0020,000D)=${studyUid}`,
            '-i',
            `(0020,000E)=${uid}`,
            '-i',
            `(0008,0018)=${sop}`,
            '-i',
            `(0020,0011)=${s + 1}`,
            '-i',
            `(0020,0013)=${number}`,
            '-i',
            `(0008,1030)=${opts.studyDescription ?? 'CT CHEST WITH CONTRAST'}`,
            '-i',
            `(0008,103E)=Series ${s + 1} description`,
            ...(opts.patientName ? ['-i', `(0010,0010)=${opts.patientName}`] : []),
            ...(opts.extra ?? []).flatMap((e) => ['-i', e]),
            path,
          ]);
          const file: FixtureFile = {
            path: `generated/${s + 1}-${number}.dcm`,
            name: `${s + 1}-${number}.dcm`,
            type: 'application/dicom',
            data: readFileSync(path),
          };
          return { sop, number, file };
        });
        return { uid, number: s + 1, instances };
      }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

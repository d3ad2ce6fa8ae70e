import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(
  new URL('../../server/test/fixtures/dicom/ct_explicit_le_16bit_signed_small.dcm', import.meta.url),
);

const uid = () => `2.25.${BigInt(`0x${randomBytes(16).toString('hex')}`).toString(10)}`;

export interface GeneratedInstance {
  name: string;
  data: Buffer;
  seriesNumber: number;
  instanceNumber: number;
}

/**
 * A small multi-series CT study made at test time from one real fixture with dcmtk's dcmodify:
 * new Study, Series and SOP Instance UIDs, Series and Instance Numbers and descriptions.
 */
export function generateStudy(series: number[], studyDescription = 'CT CHEST WITH CONTRAST') {
  const dir = mkdtempSync(join(tmpdir(), 'medshare-e2e-study-'));
  const studyUid = uid();
  try {
    const instances: GeneratedInstance[] = [];
    series.forEach((count, s) => {
      const seriesUid = uid();
      for (let k = 1; k <= count; k++) {
        const path = join(dir, `${s + 1}-${k}.dcm`);
        copyFileSync(SOURCE, path);
        execFileSync('dcmodify', [
          '-nb',
          ...['-i', `(0020,000D)=${studyUid}`, '-i', `(0020,000E)=${seriesUid}`, '-i', `(0008,0018)=${uid()}`],
          ...['-i', `(0020,0011)=${s + 1}`, '-i', `(0020,0013)=${k}`, '-i', `(0008,1030)=${studyDescription}`],
          ...['-i', `(0008,103E)=Series ${s + 1}`],
          path,
        ]);
        instances.push({ name: `${s + 1}-${k}.dcm`, data: readFileSync(path), seriesNumber: s + 1, instanceNumber: k });
      }
    });
    return { studyUid, instances };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

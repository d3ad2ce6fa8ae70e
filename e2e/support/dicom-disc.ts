import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const fixture = (name: string) => fileURLToPath(new URL(`../../server/test/fixtures/dicom/${name}`, import.meta.url));

const uid = () => `2.25.${BigInt(`0x${randomBytes(16).toString('hex')}`).toString(10)}`;

export interface Disc {
  /** The folder to import: DICOMDIR, DICOM/S<n>/IM<k> (no extensions, as on a CD) and README.TXT. */
  root: string;
  studyUid: string;
  series: Array<{ uid: string; slices: number }>;
  files: number;
  remove: () => void;
}

/**
 * A patient's CD made at test time from one real CT fixture (`source`) with dcmtk: dcmodify gives each file
 * new Study, Series and SOP Instance UIDs, Series and Instance Numbers and a position along the
 * slice normal (Image Position, Slice Location 2.5 mm apart); dcmmkdir writes the DICOMDIR that
 * lists them. Instance files are written in reverse order of their numbers, so the viewer's order
 * comes from the Instance Number and not from the file names.
 */
export function makeDisc(
  seriesSizes: number[],
  { studyDescription = 'CT CHEST WITH CONTRAST', source = 'ct_explicit_le_16bit_signed_small.dcm' } = {},
): Disc {
  const root = mkdtempSync(join(tmpdir(), 'medshare-e2e-disc-'));
  const studyUid = uid();
  // A disc holds Explicit VR Little Endian files (dcmmkdir's general-purpose CD profile).
  const base = join(root, 'source.dcm');
  execFileSync('dcmconv', ['+te', fixture(source), base]);
  const series = seriesSizes.map((slices, s) => {
    const seriesUid = uid();
    const dir = join(root, 'DICOM', `S${s + 1}`);
    mkdirSync(dir, { recursive: true });
    for (let k = 1; k <= slices; k++) {
      const z = (k - 1) * 2.5 - 20;
      const path = join(dir, `IM${slices - k + 1}`);
      copyFileSync(base, path);
      execFileSync('dcmodify', [
        '-nb',
        ...['-i', `(0020,000D)=${studyUid}`, '-i', `(0020,000E)=${seriesUid}`, '-i', `(0008,0018)=${uid()}`],
        ...['-i', `(0020,0011)=${s + 1}`, '-i', `(0020,0013)=${k}`, '-i', `(0008,1030)=${studyDescription}`],
        ...['-i', `(0008,103E)=Series ${s + 1}`, '-i', `(0020,1041)=${z}`],
        ...['-i', `(0020,0032)=-64\\-64\\${z}`, '-i', '(0020,0037)=1\\0\\0\\0\\1\\0'],
        path,
      ]);
    }
    return { uid: seriesUid, slices };
  });
  rmSync(base);
  execFileSync('dcmmkdir', ['+r', '+id', root, 'DICOM'], { cwd: root });
  writeFileSync(join(root, 'README.TXT'), 'Patient CD. Open DICOMDIR with a DICOM viewer.\r\n');
  return {
    root,
    studyUid,
    series,
    files: seriesSizes.reduce((a, b) => a + b, 0),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

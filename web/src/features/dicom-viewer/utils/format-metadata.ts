import type { DicomMetadata } from '@medshare/contracts';

export type MetadataRow = { label: string; value: string };

/** Names of the transfer syntaxes MedShare accepts (PS3.6 Table A-1); others show their UID. */
const TRANSFER_SYNTAXES: Record<string, string> = {
  '1.2.840.10008.1.2': 'Implicit VR Little Endian',
  '1.2.840.10008.1.2.1': 'Explicit VR Little Endian',
  '1.2.840.10008.1.2.1.99': 'Deflated Explicit VR Little Endian',
  '1.2.840.10008.1.2.2': 'Explicit VR Big Endian',
  '1.2.840.10008.1.2.4.50': 'JPEG Baseline (8-bit)',
  '1.2.840.10008.1.2.4.51': 'JPEG Extended (12-bit)',
  '1.2.840.10008.1.2.4.57': 'JPEG Lossless',
  '1.2.840.10008.1.2.4.70': 'JPEG Lossless SV1',
  '1.2.840.10008.1.2.4.80': 'JPEG-LS Lossless',
  '1.2.840.10008.1.2.4.81': 'JPEG-LS Near-Lossless',
  '1.2.840.10008.1.2.4.90': 'JPEG 2000 Lossless',
  '1.2.840.10008.1.2.4.91': 'JPEG 2000',
  '1.2.840.10008.1.2.4.201': 'HTJ2K Lossless',
  '1.2.840.10008.1.2.4.202': 'HTJ2K Lossless RPCL',
  '1.2.840.10008.1.2.4.203': 'HTJ2K',
  '1.2.840.10008.1.2.5': 'RLE Lossless',
};

export function transferSyntaxName(uid: string | null): string | null {
  if (!uid) return null;
  const name = TRANSFER_SYNTAXES[uid];
  return name ? `${name} (${uid})` : uid;
}

/** DICOM person names are `Family^Given^Middle^Prefix^Suffix`; show them the way people write them. */
export function formatPersonName(value: string | null): string | null {
  if (!value) return null;
  const [family = '', given = '', middle = '', prefix = '', suffix = ''] = value.split('=')[0]!.split('^');
  const text = [prefix, given, middle, family, suffix]
    .map((part) => part.trim())
    .filter(Boolean)
    .join(' ');
  return text || null;
}

const SEX: Record<string, string> = { M: 'Male', F: 'Female', O: 'Other' };

/**
 * The rows of the metadata panel, in reading order; attributes the file lacks are left out
 * rather than shown as blanks. Patient rows appear only when the server sent them (it sends
 * them only to people who may see the content).
 */
export function metadataRows(meta: DicomMetadata): { image: MetadataRow[]; patient: MetadataRow[] } {
  const d = meta.dicom;
  const image: Array<[string, string | null]> = [
    ['Modality', d.modality],
    ['Body part', d.bodyPart],
    ['Study date', d.studyDate],
    ['Size', d.rows !== null && d.columns !== null ? `${d.rows} × ${d.columns}` : null],
    ['Frames', d.frames !== null ? String(d.frames) : null],
    [
      'Bits',
      d.bitsStored !== null || d.bitsAllocated !== null
        ? `${d.bitsStored ?? '?'} stored / ${d.bitsAllocated ?? '?'} allocated`
        : null,
    ],
    ['Photometric', d.photometricInterpretation],
    ['Transfer syntax', transferSyntaxName(d.transferSyntaxUid)],
    ['De-identified', d.deidentified ? 'Yes' : null],
  ];
  const p = meta.phi;
  const patient: Array<[string, string | null]> = p
    ? [
        ['Patient', formatPersonName(p.patientName)],
        ['Patient ID', p.patientId],
        ['Birth date', p.patientBirthDate],
        ['Sex', p.patientSex ? (SEX[p.patientSex] ?? p.patientSex) : null],
        ['Accession', p.accessionNumber],
        ['Institution', p.institutionName],
        ['Referring physician', formatPersonName(p.referringPhysicianName)],
      ]
    : [];
  const keep = (rows: Array<[string, string | null]>) =>
    rows.flatMap(([label, value]) => (value && value.trim() ? [{ label, value: value.trim() }] : []));
  return { image: keep(image), patient: keep(patient) };
}

/** Number of frames to page through: at least one, whatever the file claims. */
export function frameCount(meta: DicomMetadata | null, decoded: number | null): number {
  const n = decoded ?? meta?.dicom.frames ?? 1;
  return Number.isInteger(n) && n > 0 ? n : 1;
}

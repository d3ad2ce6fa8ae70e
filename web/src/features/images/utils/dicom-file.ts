import * as dicomParser from 'dicom-parser';

/** PS3.10 §7.1: a 128-byte preamble, then 'DICM'. */
const MAGIC_AT = 128;
const MAGIC = [0x44, 0x49, 0x43, 0x4d];
/** The Media Storage SOP Class of a DICOMDIR (PS3.4 Annex F, "Media Storage Directory Storage"). */
export const DICOMDIR_SOP_CLASS = '1.2.840.10008.1.3.10';
/** Enough for the header of almost every file; a longer one is read whole (it is bounded by the upload limit). */
const HEAD_BYTES = 256 * 1024;

export function hasDicmPrefix(head: Uint8Array): boolean {
  return head.length >= MAGIC_AT + 4 && MAGIC.every((b, i) => head[MAGIC_AT + i] === b);
}

/** Whether a file starts like a DICOM Part 10 file (reads 132 bytes). */
export async function looksLikeDicom(blob: Blob): Promise<boolean> {
  return hasDicmPrefix(new Uint8Array(await blob.slice(0, MAGIC_AT + 4).arrayBuffer()));
}

/** What the import shows and sends of a DICOM file: never more than this is read before upload. */
export type DicomSummary = {
  sopClassUid: string | null;
  studyDescription: string | null;
  modality: string | null;
};

function summaryOf(dataSet: dicomParser.DataSet): DicomSummary {
  const text = (tag: string) => dataSet.string(tag)?.trim() || null;
  return {
    sopClassUid: text('x00020002') ?? text('x00080016'),
    studyDescription: text('x00081030'),
    modality: text('x00080060'),
  };
}

/**
 * The header attributes of a Part 10 file (up to its pixel data), or null when the file has no
 * Part 10 header or cannot be parsed; the server reads the file itself and has the last word.
 */
export async function readDicomSummary(blob: Blob): Promise<DicomSummary | null> {
  const parse = (bytes: Uint8Array) => summaryOf(dicomParser.parseDicom(bytes, { untilTag: 'x7fe00010' }));
  const head = new Uint8Array(await blob.slice(0, HEAD_BYTES).arrayBuffer());
  if (!hasDicmPrefix(head)) return null;
  try {
    return parse(head);
  } catch {
    if (blob.size <= HEAD_BYTES) return null;
  }
  try {
    // A header longer than the first slice (large private sequences): read the whole file once.
    return parse(new Uint8Array(await blob.arrayBuffer()));
  } catch {
    return null;
  }
}

/**
 * The files a DICOMDIR lists (PS3.10 §8, PS3.3 F.3): each Directory Record's Referenced File ID
 * (0004,1500), a multi-valued CS of path components relative to the DICOMDIR's folder. Components
 * that could leave the folder ('..', '.', empty) make the whole reference void: it is ignored.
 * Throws when the bytes are not a DICOMDIR.
 */
export function dicomdirReferences(bytes: Uint8Array): string[][] {
  const dataSet = dicomParser.parseDicom(bytes);
  if (dataSet.string('x00020002')?.trim() !== DICOMDIR_SOP_CLASS && !dataSet.elements.x00041220) {
    throw new Error('not a DICOMDIR');
  }
  const records = dataSet.elements.x00041220?.items ?? [];
  const refs: string[][] = [];
  for (const record of records) {
    const raw = record.dataSet?.string('x00041500');
    if (!raw) continue;
    const parts = raw.split('\\').map((p) => p.trim());
    if (parts.some((p) => p === '' || p === '.' || p === '..' || /[/:]/.test(p))) continue;
    refs.push(parts);
  }
  return refs;
}

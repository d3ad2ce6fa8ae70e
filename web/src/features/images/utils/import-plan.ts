import { ImageMessages } from '@medshare/contracts/constants';
import { dicomdirReferences, looksLikeDicom } from './dicom-file';
import {
  EntryTooLarge,
  type ImportEntry,
  type PickedFile,
  entriesOfZip,
  entryOfFile,
  isHiddenPath,
  isZip,
} from './import-sources';

const MB = 1024 * 1024;

/** The texts of a study import (`docs/product.md` › Upload). */
export const ImportMessages = {
  notDicom: 'Not a DICOM file. A folder or .zip import takes DICOM files; upload a JPEG, PNG or PDF on its own.',
  dicomdir: (n: number) => `The DICOMDIR (the disc's index), read to find the ${n} files it lists.`,
  unreadableDicomdir: 'A DICOMDIR that could not be read.',
  dicomdirFilesMissing:
    'The DICOMDIR lists files that are not among those you chose. Choose the whole folder or disc that holds the DICOMDIR.',
  refsMissing: (n: number) =>
    n === 1
      ? '1 file listed in the DICOMDIR is not among those you chose and is left out.'
      : `${n} files listed in the DICOMDIR are not among those you chose and are left out.`,
  tooManyFiles: (n: number, max: number) =>
    `This import has ${n} DICOM files; at most ${max} can be imported at once (setting max_import_files). Import the study in parts.`,
  tooManyBytes: (mb: number, max: number) =>
    `This import holds ${mb} MB of DICOM files; at most ${max} MB can be imported at once (setting max_import_mb). Import the study in parts.`,
  zipTooLarge: (name: string, max: number) =>
    `${name} is larger than ${max} MB, the most one import may hold (setting max_import_mb).`,
  zipUnreadable: (name: string) => `${name} could not be read as a .zip file.`,
  nothingToImport: 'There are no DICOM files among the files you chose.',
  cancelled: 'Cancelled before it was stored.',
  sessionEnded:
    'Not sent: your session ended. Sign in and import the same files again; those already stored show as already stored.',
} as const;

export type ItemState =
  | { status: 'queued' }
  | { status: 'uploading'; fraction: number; attempt: number }
  | { status: 'stored'; imageId: string }
  | { status: 'duplicate'; imageId: string }
  | { status: 'failed'; reason: string }
  | { status: 'skipped'; reason: string };

export type ImportItem = {
  id: number;
  path: string;
  size: number;
  entry: ImportEntry;
  /** 'sniff': a zip entry whose bytes are checked for the DICOM prefix when its turn comes. */
  check: 'dicom' | 'sniff';
  state: ItemState;
};

export type ImportLimits = { maxUploadMb: number; maxImportFiles: number; maxImportMb: number };

export type ImportPlan = {
  items: ImportItem[];
  /** Why nothing may be sent (a limit, an unreadable zip); null when the import may start. */
  refusal: string | null;
  notes: string[];
};

const DICOM_EXTENSION = /\.(dcm|dicom|dic|ima)$/i;
/** Extensions a DICOM file on a disc or in an export never has. */
const OTHER_EXTENSION =
  /\.(jpe?g|png|gif|bmp|tiff?|pdf|txt|html?|xml|json|csv|ini|inf|exe|dll|js|css|zip|rar|7z|mp4|avi|mov|doc|docx|rtf|md|log|bat|sh|app|pkg|dmg|ico|svg)$/i;

export const isDicomdirName = (name: string) => name.toUpperCase() === 'DICOMDIR';

/** How a path is looked up from a DICOMDIR: within one source, case-insensitively (ISO 9660 names are upper case). */
const keyOf = (source: string, innerPath: string) => `${source}\u0000${innerPath.toLowerCase()}`;

/**
 * From what was chosen to the list of files to send: zips opened (central directory only),
 * hidden files left out, DICOMDIRs read for the files they list, everything else kept only when it
 * is DICOM; then the per-file limit per item and the import limits on the whole.
 */
export async function planImport(picked: PickedFile[], limits: ImportLimits): Promise<ImportPlan> {
  const maxFileBytes = limits.maxUploadMb * MB;
  const maxImportBytes = limits.maxImportMb * MB;
  const notes: string[] = [];
  const entries: ImportEntry[] = [];
  for (const p of picked) {
    if (isHiddenPath(p.path)) continue;
    if (!isZip(p.file)) {
      entries.push(entryOfFile(p));
      continue;
    }
    const name = p.path || p.file.name;
    // A zip larger than the whole import cannot fit in it, whatever it holds.
    if (p.file.size > maxImportBytes) return refused(ImportMessages.zipTooLarge(name, limits.maxImportMb));
    try {
      entries.push(...(await entriesOfZip(p)));
    } catch {
      return refused(ImportMessages.zipUnreadable(name));
    }
    // The central directory may list millions of entries; past the limit, nothing more is looked at.
    if (entries.length > limits.maxImportFiles * 4 + 100) break;
  }

  // Listed by path, numbers in order (IM2 before IM10), as a file manager shows them.
  entries.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));

  // The files each DICOMDIR lists, resolved within its own folder and source.
  const byKey = new Map(entries.map((e) => [keyOf(e.source, e.innerPath), e]));
  const listed = new Set<ImportEntry>();
  const dicomdirs = new Map<ImportEntry, string>();
  let missing = 0;
  let unmatchedDicomdir = false;
  for (const entry of entries) {
    if (!isDicomdirName(entry.name)) continue;
    let refs: string[][];
    try {
      refs = dicomdirReferences(new Uint8Array(await (await entry.open(maxFileBytes)).arrayBuffer()));
    } catch {
      dicomdirs.set(entry, ImportMessages.unreadableDicomdir);
      continue;
    }
    const folder = entry.innerPath.slice(0, entry.innerPath.length - entry.name.length);
    let found = 0;
    for (const parts of refs) {
      const target = byKey.get(keyOf(entry.source, folder + parts.join('/')));
      // A reference to a file that is not in the set (or to the DICOMDIR itself) is ignored.
      if (!target || target === entry) {
        missing++;
        continue;
      }
      listed.add(target);
      found++;
    }
    if (refs.length && !found) unmatchedDicomdir = true;
    dicomdirs.set(entry, ImportMessages.dicomdir(found));
  }
  if (missing) notes.push(ImportMessages.refsMissing(missing));

  const items: ImportItem[] = [];
  for (const entry of entries) {
    const item = (state: ItemState, check: ImportItem['check'] = 'dicom'): ImportItem => ({
      id: items.length,
      path: entry.path,
      size: entry.size,
      entry,
      check,
      state,
    });
    const dicomdirNote = dicomdirs.get(entry);
    if (dicomdirNote) {
      items.push(item({ status: 'skipped', reason: dicomdirNote }));
      continue;
    }
    if (entry.size > maxFileBytes) {
      items.push(item({ status: 'failed', reason: ImageMessages.tooLarge(limits.maxUploadMb) }));
      continue;
    }
    if (listed.has(entry) || DICOM_EXTENSION.test(entry.name)) {
      items.push(item({ status: 'queued' }));
      continue;
    }
    if (OTHER_EXTENSION.test(entry.name)) {
      items.push(item({ status: 'skipped', reason: ImportMessages.notDicom }));
      continue;
    }
    // No telling extension (disc files are often plain IM000001): a picked file is checked now (132
    // bytes), a zip entry when its turn comes (it would have to be inflated first).
    if (entry.source) {
      items.push(item({ status: 'queued' }, 'sniff'));
    } else {
      const file = await entry.open(maxFileBytes).catch((e: unknown) => {
        if (e instanceof EntryTooLarge) return null;
        throw e;
      });
      const isDicom = file ? await looksLikeDicom(file) : false;
      items.push(item(isDicom ? { status: 'queued' } : { status: 'skipped', reason: ImportMessages.notDicom }));
    }
  }

  const toSend = items.filter((i) => i.state.status === 'queued');
  const bytes = toSend.reduce((sum, i) => sum + i.size, 0);
  let refusal: string | null = null;
  if (!toSend.length) {
    refusal = unmatchedDicomdir ? ImportMessages.dicomdirFilesMissing : ImportMessages.nothingToImport;
  } else if (toSend.length > limits.maxImportFiles) {
    refusal = ImportMessages.tooManyFiles(toSend.length, limits.maxImportFiles);
  } else if (bytes > maxImportBytes) {
    refusal = ImportMessages.tooManyBytes(Math.ceil(bytes / MB), limits.maxImportMb);
  }
  return { items, refusal, notes };

  function refused(reason: string): ImportPlan {
    return { items: [], refusal: reason, notes };
  }
}

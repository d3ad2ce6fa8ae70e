/**
 * Where the files of a study import come from (`docs/product.md` › Upload): a multi-select, a
 * folder (picked or dropped) or a .zip. Each becomes an `ImportEntry` whose bytes are read only
 * when its turn to upload comes, and never past the per-file limit.
 */

/** A file chosen in the picker or dropped, with its path inside the chosen folder ('' for none). */
export type PickedFile = { file: File; path: string };

export type ImportEntry = {
  /** '/'-separated, without a leading slash: 'CD/DICOM/IM0001', or 'study.zip › DICOM/IM0001'. */
  path: string;
  /** The zip it came from ('' for a picked file) and its path in there: DICOMDIR references resolve within one source. */
  source: string;
  innerPath: string;
  name: string;
  /** Bytes: the file's size, or the size a zip entry declares (its actual size is checked while it is read). */
  size: number;
  /** The bytes, refused (EntryTooLarge) past `maxBytes`. */
  open: (maxBytes: number) => Promise<Blob>;
};

/** A file (or zip entry) larger than the per-file limit, by its declared or its actual size. */
export class EntryTooLarge extends Error {
  constructor() {
    super('entry too large');
    this.name = 'EntryTooLarge';
  }
}

/** Hidden files (.DS_Store, ._x, .git/…) and the resource forks macOS adds to zips are nobody's images. */
export function isHiddenPath(path: string): boolean {
  return path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX');
}

export const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

export function isZip(file: File): boolean {
  return /\.zip$/i.test(file.name) || file.type === 'application/zip' || file.type === 'application/x-zip-compressed';
}

/** Files from an <input type=file multiple> (webkitRelativePath is set for a picked folder). */
export function pickedFromInput(files: Iterable<File>): PickedFile[] {
  return [...files].map((file) => ({ file, path: file.webkitRelativePath || file.name }));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every entry of a folder: readEntries answers in batches (100 in Chrome) until an empty one. */
async function readAll(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) return all;
    all.push(...batch);
  }
}

/**
 * What was dropped: files and whole folders (walked), through the File and Directory Entries API.
 * `entries` must be taken from the DataTransfer during the drop event itself (the list empties after).
 */
export async function pickedFromDrop(entries: FileSystemEntry[], stopAfter: number): Promise<PickedFile[]> {
  const out: PickedFile[] = [];
  const walk = async (entry: FileSystemEntry): Promise<void> => {
    if (out.length > stopAfter) return;
    const path = entry.fullPath.replace(/^\/+/, '');
    if (entry.isFile) {
      out.push({ file: await fileOf(entry as FileSystemFileEntry), path });
    } else if (entry.isDirectory) {
      for (const child of await readAll(entry as FileSystemDirectoryEntry)) await walk(child);
    }
  };
  for (const entry of entries) await walk(entry);
  return out;
}

/** A picked file as an import entry: its bytes are the File itself (read by the browser as it is sent). */
export function entryOfFile({ file, path }: PickedFile): ImportEntry {
  return {
    path,
    source: '',
    innerPath: path,
    name: file.name,
    size: file.size,
    open: async (maxBytes) => {
      if (file.size > maxBytes) throw new EntryTooLarge();
      return file;
    },
  };
}

/** Collects a zip entry's inflated bytes, failing as soon as they pass `maxBytes` (a zip bomb stops there). */
function cappedSink(maxBytes: number) {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const writable = new WritableStream<Uint8Array>({
    write(chunk) {
      total += chunk.length;
      if (total > maxBytes) throw new EntryTooLarge();
      chunks.push(chunk);
    },
  });
  return { writable, blob: () => new Blob(chunks as BlobPart[]) };
}

/**
 * The files inside a .zip, read from its central directory without inflating anything
 * (@zip.js/zip.js reads the archive through Blob slices, so a large zip is never held whole).
 * Directories, hidden files and __MACOSX/ are left out. Throws when the file is not a readable zip.
 */
export async function entriesOfZip(zip: PickedFile): Promise<ImportEntry[]> {
  // Loaded with the first zip only; inflated with the browser's DecompressionStream on this thread
  // (no worker, no WebAssembly: the CSP allows neither from a blob).
  const { BlobReader, ZipReader, configure } = await import('@zip.js/zip.js');
  configure({ useWebWorkers: false, useCompressionStream: true });
  const reader = new ZipReader(new BlobReader(zip.file));
  const entries = await reader.getEntries();
  const label = zip.path || zip.file.name;
  const out: ImportEntry[] = [];
  for (const entry of entries) {
    if (entry.directory || isHiddenPath(entry.filename)) continue;
    const innerPath = entry.filename.replace(/\\/g, '/').replace(/^\/+/, '');
    out.push({
      path: `${label} › ${innerPath}`,
      source: label,
      innerPath,
      name: baseName(innerPath),
      size: entry.uncompressedSize,
      open: async (maxBytes) => {
        if (entry.uncompressedSize > maxBytes) throw new EntryTooLarge();
        const sink = cappedSink(maxBytes);
        try {
          await entry.getData(sink.writable);
        } catch (error) {
          if (error instanceof EntryTooLarge) throw error;
          // zip.js stops at the declared size itself: an entry that inflates to more is damaged or a bomb.
          const text = error instanceof Error ? error.message : '';
          throw new Error(
            /uncompressed size/i.test(text)
              ? 'the .zip entry is larger than it declares'
              : `the .zip entry is damaged (${text})`,
            { cause: error },
          );
        }
        return sink.blob();
      },
    });
  }
  return out;
}

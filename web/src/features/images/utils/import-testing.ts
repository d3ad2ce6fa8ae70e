// Test helpers of the study import: real DICOM files from the server's fixtures and zips made with
// the same library the import reads them with. Imported by tests only.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BlobWriter, Uint8ArrayReader, ZipWriter } from '@zip.js/zip.js';
import type { PickedFile } from './import-sources';

// A path, not new URL(): Vite rewrites that form.
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../../../server/test/fixtures/dicom');

export const fixtureBytes = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));

/** A real fixture as a picked file at `path` (its name is the path's last part). */
export function pickedFixture(fixture: string, path: string): PickedFile {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return { file: new File([fixtureBytes(fixture)], name), path };
}

/**
 * The small CT fixture with its Study Description (0008,1030), 'e+1 ', replaced by `tag` (4
 * characters): the caption then tells an upload handler which file it got. In jsdom the file part
 * itself arrives empty and named 'blob' (undici cannot read jsdom's Blob), so only the fields tell.
 */
export function taggedCt(tag: string, path: string): PickedFile {
  if (tag.length !== 4) throw new Error('a tag has 4 characters');
  const bytes = fixtureBytes('ct_explicit_le_16bit_signed_small.dcm');
  const element = [0x08, 0x00, 0x30, 0x10, 0x4c, 0x4f, 0x04, 0x00, 0x65, 0x2b, 0x31, 0x20];
  const at = bytes.findIndex((_, i) => element.every((b, j) => bytes[i + j] === b));
  if (at < 0) throw new Error('Study Description not found in the fixture');
  bytes.set(new TextEncoder().encode(tag), at + 8);
  const name = path.slice(path.lastIndexOf('/') + 1);
  return { file: new File([bytes], name), path };
}

export function pickedBytes(bytes: Uint8Array<ArrayBuffer> | string, path: string, type = ''): PickedFile {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return { file: new File([bytes], name, { type }), path };
}

/** A .zip holding `files` (path → bytes), deflated. */
export async function makeZip(files: Record<string, Uint8Array | string>): Promise<Uint8Array<ArrayBuffer>> {
  const writer = new ZipWriter(new BlobWriter('application/zip'), { useWebWorkers: false });
  for (const [path, data] of Object.entries(files)) {
    await writer.add(path, new Uint8ArrayReader(typeof data === 'string' ? new TextEncoder().encode(data) : data));
  }
  return new Uint8Array(await (await writer.close()).arrayBuffer());
}

/**
 * The zip with every entry's uncompressed size rewritten to `declared` (local headers and central
 * directory), as a zip bomb that lies about its size would.
 */
export function lieAboutSizes(zip: Uint8Array<ArrayBuffer>, declared: number): Uint8Array<ArrayBuffer> {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let at = 0; at + 4 <= out.length; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50) view.setUint32(at + 22, declared, true);
    if (signature === 0x02014b50) view.setUint32(at + 24, declared, true);
    if (signature === 0x08074b50) view.setUint32(at + 12, declared, true);
  }
  return out;
}

export const pickedZip = (bytes: Uint8Array<ArrayBuffer>, path: string): PickedFile =>
  pickedBytes(bytes, path, 'application/zip');

export type MultipartPart = { name: string; filename: string | null; type: string | null; size: number; text: string };

/**
 * The parts of a multipart/form-data request as an upload handler sees them. Read by hand: undici's
 * own formData() refuses the files of a request sent from jsdom (its File is not undici's).
 */
export async function multipartParts(request: Request): Promise<Map<string, MultipartPart>> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(request.headers.get('content-type') ?? '');
  const body = new TextDecoder('latin1').decode(await request.arrayBuffer());
  const parts = new Map<string, MultipartPart>();
  if (!boundary) return parts;
  for (const chunk of body.split(`--${boundary[1] ?? boundary[2]}`)) {
    const split = chunk.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = chunk.slice(0, split);
    const text = chunk.slice(split + 4, chunk.endsWith('\r\n') ? -2 : undefined);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (!name) continue;
    parts.set(name, {
      name,
      filename: /filename="([^"]*)"/.exec(head)?.[1] ?? null,
      type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? null,
      size: text.length,
      text,
    });
  }
  return parts;
}

/** A dropped file, as the File and Directory Entries API hands it over. */
export function fileEntry(path: string, bytes: string | Uint8Array<ArrayBuffer> = 'x'): FileSystemEntry {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const entry = {
    isFile: true,
    isDirectory: false,
    name,
    fullPath: `/${path}`,
    file: (ok: (f: File) => void) => ok(new File([bytes], name)),
  };
  return entry as unknown as FileSystemEntry;
}

/** A dropped folder whose reader answers two entries at a time (Chrome answers 100), then an empty batch. */
export function dirEntry(path: string, children: FileSystemEntry[]): FileSystemEntry {
  const entry = {
    isFile: false,
    isDirectory: true,
    name: path.slice(path.lastIndexOf('/') + 1),
    fullPath: `/${path}`,
    createReader: () => {
      let at = 0;
      return {
        readEntries: (ok: (batch: FileSystemEntry[]) => void) => {
          const batch = children.slice(at, at + 2);
          at += batch.length;
          setTimeout(() => ok(batch), 0);
        },
      };
    },
  };
  return entry as unknown as FileSystemEntry;
}

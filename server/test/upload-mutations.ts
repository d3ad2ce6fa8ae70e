import { UPLOAD_DUPLICATE_CODE } from '@medshare/contracts';
/**
 * Mutated uploads for the upload fuzzer (scripts/fuzz-upload.ts, 5000 cases) and its CI test
 * (upload-fuzz.test.ts, a few hundred): broken files inside well-formed and malformed multipart
 * bodies, reproducible from a seed. Also the after-run check that storage holds no half-file.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Db } from '../src/db/db.ts';
import { createKeyring } from '../src/crypto/envelope.ts';
import { type FixtureFile, fixtures } from '../src/modules/images/images.test-helpers.ts';
import { createEncryptedStore } from '../src/storage/encrypted-store.ts';
import type { BlobStorage } from '../src/storage/storage.ts';

/** mulberry32: small, fast and the same on every platform. */
export function rngFrom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
    bytes: (n: number) => Buffer.from(Array.from({ length: n }, () => int(256))),
  };
}
export type Rng = ReturnType<typeof rngFrom>;

export interface UploadCase {
  /** The mutation's name, for the histogram and for reproducing a failure. */
  kind: string;
  headers: Record<string, string>;
  payload: Buffer;
}

interface FilePart {
  field: string;
  filename: string;
  type: string;
  data: Buffer;
}
type Part = { field: string; value: string } | FilePart;

const CRLF = '\r\n';

/** A multipart/form-data body by hand, so that it can also be made wrong on purpose. */
export function multipart(parts: Part[], boundary: string, opts: { close?: boolean } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}${CRLF}`));
    if ('data' in p) {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${p.field}"; filename="${p.filename}"${CRLF}` +
            `Content-Type: ${p.type}${CRLF}${CRLF}`,
        ),
        p.data,
        Buffer.from(CRLF),
      );
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.field}"${CRLF}${CRLF}${p.value}${CRLF}`));
    }
  }
  if (opts.close !== false) chunks.push(Buffer.from(`--${boundary}--${CRLF}`));
  return Buffer.concat(chunks);
}

const mimeOf: Record<string, string> = {
  '.dcm': 'application/dicom',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
};
const extOf = (name: string) => name.slice(name.lastIndexOf('.'));
const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'SV', 'UC', 'UN', 'UR', 'UT', 'UV']);
const VRS = new Set(
  'AE AS AT CS DA DS DT FD FL IS LO LT OB OD OF OL OV OW PN SH SL SQ SS ST SV TM UC UI UL UN UR US UT UV'.split(' '),
);

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A small PNG that declares enormous dimensions (decompression-bomb shape), with valid CRCs. */
function bombPng(rng: Rng): Buffer {
  const w = rng.pick([65_535, 100_000, 1_000_000, 2 ** 31 - 1]);
  const h = rng.pick([65_535, 100_000, 1_000_000, 2 ** 31 - 1]);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = rng.pick([0, 2, 6]); // grey, RGB, RGBA
  const rows = Buffer.alloc(1 + Math.min(w, 4096) * 4 * 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Rewrites the IHDR of a real PNG with huge dimensions, CRC fixed so only the size is wrong. */
function hugePngHeader(png: Buffer, rng: Rng): Buffer {
  const out = Buffer.from(png);
  if (out.toString('latin1', 12, 16) !== 'IHDR') return out;
  out.writeUInt32BE(rng.pick([50_000, 65_535, 1_000_000, 0x7fffffff]), 16);
  out.writeUInt32BE(rng.pick([50_000, 65_535, 1_000_000, 0x7fffffff]), 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  return out;
}

/** A JPEG whose first SOF marker declares 65 500 × 65 500 pixels. */
function hugeJpegHeader(jpg: Buffer): Buffer {
  const out = Buffer.from(jpg);
  for (let i = 2; i + 9 < out.length; i++) {
    if (out[i] === 0xff && out[i + 1]! >= 0xc0 && out[i + 1]! <= 0xc3) {
      out.writeUInt16BE(65_500, i + 5);
      out.writeUInt16BE(65_500, i + 7);
      break;
    }
  }
  return out;
}

/** Sets the length field of a random DICOM element to something huge (or odd, or undefined). */
function hugeDicomLength(dcm: Buffer, rng: Rng): Buffer {
  const out = Buffer.from(dcm);
  const candidates: number[] = [];
  for (let i = 132; i + 12 < out.length && candidates.length < 400; i += 2) {
    if (VRS.has(out.toString('latin1', i + 4, i + 6))) candidates.push(i);
  }
  const huge = rng.pick([0xffffffff, 0xfffffff0, 0x7fffffff, 0x10000000, out.length * 2 + 1]);
  if (!candidates.length) {
    // Implicit VR: any even offset may be an element; its length is the 4 bytes after the tag.
    const at = 132 + 2 * rng.int(Math.max(1, (out.length - 140) / 2));
    if (at + 8 <= out.length) out.writeUInt32LE(huge, at + 4);
    return out;
  }
  const at = rng.pick(candidates);
  const vr = out.toString('latin1', at + 4, at + 6);
  if (LONG_VRS.has(vr)) out.writeUInt32LE(huge, at + 8);
  else out.writeUInt16LE(rng.pick([0xffff, 0xfffe, 0x8001]), at + 6);
  return out;
}

function flipBits(data: Buffer, rng: Rng): Buffer {
  const out = Buffer.from(data);
  const n = 1 + rng.int(16);
  // Half the time inside the first 1 KiB, where headers and the sniffed magic bytes are.
  for (let i = 0; i < n; i++) {
    const at = rng.next() < 0.5 ? rng.int(Math.min(1024, out.length)) : rng.int(out.length);
    out[at]! ^= 1 << rng.int(8);
  }
  return out;
}

type FileMutation = (f: FixtureFile, rng: Rng, all: FixtureFile[]) => { data: Buffer; name?: string; type?: string };

const fileMutations: Record<string, FileMutation> = {
  intact: (f) => ({ data: f.data }),
  bitflip: (f, rng) => ({ data: flipBits(f.data, rng) }),
  truncate: (f, rng) => ({ data: f.data.subarray(0, rng.int(f.data.length)) }),
  truncateHead: (f, rng) => ({ data: f.data.subarray(0, rng.int(200)) }),
  insertBytes: (f, rng) => {
    const at = rng.int(f.data.length);
    return { data: Buffer.concat([f.data.subarray(0, at), rng.bytes(1 + rng.int(64)), f.data.subarray(at)]) };
  },
  deleteBytes: (f, rng) => {
    const at = rng.int(f.data.length);
    return { data: Buffer.concat([f.data.subarray(0, at), f.data.subarray(at + 1 + rng.int(256))]) };
  },
  headerSwap: (f, rng, all) => {
    const other = rng.pick(all);
    const n = rng.pick([8, 16, 132, 512]);
    return { data: Buffer.concat([other.data.subarray(0, n), f.data.subarray(n)]) };
  },
  headerSwapDeclared: (f, rng, all) => {
    // The other file's header and its declared type: the bytes start right, the body is foreign.
    const other = rng.pick(all);
    const n = rng.pick([8, 16, 132, 512]);
    return {
      data: Buffer.concat([other.data.subarray(0, n), f.data.subarray(n)]),
      name: `x${extOf(other.name)}`,
      type: other.type,
    };
  },
  wrongMime: (f, rng) => ({
    data: f.data,
    type: rng.pick([
      'image/png',
      'image/jpeg',
      'application/pdf',
      'application/dicom',
      'text/html',
      'image/svg+xml',
      '',
      'application/octet-stream',
    ]),
  }),
  wrongExtension: (f, rng) => ({
    data: f.data,
    name: `file${rng.pick(['.png', '.jpg', '.pdf', '.dcm', '.html', '.svg', '.exe', '', '.PNG', '.jpg.exe', '.'])}`,
  }),
  hugeDicomLength: (f, rng, all) => {
    const dcm = f.type === 'application/dicom' ? f : rng.pick(all.filter((x) => x.type === 'application/dicom'));
    return { data: hugeDicomLength(dcm.data, rng), name: dcm.name, type: dcm.type };
  },
  hugeImageDims: (f, rng, all) => {
    const img = f.type.startsWith('image/') ? f : rng.pick(all.filter((x) => x.type.startsWith('image/')));
    const data = img.type === 'image/png' ? hugePngHeader(img.data, rng) : hugeJpegHeader(img.data);
    return { data, name: img.name, type: img.type };
  },
  bombPng: (_f, rng) => ({ data: bombPng(rng), name: 'bomb.png', type: 'image/png' }),
  empty: (f) => ({ data: Buffer.alloc(0), name: f.name, type: f.type }),
  garbage: (f, rng) => ({ data: rng.bytes(1 + rng.int(4096)), name: f.name, type: f.type }),
  magicOnly: (f) => ({ data: f.data.subarray(0, f.type === 'application/dicom' ? 132 : 8) }),
};

type BodyShape = (
  file: FilePart,
  rng: Rng,
) => { parts: Part[]; boundary?: string; close?: boolean; headers?: Record<string, string>; raw?: Buffer };

const caption = { field: 'caption', value: 'fuzz' };
const bodyShapes: Record<string, BodyShape> = {
  normal: (file) => ({ parts: [caption, file] }),
  fileFirst: (file) => ({ parts: [file, caption] }),
  noFilePart: () => ({ parts: [caption] }),
  twoFileParts: (file) => ({ parts: [caption, file, { ...file, filename: `2${file.filename}` }] }),
  noCaption: (file) => ({ parts: [file] }),
  blankCaption: (file) => ({ parts: [{ field: 'caption', value: '   ' }, file] }),
  longCaption: (file, rng) => ({
    parts: [{ field: 'caption', value: 'c'.repeat(rng.pick([256, 300, 9000, 70_000])) }, file],
  }),
  oddFieldName: (file, rng) => ({
    parts: [
      caption,
      { ...file, field: rng.pick(['files', 'File', '', 'file[]', 'a'.repeat(200), 'fïle', 'file"; x="']) },
    ],
  }),
  oddFilename: (file, rng) => ({
    parts: [
      caption,
      {
        ...file,
        filename: rng.pick([
          '../../etc/passwd.png',
          'C:\\x\\y.dcm',
          '',
          '.png',
          'a'.repeat(1000) + '.jpg',
          'ünï cødé.pdf',
          'x.png\u0000.exe',
        ]),
      },
    ],
  }),
  badPatient: (file, rng) => ({
    parts: [
      caption,
      file,
      {
        field: 'patientId',
        value: rng.pick(['not-a-uuid', '00000000-0000-0000-0000-000000000000', "' OR 1=1 --", 'x'.repeat(9000)]),
      },
    ],
  }),
  manyFields: (file) => ({
    parts: [...Array.from({ length: 20 }, (_, i) => ({ field: `f${i}`, value: 'v' })), caption, file],
  }),
  badBoundary: (file) => ({
    parts: [caption, file],
    boundary: 'realboundary',
    headers: { 'content-type': 'multipart/form-data; boundary=otherboundary' },
  }),
  noBoundary: (file) => ({
    parts: [caption, file],
    boundary: 'b0undary',
    headers: { 'content-type': 'multipart/form-data' },
  }),
  unclosed: (file) => ({ parts: [caption, file], close: false }),
  cutBody: (file, rng) => {
    const body = multipart([caption, file], 'cutboundary');
    return {
      parts: [],
      raw: body.subarray(0, rng.int(body.length)),
      headers: { 'content-type': 'multipart/form-data; boundary=cutboundary' },
    };
  },
  wrongContentType: (file, rng) => ({
    parts: [caption, file],
    boundary: 'wctboundary',
    headers: {
      'content-type': rng.pick([
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'image/png',
        'multipart/mixed; boundary=wctboundary',
      ]),
    },
  }),
  partHeaderGarbage: (file, rng) => {
    const body = multipart([caption, file], 'garbageboundary');
    const at = body.indexOf('Content-Disposition', 40);
    const junk = rng.pick([
      'Content-Disposition: attachment\r\n',
      'X: ' + 'y'.repeat(5000) + '\r\n',
      '\r\n\r\n',
      'Content-Type: \r\n',
    ]);
    const raw = at > 0 ? Buffer.concat([body.subarray(0, at), Buffer.from(junk), body.subarray(at)]) : body;
    return { parts: [], raw, headers: { 'content-type': 'multipart/form-data; boundary=garbageboundary' } };
  },
};

const FILE_KINDS = Object.keys(fileMutations);
const BODY_KINDS = Object.keys(bodyShapes);

/** Case `index` of the run with `seed`: the same pair always gives the same bytes. */
export function makeCase(seed: number, index: number, all: FixtureFile[]): UploadCase {
  // Hashed, not added: mulberry32's first outputs for neighbouring seeds are alike.
  const rng = rngFrom(createHash('sha256').update(`${seed}:${index}`).digest().readUInt32LE(0));
  const f = rng.pick(all);
  const fileKind = rng.pick(FILE_KINDS);
  // Most cases keep a well-formed body so that the file mutations reach the type and DICOM checks.
  const bodyKind = rng.next() < 0.65 ? 'normal' : rng.pick(BODY_KINDS);
  const m = fileMutations[fileKind]!(f, rng, all);
  const file: FilePart = {
    field: 'file',
    filename: m.name ?? f.name,
    type: m.type ?? mimeOf[extOf(f.name)]!,
    data: m.data,
  };
  const shape = bodyShapes[bodyKind]!(file, rng);
  const boundary = shape.boundary ?? `----fuzz${rng.int(1e9)}`;
  const payload = shape.raw ?? multipart(shape.parts, boundary, { close: shape.close });
  return {
    kind: `${fileKind}/${bodyKind}`,
    headers: shape.headers ?? { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  };
}

/**
 * Sends one case over real HTTP. Not inject: light-my-request hands the body over as one chunk,
 * and busboy never finishes a body whose skipped part (e.g. `Content-Disposition: attachment`)
 * arrives in a single chunk larger than 64 KiB — which a socket, read 64 KiB at a time, never does.
 */
export function send(
  port: number,
  token: string,
  c: UploadCase,
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/upload/image',
        headers: { ...c.headers, 'content-length': String(c.payload.length), authorization: `Bearer ${token}` },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    // The server may answer (413, 415) before reading the whole body and close: that is an answer.
    req.on('error', reject);
    req.end(c.payload);
  });
}

export const fuzzFixtures = (): FixtureFile[] => fixtures();

/** 5xx, or a 4xx without the error envelope, is a finding; anything else is an answer. */
export function judge(status: number, body: string): string | null {
  if (status >= 500) return `server error ${status}: ${body.slice(0, 300)}`;
  if (status >= 400) {
    try {
      const json = JSON.parse(body) as { success?: unknown; message?: unknown };
      if (json.success !== false || typeof json.message !== 'string')
        return `error without envelope: ${body.slice(0, 200)}`;
    } catch {
      return `non-JSON error body: ${body.slice(0, 200)}`;
    }
  } else if (status === 200) {
    // A DICOM instance already stored by this uploader for this patient (docs/product.md › Upload):
    // answered with the stored image, nothing new stored.
    try {
      const json = JSON.parse(body) as { success?: unknown; code?: unknown };
      if (json.success !== true || json.code !== UPLOAD_DUPLICATE_CODE)
        return `200 that is not a duplicate: ${body.slice(0, 200)}`;
    } catch {
      return `non-JSON 200 body: ${body.slice(0, 200)}`;
    }
  } else if (status !== 201) {
    return `unexpected status ${status}`;
  }
  return null;
}

export interface StorageCheck {
  rows: number;
  blobs: number;
  problems: string[];
}

/**
 * No half-file: every image row's blob (and ready thumbnail) decrypts and matches the row's size
 * and SHA-256, every stored blob belongs to a row, and no partial write is left in the temp folder.
 */
export async function checkStorage(opts: {
  db: Db;
  storage: BlobStorage;
  masterKey: Buffer;
  dataDir: string | null;
}): Promise<StorageCheck> {
  const store = createEncryptedStore(opts.storage, createKeyring(opts.masterKey));
  const rows = await opts.db.selectFrom('images').selectAll().where('deleted_at', 'is', null).execute();
  const problems: string[] = [];
  const expected = new Set<string>();
  const drain = async (
    key: string,
    wrapped: { wrappedKey: string; keyId: string },
    want: { size: number; sha256: string },
  ) => {
    expected.add(key);
    try {
      const plain = await store.open(key, wrapped, want);
      const hash = createHash('sha256');
      for await (const c of plain as AsyncIterable<Buffer>) hash.update(c);
      if (hash.digest('hex') !== want.sha256) problems.push(`${key}: plaintext differs from the row`);
    } catch (err) {
      problems.push(`${key}: ${(err as Error).message}`);
    }
  };
  for (const r of rows) {
    await drain(
      r.storage_key,
      { wrappedKey: r.wrapped_key, keyId: r.key_id },
      { size: r.size_bytes, sha256: r.sha256 },
    );
    if (r.thumbnail_status === 'ready') {
      if (
        !r.thumb_storage_key ||
        !r.thumb_wrapped_key ||
        !r.thumb_key_id ||
        r.thumb_size_bytes === null ||
        !r.thumb_sha256
      ) {
        problems.push(`${r.id}: thumbnail ready without its columns`);
      } else {
        await drain(
          r.thumb_storage_key,
          { wrappedKey: r.thumb_wrapped_key, keyId: r.thumb_key_id },
          { size: r.thumb_size_bytes, sha256: r.thumb_sha256 },
        );
      }
    }
  }
  let blobs = 0;
  for await (const b of opts.storage.list()) {
    blobs++;
    if (!expected.has(b.key)) problems.push(`${b.key}: blob without an image row`);
  }
  if (opts.dataDir) {
    const tmp = join(opts.dataDir, 'blobs', '.tmp');
    const partials = existsSync(tmp) ? readdirSync(tmp).filter((n) => statSync(join(tmp, n)).isFile()) : [];
    if (partials.length) problems.push(`${partials.length} partial writes left in ${tmp}`);
  }
  return { rows: rows.length, blobs, problems };
}

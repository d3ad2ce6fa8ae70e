import type { ImageContentType } from '@medshare/contracts';

/** Bytes needed to decide the type (DICOM: 128-byte preamble + 'DICM'). */
export const SNIFF_BYTES = 132;

const VRS = new Set(
  'AE AS AT CS DA DS DT FD FL IS LO LT OB OD OF OL OV OW PN SH SL SQ SS ST SV TM UC UI UL UN UR US UT UV'.split(' '),
);

/**
 * A DICOM stream without preamble and meta header (old ACR-NEMA style files, or datasets written
 * raw) starts directly with an element of group 0002 or 0008 in little endian, implicit or
 * explicit VR. Checked strictly enough that text or scripts do not pass.
 */
function looksLikeRawDicom(head: Buffer): boolean {
  if (head.length < 8) return false;
  const group = head.readUInt16LE(0);
  if (group !== 0x0002 && group !== 0x0008) return false;
  const vr = head.toString('latin1', 4, 6);
  if (VRS.has(vr)) return true; // explicit VR little endian
  const length = head.readUInt32LE(4); // implicit VR little endian
  return length % 2 === 0 && length <= 1024;
}

/** The file's real type from its first bytes, or null when it is none of the accepted kinds. */
export function detectType(head: Buffer): ImageContentType | null {
  // First: the DICOM preamble may legally hold anything, including another format's magic bytes.
  if (head.length >= 132 && head.toString('latin1', 128, 132) === 'DICM') return 'application/dicom';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png';
  if (head.length >= 5 && head.toString('latin1', 0, 5) === '%PDF-') return 'application/pdf';
  if (looksLikeRawDicom(head)) return 'application/dicom';
  return null;
}

const declared: Record<ImageContentType, { mimes: string[]; extensions: string[] }> = {
  'image/jpeg': { mimes: ['image/jpeg', 'image/jpg', 'image/pjpeg'], extensions: ['.jpg', '.jpeg'] },
  'image/png': { mimes: ['image/png'], extensions: ['.png'] },
  'application/pdf': { mimes: ['application/pdf'], extensions: ['.pdf'] },
  // Browsers and operating systems rarely know DICOM: the generic binary type is accepted for it.
  'application/dicom': { mimes: ['application/dicom', 'application/octet-stream'], extensions: ['.dcm', '.dicom'] },
};

export function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/** The declared MIME type and the extension must both agree with what the bytes are. */
export function declarationMatches(type: ImageContentType, mimetype: string, filename: string): boolean {
  const rule = declared[type];
  const mime = mimetype.split(';')[0]!.trim().toLowerCase();
  return rule.mimes.includes(mime) && rule.extensions.includes(extensionOf(filename));
}

/** A declaration that could never be accepted, so the upload can be refused before any byte is stored. */
export function declarationPlausible(mimetype: string, filename: string): boolean {
  return (Object.keys(declared) as ImageContentType[]).some((t) => declarationMatches(t, mimetype, filename));
}

const extensionFor: Record<ImageContentType, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'application/pdf': '.pdf',
  'application/dicom': '.dcm',
};

/**
 * A download name safe in any header and file system: the user's base name reduced to letters,
 * digits and a few marks, the extension set from the real type. Returns the ASCII fallback and
 * the RFC 6266 header value with `filename*`.
 */
export function contentDisposition(
  kind: 'inline' | 'attachment',
  originalName: string,
  type: ImageContentType,
  fallbackStem: string,
): string {
  const base = (originalName.split(/[\\/]/).pop() ?? '').normalize('NFC');
  const dot = base.lastIndexOf('.');
  const rawStem = dot > 0 ? base.slice(0, dot) : base;
  const stem = rawStem
    .replace(/[^\p{L}\p{N} ._()-]+/gu, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[ ._-]+|[ ._-]+$/g, '')
    .slice(0, 80);
  const name = `${stem || fallbackStem}${extensionFor[type]}`;
  const ascii = name.replace(/[^A-Za-z0-9._()-]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

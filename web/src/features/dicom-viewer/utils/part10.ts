/**
 * Some DICOM files (old CR exports among them) start straight at the data set, without the
 * 128-byte preamble, the `DICM` prefix and the File Meta group. dicom-parser needs that header to
 * know the transfer syntax, so one is made for them: explicit VR when the first element carries a
 * two-letter VR, implicit otherwise (both little endian, the only ones allowed without a meta
 * header by PS3.5 §10).
 */
export const IMPLICIT_LE = '1.2.840.10008.1.2';
export const EXPLICIT_LE = '1.2.840.10008.1.2.1';

export function hasPart10Header(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 132 && bytes[128] === 0x44 && bytes[129] === 0x49 && bytes[130] === 0x43 && bytes[131] === 0x4d
  );
}

export function guessTransferSyntax(bytes: Uint8Array): string {
  if (bytes.length < 6) return IMPLICIT_LE;
  const isUpper = (b: number | undefined) => b !== undefined && b >= 0x41 && b <= 0x5a;
  return isUpper(bytes[4]) && isUpper(bytes[5]) ? EXPLICIT_LE : IMPLICIT_LE;
}

/** The bytes with a preamble and a minimal File Meta group in front, or the bytes as they are. */
export function ensurePart10(bytes: Uint8Array): Uint8Array {
  if (hasPart10Header(bytes)) return bytes;
  const uid = guessTransferSyntax(bytes);
  // UI values are padded to an even length with a NUL.
  const value = new TextEncoder().encode(uid.length % 2 ? `${uid}\0` : uid);
  // (0002,0000) UL group length, then (0002,0010) UI; explicit VR little endian: tag, VR,
  // 2-byte length, value.
  const element = new Uint8Array(12 + 8 + value.length);
  const view = new DataView(element.buffer);
  view.setUint16(0, 0x0002, true);
  view.setUint16(2, 0x0000, true);
  element[4] = 0x55; // U
  element[5] = 0x4c; // L
  view.setUint16(6, 4, true);
  view.setUint32(8, 8 + value.length, true);
  view.setUint16(12, 0x0002, true);
  view.setUint16(14, 0x0010, true);
  element[16] = 0x55; // U
  element[17] = 0x49; // I
  view.setUint16(18, value.length, true);
  element.set(value, 20);
  const out = new Uint8Array(132 + element.length + bytes.length);
  out.set([0x44, 0x49, 0x43, 0x4d], 128);
  out.set(element, 132);
  out.set(bytes, 132 + element.length);
  return out;
}

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXPLICIT_LE, IMPLICIT_LE, ensurePart10, guessTransferSyntax, hasPart10Header } from './part10';

// The real files the server tests use (a path, not new URL(): Vite rewrites that form).
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../../../server/test/fixtures/dicom');
const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));

describe('ensurePart10', () => {
  it('leaves a file with preamble and DICM prefix as it is', () => {
    const ct = fixture('ct_explicit_le_16bit_signed_small.dcm');
    expect(hasPart10Header(ct)).toBe(true);
    expect(ensurePart10(ct)).toBe(ct);
  });

  it('gives a header-less implicit VR file a preamble and a meta group naming implicit VR', () => {
    const cr = fixture('cr_implicit_le_no_preamble_mono1.dcm');
    expect(hasPart10Header(cr)).toBe(false);
    expect(guessTransferSyntax(cr)).toBe(IMPLICIT_LE);
    const fixed = ensurePart10(cr);
    expect(hasPart10Header(fixed)).toBe(true);
    const view = new DataView(fixed.buffer, fixed.byteOffset);
    // (0002,0000) UL holds the length of the rest of the group.
    expect([view.getUint16(132, true), view.getUint16(134, true)]).toEqual([2, 0]);
    const groupLength = view.getUint32(140, true);
    // (0002,0010) UI with the padded UID.
    expect([view.getUint16(144, true), view.getUint16(146, true)]).toEqual([2, 0x10]);
    const uidLength = view.getUint16(150, true);
    expect(uidLength % 2).toBe(0);
    expect(groupLength).toBe(8 + uidLength);
    expect(new TextDecoder().decode(fixed.subarray(152, 152 + uidLength)).replace(/\0$/, '')).toBe(IMPLICIT_LE);
    // The data set follows unchanged.
    expect(fixed.subarray(152 + uidLength)).toEqual(cr);
  });

  it('guesses explicit VR when the first element carries a two-letter VR', () => {
    // (0008,0005) CS, length 10
    const explicit = new Uint8Array([0x08, 0x00, 0x05, 0x00, 0x43, 0x53, 0x0a, 0x00]);
    expect(guessTransferSyntax(explicit)).toBe(EXPLICIT_LE);
    // (0008,0005) implicit: 4-byte length
    const implicit = new Uint8Array([0x08, 0x00, 0x05, 0x00, 0x0a, 0x00, 0x00, 0x00]);
    expect(guessTransferSyntax(implicit)).toBe(IMPLICIT_LE);
  });
});

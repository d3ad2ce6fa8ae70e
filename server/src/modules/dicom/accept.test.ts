import { describe, expect, it } from 'vitest';
import { parseAccept, retrieveSyntaxes } from './accept.ts';

describe('parseAccept (docs/architecture.md › Studies and DICOMweb)', () => {
  it('reads the type parameter quoted, as RFC 7231 writes it', () => {
    expect(parseAccept('multipart/related; type="application/octet-stream"; transfer-syntax=*')).toEqual([
      { type: 'multipart/related', params: { type: 'application/octet-stream', 'transfer-syntax': '*' }, q: 1 },
    ]);
  });

  it("reads it unquoted too, as Cornerstone's and OHIF's loaders send it", () => {
    expect(parseAccept('multipart/related; type=application/octet-stream; transfer-syntax=*')).toEqual([
      { type: 'multipart/related', params: { type: 'application/octet-stream', 'transfer-syntax': '*' }, q: 1 },
    ]);
    expect(retrieveSyntaxes('multipart/related; type=application/dicom; transfer-syntax=*')).toEqual(['*']);
  });

  it('orders by q and leaves out what does not parse even quoted, and q=0', () => {
    const ranges = parseAccept('image/png;q=0.5, multipart/related; type="application/dicom", a b c, image/jpeg;q=0');
    expect(ranges.map((r) => r.type)).toEqual(['multipart/related', 'image/png']);
  });

  it('quotes an unquoted value beside a quoted one holding a semicolon, and keeps spaces inside a value', () => {
    expect(
      parseAccept('multipart/related; x="a;b"; type=application/dicom ; transfer-syntax = 1.2.840.10008.1.2.1'),
    ).toEqual([
      {
        type: 'multipart/related',
        params: { x: 'a;b', type: 'application/dicom', 'transfer-syntax': '1.2.840.10008.1.2.1' },
        q: 1,
      },
    ]);
  });

  it('reads a long run of spaces in one pass (a backtracking pattern took quadratic time over it)', () => {
    // 200 000 spaces: quadratic backtracking took 271 ms at 15 000, so ~50 s here, past the test's
    // timeout; one pass takes a few milliseconds.
    const header = `application/json; a=b${' '.repeat(200_000)}x"`;
    expect(parseAccept(header)).toEqual([]);
    expect(parseAccept(`application/json; a=b${' '.repeat(200_000)}c`)).toEqual([
      { type: 'application/json', params: { a: `b${' '.repeat(200_000)}c` }, q: 1 },
    ]);
  });
});

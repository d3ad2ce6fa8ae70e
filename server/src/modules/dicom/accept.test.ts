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
});

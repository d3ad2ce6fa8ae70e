import { describe, expect, it } from 'vitest';
import { quoteTypeParameter } from './accept';

describe('the Accept header of WADO-RS frame requests', () => {
  it("quotes the loader's type parameter (a value with '/' is not a token) and leaves the rest as it is", () => {
    expect(quoteTypeParameter('multipart/related; type=application/octet-stream; transfer-syntax=*')).toBe(
      'multipart/related; type="application/octet-stream"; transfer-syntax=*',
    );
    expect(quoteTypeParameter('multipart/related; type="image/jls"')).toBe('multipart/related; type="image/jls"');
    expect(quoteTypeParameter('application/octet-stream')).toBe('application/octet-stream');
  });
});

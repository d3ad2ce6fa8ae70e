import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexHtmlByPath } from './route-preloads.ts';

const INDEX = '<html><head><title>x</title></head><body></body></html>';

function distWith(routes: unknown): string {
  const dist = mkdtempSync(join(tmpdir(), 'route-preloads-'));
  writeFileSync(join(dist, 'route-preloads.json'), JSON.stringify(routes));
  return dist;
}

describe('indexHtmlByPath', () => {
  it('gives index.html as it is without the build’s list', () => {
    const indexFor = indexHtmlByPath(mkdtempSync(join(tmpdir(), 'route-preloads-')), INDEX);
    expect(indexFor('/view-images')).toBe(INDEX);
  });

  it('takes the first route that matches, and index.html as it is when none does', () => {
    const indexFor = indexHtmlByPath(
      distWith([
        { path: '/a', pattern: '^/a/?$', files: ['/assets/a-1.js'] },
        { path: '/a', pattern: '^/a/?$', files: ['/assets/other-2.js'] },
      ]),
      INDEX,
    );
    expect(indexFor('/a')).toBe(
      '<html><head><title>x</title>  <link rel="modulepreload" crossorigin href="/assets/a-1.js">\n  </head><body></body></html>',
    );
    expect(indexFor('/b')).toBe(INDEX);
  });

  it('refuses a list whose files are not the build’s asset URLs: they are written into the HTML', () => {
    for (const file of ['/assets/x.js"><script src="//evil.example/x.js', '//evil.example/a.js', '/assets/../index.js'])
      expect(() => indexHtmlByPath(distWith([{ path: '/a', pattern: '^/a$', files: [file] }]), INDEX), file).toThrow();
  });
});

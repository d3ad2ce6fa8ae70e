import { matchPath } from 'react-router';
import { describe, expect, it } from 'vitest';
import { type Manifest, patternSource, routePreloads } from '../../build/route-preloads';
import { routePageFiles } from './router';

describe('routePageFiles: the pages each route renders, for the build to preload', () => {
  it('lists the frame and the page of a signed-in route, a page alone otherwise, and the splat last', () => {
    const plan = new Map(routePageFiles().map(({ path, files }) => [path, files]));
    expect(plan.get('/view-images')).toEqual(['./routes/app/app-layout.tsx', './routes/app/view-images.tsx']);
    expect(plan.get('/studies/:studyUid/series/:seriesUid')).toEqual([
      './routes/app/app-layout.tsx',
      '../features/dicom-viewer/series-viewer-route.tsx',
    ]);
    expect(plan.get('/login')).toEqual(['./routes/login.tsx']);
    expect(plan.get('/')).toEqual(['./routes/landing.tsx']);
    expect(plan.get('/*')).toEqual(['./routes/not-found.tsx']);
    // Every route renders a page of its own.
    for (const [path, files] of plan) expect(files.length, path).toBeGreaterThan(0);
  });
});

describe('routePreloads: a route’s chunks from the build’s manifest', () => {
  const manifest: Manifest = {
    'index.html': { file: 'assets/index-1.js', isEntry: true, imports: ['_runtime-1.js'] },
    '_runtime-1.js': { file: 'assets/runtime-1.js' },
    '_ui-1.js': { file: 'assets/ui-1.js', imports: ['index.html', '_runtime-1.js'] },
    'src/app/routes/app/app-layout.tsx': { file: 'assets/app-layout-1.js', imports: ['index.html', '_ui-1.js'] },
    'src/app/routes/app/view-images.tsx': { file: 'assets/view-images-1.js', imports: ['_ui-1.js', '_card-1.js'] },
    '_card-1.js': { file: 'assets/card-1.js', imports: ['_ui-1.js'] },
    'src/app/routes/not-found.tsx': { file: 'assets/not-found-1.js' },
  };
  const inHtml = new Set(['/assets/index-1.js', '/assets/runtime-1.js']);

  it('follows the static imports once each, leaving out what the HTML loads, the splat last', () => {
    const preloads = routePreloads(
      [
        { path: '/*', files: ['./routes/not-found.tsx'] },
        { path: '/view-images', files: ['./routes/app/app-layout.tsx', './routes/app/view-images.tsx'] },
      ],
      manifest,
      inHtml,
    );
    expect(preloads).toEqual([
      {
        path: '/view-images',
        pattern: '^/view-images/*$',
        files: ['/assets/app-layout-1.js', '/assets/ui-1.js', '/assets/view-images-1.js', '/assets/card-1.js'],
      },
      { path: '/*', pattern: '^(?:/.*)?/*$', files: ['/assets/not-found-1.js'] },
    ]);
  });

  it('fails the build for a page the manifest does not have', () => {
    expect(() => routePreloads([{ path: '/a', files: ['./routes/gone.tsx'] }], manifest, inHtml)).toThrow(
      /no chunk for src\/app\/routes\/gone.tsx/,
    );
  });
});

describe('patternSource: the paths a route matches, as React Router matches them', () => {
  const patterns = routePageFiles().map(({ path }) => path);
  const urls = [
    '/',
    '/login',
    '/LOGIN/',
    '/login/x',
    '/view-images',
    '/view-images/',
    '/view-images//',
    '/dicom/1//',
    '/user-profile//',
    '/view-imagesx',
    '/user-profile',
    '/user-profile/abc',
    '/user-profile/abc/def',
    '/dicom',
    '/dicom/1',
    '/studies/1.2.3',
    '/studies/1.2.3/series/4.5',
    '/studies/1.2.3/series',
    '/x',
    '/nothing/here',
  ];
  it.each(patterns)('%s', (pattern) => {
    const pattern_ = new RegExp(patternSource(pattern), 'i');
    for (const url of urls) expect(pattern_.test(url), `${pattern} on ${url}`).toBe(matchPath(pattern, url) !== null);
  });
});

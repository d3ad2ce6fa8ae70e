import { Writable } from 'node:stream';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp, newUser, writeTinyWebApp } from './harness.ts';

let t: TestApp;
const logLines: string[] = [];

beforeAll(async () => {
  t = await createTestApp(
    (c) => {
      c.rateLimits.authPerMinute = 5;
      c.logLevel = 'info';
      // A tiny built web app, to check the SPA fallback and its nonce.
      const dist = writeTinyWebApp(c.dataDir);
      // What web/build/precompress.ts writes beside each asset.
      writeFileSync(join(dist, 'assets', 'app.js.br'), brotliCompressSync('console.log(1)'));
      writeFileSync(join(dist, 'assets', 'app.js.gz'), gzipSync('console.log(1)'));
      // What web/build/prerender.ts writes: index.html with a static page in it, for each such page.
      for (const [file, heading] of [
        ['landing.html', 'Landing'],
        ['login.html', 'Login'],
      ])
        writeFileSync(
          join(dist, file!),
          '<html><head><meta property="csp-nonce" nonce="__CSP_NONCE__"><style data-emotion="mui a1" nonce="__CSP_NONCE__">.a1{}</style></head>' +
            `<body><div id="prerendered"><h1>${heading}</h1></div><div id="root"></div></body></html>`,
        );
      // What web/build/route-preloads.ts writes: each route's pattern and the chunks its pages need.
      writeFileSync(
        join(dist, 'route-preloads.json'),
        JSON.stringify([
          {
            path: '/view-images',
            pattern: '^/view-images/*$',
            files: ['/assets/app-layout-A1.js', '/assets/view-images-B2.js'],
          },
          { path: '/studies/:studyUid', pattern: '^/studies/[^/]+/*$', files: ['/assets/study-C3.js'] },
          { path: '/*', pattern: '^(?:/.*)?/*$', files: ['/assets/not-found-D4.js'] },
        ]),
      );
      c.webDist = dist;
    },
    new Writable({
      write(chunk, _enc, cb) {
        logLines.push(String(chunk));
        cb();
      },
    }),
  );
});
afterAll(async () => t?.close());

describe('health, readiness and metrics', () => {
  it('answers health and readiness', async () => {
    expect((await t.request({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    const ready = await t.request({ method: 'GET', url: '/api/ready' });
    expect(ready.json()).toMatchObject({ success: true, data: { status: 'ready' } });
  });

  it('collects request durations by route, and answers /metrics on the public port with 404', async () => {
    const text = await t.app.metrics.text();
    expect(text).toMatch(/medshare_http_request_duration_seconds_bucket\{[^}]*route="\/api\/health"/);
    // Served on METRICS_PORT only (slow-clients.test.ts); not even the SPA fallback answers it here.
    const res = await t.request({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('medshare_http');
  });

  it('serves the OpenAPI UI and document at /api/docs', async () => {
    const doc = await t.request({ method: 'GET', url: '/api/docs/json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json().paths).toHaveProperty('/api/auth/login');
  });
});

describe('security headers', () => {
  it('sends a CSP without unsafe-inline, HSTS, nosniff and no server version', async () => {
    const res = await t.request({ method: 'GET', url: '/api/health' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/unsafe-inline|(?<!wasm-)unsafe-eval/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(res.headers['strict-transport-security']).toMatch(/max-age=31536000/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers.server).toBeUndefined();
  });

  it('serves the SPA with a fresh style nonce that matches the CSP header', async () => {
    const a = await t.request({ method: 'GET', url: '/login' });
    const b = await t.request({ method: 'GET', url: '/view-images' });
    const nonceA = /nonce="([^"]+)"/.exec(a.body)![1]!;
    const nonceB = /nonce="([^"]+)"/.exec(b.body)![1]!;
    expect(nonceA).not.toBe(nonceB);
    expect(String(a.headers['content-security-policy'])).toContain(`'nonce-${nonceA}'`);
    expect(a.headers['cache-control']).toBe('no-store');
  });

  it('sends the static landing and login pages at their paths only, every nonce in them replaced by the answer’s', async () => {
    for (const [url, heading] of [
      ['/', 'Landing'],
      ['/login', 'Login'],
      ['/login?next=%2Fview-images', 'Login'],
    ]) {
      const page = await t.request({ method: 'GET', url: url! });
      expect(page.body, url).toContain(`<div id="prerendered"><h1>${heading}</h1></div>`);
      expect(page.body).not.toContain('__CSP_NONCE__');
      const nonces = [...page.body.matchAll(/nonce="([^"]+)"/g)].map((m) => m[1]);
      expect(nonces).toHaveLength(2);
      expect(new Set(nonces).size).toBe(1);
      expect(String(page.headers['content-security-policy'])).toContain(`'nonce-${nonces[0]}'`);
    }
    for (const url of ['/register', '/login/x', '/view-images', '/x'])
      expect((await t.request({ method: 'GET', url })).body, url).not.toContain('prerendered');
  });

  it("preloads the chunks of the page a path opens, by the build's list of routes", async () => {
    const preloads = async (url: string) =>
      [
        ...(await t.request({ method: 'GET', url })).body.matchAll(
          /<link rel="modulepreload" crossorigin href="([^"]+)">/g,
        ),
      ].map((m) => m[1]);
    expect(await preloads('/view-images')).toEqual(['/assets/app-layout-A1.js', '/assets/view-images-B2.js']);
    // As React Router matches: any case, a trailing slash, the query aside.
    expect(await preloads('/View-Images/?sharingId=x')).toEqual([
      '/assets/app-layout-A1.js',
      '/assets/view-images-B2.js',
    ]);
    expect(await preloads('/studies/1.2.840.1')).toEqual(['/assets/study-C3.js']);
    // A path no page has: the not-found page's chunks, the last route.
    expect(await preloads('/studies/1.2/x/y')).toEqual(['/assets/not-found-D4.js']);
    // The static pages load no app chunk before they are drawn.
    expect(await preloads('/')).toEqual([]);
    expect(await preloads('/login')).toEqual([]);
  });

  it('gzips the page when the browser accepts it (its nonce rules out compressing it at build time)', async () => {
    const zipped = await t.request({ method: 'GET', url: '/', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(zipped.rawPayload).toString()).toContain('<h1>Landing</h1>');
    const plain = await t.request({ method: 'GET', url: '/login', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('csp-nonce');
  });

  it('sends the precompressed asset the browser accepts, and the plain one otherwise', async () => {
    const br = await t.request({ method: 'GET', url: '/assets/app.js', headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe('console.log(1)');
    const gz = await t.request({ method: 'GET', url: '/assets/app.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await t.request({ method: 'GET', url: '/assets/app.js', headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe('console.log(1)');
  });

  it('answers unknown API routes with a JSON 404, not the SPA', async () => {
    const res = await t.request({ method: 'GET', url: '/api/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false });
  });
});

describe('rate limits', () => {
  it('throttles a sign-in route per IP with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await t.request({
        method: 'POST',
        url: '/api/auth/forgot-password',
        payload: { email: `x${i}@example.org` },
        remoteAddress: '10.9.9.9',
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429]);
    // Another address is not affected.
    const other = await t.request({
      method: 'POST',
      url: '/api/auth/forgot-password',
      payload: { email: 'y@example.org' },
      remoteAddress: '10.9.9.10',
    });
    expect(other.statusCode).toBe(200);
  });
});

describe('logs', () => {
  it('never carry passwords, codes, tokens or the authorization header', async () => {
    const u = await newUser(t, 'patient');
    await t.request({ method: 'GET', url: '/api/users/profile?search=Secret+Name', token: u.token });
    const text = logLines.join('');
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain(u.password);
    expect(text).not.toContain(u.token);
    expect(text).not.toMatch(/authorization/i);
    expect(text).not.toContain('Secret+Name');
  });
});

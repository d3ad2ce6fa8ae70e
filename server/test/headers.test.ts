import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_CONTENT_CSP } from '../src/http/content-headers.ts';
import { uploadFile } from '../src/modules/images/images.test-helpers.ts';
import { type TestApp, createTestApp, newUser, writeTinyWebApp } from './harness.ts';

/**
 * http.test.ts checks the headers of one JSON answer. Error paths, the SPA, static files and the
 * rate limiter answer from different places in Fastify (error handler, 404 handler, @fastify/static,
 * the limiter's builder); each must carry the same protection and leak no version.
 */
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp((c) => {
    c.rateLimits.authPerMinute = 2;
    c.webDist = writeTinyWebApp(c.dataDir);
  });
});
afterAll(async () => t?.close());

/** The directive's value, or undefined when the policy lacks it. */
function directive(csp: string, name: string): string | undefined {
  return csp
    .split(';')
    .map((d) => d.trim())
    .find((d) => d === name || d.startsWith(`${name} `))
    ?.slice(name.length)
    .trim();
}

function expectProtected(res: LightMyRequestResponse, what: string) {
  const csp = String(res.headers['content-security-policy'] ?? '');
  expect(csp, `${what}: CSP`).not.toBe('');
  const scriptSrc = directive(csp, 'script-src');
  expect(scriptSrc, `${what}: script-src`).toBeDefined();
  expect(scriptSrc, `${what}: script-src`).not.toMatch(
    /unsafe-inline|(?<!wasm-)unsafe-eval|unsafe-hashes|\*|data:|https?:/,
  );
  expect(directive(csp, 'style-src'), `${what}: style-src`).not.toMatch(/unsafe-inline/);
  expect(directive(csp, 'object-src'), `${what}: object-src`).toBe("'none'");
  expect(directive(csp, 'frame-ancestors'), `${what}: frame-ancestors`).toBe("'none'");
  expect(directive(csp, 'base-uri'), `${what}: base-uri`).toBe("'self'");
  expect(res.headers['strict-transport-security'], `${what}: HSTS`).toMatch(/max-age=31536000; includeSubDomains/);
  expect(res.headers['x-content-type-options'], `${what}: nosniff`).toBe('nosniff');
  expect(res.headers['referrer-policy'], `${what}: referrer`).toBe('no-referrer');
  expect(res.headers['cross-origin-opener-policy'], `${what}: COOP`).toBe('same-origin');
  expectNoVersionLeak(res, what);
}

/** API answers carry PHI: nothing may keep a copy (issue 14 item 8). */
function expectNoStore(res: LightMyRequestResponse, what: string) {
  expect(String(res.headers['cache-control']), `${what}: cache-control`).toMatch(/(^|[ ,])no-store($|[ ,])/);
}

function expectNoVersionLeak(res: LightMyRequestResponse, what: string) {
  expect(res.headers['x-powered-by'], `${what}: x-powered-by`).toBeUndefined();
  expect(res.headers.server, `${what}: server`).toBeUndefined();
  expect(res.headers['x-aspnet-version'], `${what}: x-aspnet-version`).toBeUndefined();
  // No product/version token anywhere in the header values (e.g. "fastify/5.1", "Node.js v24").
  const values = Object.values(res.headers).map(String).join('\n');
  expect(values, `${what}: version tokens`).not.toMatch(/fastify|node\.js|\bnode\/\d/i);
}

describe('security headers on every kind of answer', () => {
  it('SPA page, static asset and JSON success', async () => {
    expectProtected(await t.request({ method: 'GET', url: '/' }), 'GET /');
    expectProtected(await t.request({ method: 'GET', url: '/view-images' }), 'SPA fallback');
    const asset = await t.request({ method: 'GET', url: '/assets/app.js' });
    expect(asset.statusCode).toBe(200);
    expectProtected(asset, 'static asset');
    const json = await t.request({ method: 'GET', url: '/api/appsetting/public' });
    expectProtected(json, 'JSON 200');
    expectNoStore(json, 'JSON 200');
    expectNoStore(await t.request({ method: 'GET', url: '/api/health' }), 'health');
    // Not API answers: fingerprinted assets stay cacheable.
    expect(asset.headers['cache-control']).toMatch(/immutable/);
  });

  it('the share link page /x (issue 18): not stored, no referrer, the app’s own CSP', async () => {
    const page = await t.request({ method: 'GET', url: '/x' });
    expect(page.statusCode).toBe(200);
    expect(String(page.headers['content-type'])).toMatch(/^text\/html/);
    expectProtected(page, 'GET /x');
    expectNoStore(page, 'GET /x');
    // As strict as the app's: the same policy as '/', only the per-answer style nonce differs.
    const app = await t.request({ method: 'GET', url: '/' });
    const withoutNonce = (csp: unknown) => String(csp).replace(/'nonce-[^']+'/g, "'nonce'");
    expect(withoutNonce(page.headers['content-security-policy'])).toBe(
      withoutNonce(app.headers['content-security-policy']),
    );
    // The link's own calls answer the same way.
    const link = await t.request({ method: 'POST', url: '/api/external/link', payload: { token: 'A'.repeat(43) } });
    expect(link.statusCode).toBe(404);
    expectProtected(link, 'POST /api/external/link');
    expectNoStore(link, 'POST /api/external/link');
  });

  it('error answers: 400, 401, 403, 404, 413 and 429', async () => {
    const bad = await t.request({ method: 'POST', url: '/api/auth/login', payload: { email: 'not-an-email' } });
    expect(bad.statusCode).toBe(400);
    expectProtected(bad, '400 validation');
    expectNoStore(bad, '400 validation');

    const unauth = await t.request({ method: 'GET', url: '/api/users' });
    expect(unauth.statusCode).toBe(401);
    expectProtected(unauth, '401');
    expectNoStore(unauth, '401');

    const patient = await newUser(t, 'patient');
    const forbidden = await t.request({ method: 'GET', url: '/api/audit/logs', token: patient.token });
    expect(forbidden.statusCode).toBe(403);
    expectProtected(forbidden, '403');
    expectNoStore(forbidden, '403');

    const missing = await t.request({ method: 'GET', url: '/api/nope' });
    expect(missing.statusCode).toBe(404);
    expectProtected(missing, '404 API');
    expectNoStore(missing, '404 API');

    const huge = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@example.org', password: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.statusCode).toBe(413);
    expectProtected(huge, '413');
    expectNoStore(huge, '413');

    let limited: LightMyRequestResponse | undefined;
    for (let i = 0; i < 5 && !limited; i++) {
      const res = await t.request({
        method: 'POST',
        url: '/api/auth/forgot-password',
        payload: { email: `h${i}@example.org` },
        remoteAddress: '10.77.0.1',
      });
      if (res.statusCode === 429) limited = res;
    }
    expect(limited?.statusCode).toBe(429);
    expectProtected(limited!, '429');
    expectNoStore(limited!, '429');

    const unknownMethod = await t.request({ method: 'DELETE', url: '/api/appsetting/public' });
    expect(unknownMethod.statusCode).toBe(404);
    expectNoStore(unknownMethod, '404 from the router');
  });

  it('HEAD and OPTIONS answers leak no version either', async () => {
    expectNoVersionLeak(await t.request({ method: 'HEAD', url: '/' }), 'HEAD /');
    expectNoVersionLeak(await t.request({ method: 'OPTIONS', url: '/api/health' }), 'OPTIONS');
    expectNoVersionLeak(await t.request({ method: 'GET', url: '/metrics' }), 'metrics');
  });

  it('the API docs page has its own CSP, still without inline or eval scripts', async () => {
    const res = await t.request({ method: 'GET', url: '/api/docs' });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    const scriptSrc = directive(csp, 'script-src');
    expect(scriptSrc).toBeDefined();
    expect(scriptSrc).not.toMatch(/unsafe-inline|(?<!wasm-)unsafe-eval/);
    expect(directive(csp, 'object-src')).toBe("'none'");
    expectNoVersionLeak(res, '/api/docs');
  });
});

describe('stored content answers (issue 14 item 16)', () => {
  // Its own app: the one above allows two sign-ins a minute, and a provider needs three.
  let content: TestApp;
  beforeAll(async () => {
    content = await createTestApp();
  });
  afterAll(async () => content?.close());

  it('a %PDF- file holding HTML comes back sandboxed, not sniffable and not cacheable', async () => {
    const t = content;
    const doctor = await newUser(t, 'healthProvider');
    const html = Buffer.from(
      '%PDF-1.4\n<html><body><script>parent.pwned = true; alert(document.cookie)</script></body></html>\n',
    );
    const upload = await uploadFile(t, doctor.token, { name: 'report.pdf', type: 'application/pdf', data: html });
    expect(upload.statusCode, upload.body).toBe(201);
    const url = upload.json().data.image_url as string;
    for (const [what, path] of [
      ['inline', url],
      ['download', `${url}?download=1`],
    ] as const) {
      const res = await t.request({ method: 'GET', url: path, token: doctor.token });
      expect(res.statusCode, what).toBe(200);
      expect(res.headers['content-type'], what).toBe('application/pdf');
      expect(res.headers['x-content-type-options'], what).toBe('nosniff');
      expect(res.headers['cache-control'], what).toBe('private, no-store');
      const csp = String(res.headers['content-security-policy']);
      expect(csp, what).toBe(STORED_CONTENT_CSP);
      // Bare `sandbox`: no allow-scripts / allow-same-origin token could give the bytes the app's origin.
      expect(directive(csp, 'sandbox'), what).toBe('');
      expect(directive(csp, 'script-src'), what).toBe("'none'");
      expect(directive(csp, 'frame-ancestors'), what).toBe("'none'");
      expectNoVersionLeak(res, what);
    }
  });
});

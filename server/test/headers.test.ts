import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    expectProtected(await t.request({ method: 'GET', url: '/api/appsetting/public' }), 'JSON 200');
  });

  it('error answers: 400, 401, 403, 404, 413 and 429', async () => {
    const bad = await t.request({ method: 'POST', url: '/api/auth/login', payload: { email: 'not-an-email' } });
    expect(bad.statusCode).toBe(400);
    expectProtected(bad, '400 validation');

    const unauth = await t.request({ method: 'GET', url: '/api/users' });
    expect(unauth.statusCode).toBe(401);
    expectProtected(unauth, '401');

    const patient = await newUser(t, 'patient');
    const forbidden = await t.request({ method: 'GET', url: '/api/audit/logs', token: patient.token });
    expect(forbidden.statusCode).toBe(403);
    expectProtected(forbidden, '403');

    const missing = await t.request({ method: 'GET', url: '/api/nope' });
    expect(missing.statusCode).toBe(404);
    expectProtected(missing, '404 API');

    const huge = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@example.org', password: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(huge.statusCode).toBe(413);
    expectProtected(huge, '413');

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

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp, loginAdmin, newUser } from './harness.ts';

// Property-based bad input on every route of the OpenAPI document: never a 5xx, always the envelope.
let t: TestApp;
let tokens: Array<string | undefined>;
let routes: Array<{ method: string; path: string }>;

/** Streams stay open by design; a fuzzer cannot wait for them to end. */
const STREAMING = new Set(['GET /api/message/stream']);

beforeAll(async () => {
  t = await createTestApp();
  const admin = await loginAdmin(t);
  const patient = await newUser(t, 'patient');
  tokens = [undefined, admin.token, patient.token, 'not-a-token'];
  const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m))
      .map((m) => ({ method: m.toUpperCase(), path }))
      .filter((r) => !STREAMING.has(`${r.method} ${r.path}`)),
  );
}, 120_000);
afterAll(async () => t?.close());

const segment = fc.oneof(
  fc.uuid(),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('0', '-1', '1e309', 'null', '%00', '..%2f..%2fetc%2fpasswd', "' OR 1=1 --", '<script>'),
);
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom(
      'email',
      'password',
      'code',
      'id',
      'content',
      'caption',
      'name',
      'value',
      'setting',
      'recipientId',
      'page',
      'limit',
      '__proto__',
      'constructor',
    ),
    fc.jsonValue({ maxDepth: 2 }),
  ),
);
const query = fc.dictionary(
  fc.constantFrom('page', 'limit', 'search', 'sort', 'order', 'role', 'from', 'to', 'action', 'before', 'download'),
  fc.string({ maxLength: 30 }),
  { maxKeys: 4 },
);

describe('fuzzing every route', () => {
  it('never answers 5xx to arbitrary params, queries, bodies and tokens', async () => {
    expect(routes.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const route of routes) {
      await fc
        .assert(
          fc.asyncProperty(
            segment,
            query,
            body,
            fc.constantFrom(...tokens),
            fc.boolean(),
            async (param, q, payload, token, raw) => {
              const url = route.path.replace(/\{[^}]+\}|:[A-Za-z]+/g, () => encodeURIComponent(param));
              const res = await t.request({
                method: route.method as 'GET',
                url,
                query: q,
                token,
                ...(route.method === 'GET'
                  ? {}
                  : raw
                    ? { payload: JSON.stringify(payload).slice(0, -1), headers: { 'content-type': 'application/json' } }
                    : { payload: payload as object }),
              });
              if (res.statusCode >= 500)
                failures.push(`${route.method} ${url} → ${res.statusCode} ${res.body.slice(0, 200)}`);
              return res.statusCode < 500;
            },
          ),
          { numRuns: 12, seed: 20261122 },
        )
        .catch(() => undefined);
    }
    expect(failures).toEqual([]);
  }, 600_000);
});

import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage } from '../src/storage/index.ts';
import { type SignedIn, type TestApp, createTestApp, newUser } from './harness.ts';
import { checkStorage, fuzzFixtures, judge, makeCase, send } from './upload-mutations.ts';

/** A fixed seed: a failure here reproduces with `npm run fuzz:upload -- --seed 20261123 --cases 200`. */
const SEED = 20261123;
const CASES = 200;

let t: TestApp;
let doc: SignedIn;
let port: number;
beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => t?.close());

describe('upload fuzzing', () => {
  it(`answers ${CASES} mutated uploads without a 5xx and stores no half-file`, async () => {
    const all = fuzzFixtures();
    const statuses = new Map<number, number>();
    const findings: string[] = [];
    let created = 0;
    for (let i = 0; i < CASES; i++) {
      const c = makeCase(SEED, i, all);
      try {
        const res = await send(port, doc.token, c, 20_000);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 201) created++;
        const finding = judge(res.status, res.body);
        if (finding) findings.push(`case ${i} (${c.kind}): ${finding}`);
      } catch (err) {
        // A reset while still sending, after an early refusal, is an answer; anything else is not.
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EPIPE' && code !== 'ECONNRESET')
          findings.push(`case ${i} (${c.kind}): ${(err as Error).message}`);
      }
    }
    expect(findings).toEqual([]);
    // The mix reaches both sides: accepted files and each kind of refusal.
    expect(created).toBeGreaterThan(10);
    for (const status of [400, 413, 415]) expect(statuses.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0);

    await t.app.ctx.services.images.idle();
    const check = await checkStorage({
      db: t.app.ctx.database.db,
      storage: createStorage(t.config),
      masterKey: t.config.masterKey,
      dataDir: t.config.dataDir,
    });
    expect(check.problems).toEqual([]);
    expect(check.rows).toBe(created);
    expect((await t.request({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  }, 180_000);
});

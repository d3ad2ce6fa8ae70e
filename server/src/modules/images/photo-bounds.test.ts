import { readFileSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, newUser } from '../../../test/harness.ts';
import type { AppContext } from '../../app-context.ts';
import { uploadFile } from './images.test-helpers.ts';

/*
 * docs/security.md › Memory bounds: the photo paths (JPEG/PNG thumbnails and analysis input) decode
 * through sharp with a 100 M pixel limit and resize while decoding, so a small PNG declaring a huge
 * image holds little memory, and one past the limit is refused before its pixels are decoded.
 */
let t: TestApp;
let doc: SignedIn;
const MiB = 2 ** 20;
const ctxOf = (app: TestApp) => (app.app as unknown as { ctx: AppContext }).ctx;

/** A black RGB PNG: 10 000 × 10 000 compresses to ~290 KB, within the upload limit. */
const blackPng = (side: number) =>
  sharp({ create: { width: side, height: side, channels: 3, background: '#000' } })
    .png({ compressionLevel: 9 })
    .toBuffer();

function resetPeak() {
  writeFileSync('/proc/self/clear_refs', '5');
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
}
const peak = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

async function upload(side: number) {
  const res = await uploadFile(t, doc.token, {
    name: `black-${side}.png`,
    type: 'image/png',
    data: await blackPng(side),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

beforeAll(async () => {
  t = await createTestApp();
  doc = await newUser(t, 'healthProvider');
}, 60_000);
afterAll(async () => t?.close());

describe('photo decoding stays within the bounds', () => {
  it('makes the thumbnail and the analysis of a 10 000 × 10 000 PNG (100 M pixels) without holding its pixels', async () => {
    const id = await upload(10_000);
    const before = resetPeak();
    await ctxOf(t).services.images.idle();
    const thumb = await t.request({ method: 'GET', url: `/api/images/${id}/thumbnail`, token: doc.token });
    expect(thumb.statusCode).toBe(200);
    const analysis = await t.request({ method: 'POST', url: `/api/analysis/${id}/run`, token: doc.token });
    expect(analysis.statusCode, analysis.body).toBe(201);
    const growth = (peak() - before) / MiB;
    process.stderr.write(`photo: peak RSS growth ${growth.toFixed(0)} MiB for a 100 M pixel PNG\n`);
    // Its RGB pixels alone would be 286 MiB.
    expect(growth).toBeLessThan(200);
  }, 60_000);

  it('refuses a PNG past 100 M pixels before decoding it: no thumbnail, analysis 400', async () => {
    const id = await upload(10_001);
    await ctxOf(t).services.images.idle();
    const thumb = await t.request({ method: 'GET', url: `/api/images/${id}/thumbnail`, token: doc.token });
    expect(thumb.statusCode).not.toBe(200);
    expect(thumb.statusCode).toBeLessThan(500);
    const analysis = await t.request({ method: 'POST', url: `/api/analysis/${id}/run`, token: doc.token });
    expect(analysis.statusCode, analysis.body).toBe(400);
  }, 60_000);
});

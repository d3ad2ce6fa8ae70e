import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { THUMBNAIL_TYPE, encodeThumbnail } from './thumbnails.ts';

describe('encodeThumbnail: JPEG, at most 320 px a side', () => {
  it('keeps a reduced grey DICOM frame grey, one channel, at its size', async () => {
    const pixels = new Uint8Array(200 * 100);
    for (let i = 0; i < pixels.length; i++) pixels[i] = i % 200;
    const out = await encodeThumbnail({ width: 200, height: 100, channels: 1, pixels });
    const meta = await sharp(out).metadata();
    expect(THUMBNAIL_TYPE).toBe('image/jpeg');
    expect([meta.format, meta.width, meta.height, meta.channels]).toEqual(['jpeg', 200, 100, 1]);
  });

  it('shrinks a larger grey frame to 320 px, one channel, keeping its levels', async () => {
    // 512 × 384: left half black, right half a mid grey (the windowed frame, at its decoded size).
    const pixels = new Uint8Array(512 * 384);
    for (let i = 0; i < pixels.length; i++) pixels[i] = i % 512 >= 256 ? 128 : 0;
    const out = await encodeThumbnail({ width: 512, height: 384, channels: 1, pixels });
    const meta = await sharp(out).metadata();
    expect([meta.width, meta.height, meta.channels]).toEqual([320, 240, 1]);
    const data = await sharp(out).extractChannel(0).raw().toBuffer();
    const row = 120 * 320;
    expect(data[row + 40]).toBeLessThanOrEqual(3);
    expect(Math.abs(data[row + 280]! - 128)).toBeLessThanOrEqual(3);
  });

  it("lays a transparent photo on the cards' dark grey, and shrinks it to 320 px", async () => {
    // 640 × 480, left half transparent black, right half opaque dark blue.
    const rgba = Buffer.alloc(640 * 480 * 4);
    for (let i = 0; i < 640 * 480; i++) if (i % 640 >= 320) rgba.set([10, 20, 120, 255], i * 4);
    const png = await sharp(rgba, { raw: { width: 640, height: 480, channels: 4 } })
      .png()
      .toBuffer();
    const out = await encodeThumbnail(png.buffer.slice(png.byteOffset, png.byteOffset + png.length) as ArrayBuffer);
    const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([320, 240, 3]);
    const at = (x: number, y: number) => [...data.subarray((y * 320 + x) * 3, (y * 320 + x) * 3 + 3)];
    // #212121, as the cards' preview box.
    for (const level of at(40, 120)) expect(Math.abs(level - 0x21)).toBeLessThanOrEqual(3);
    const [r, g, b] = at(280, 120);
    expect(r).toBeLessThan(30);
    expect(g).toBeLessThan(40);
    expect(b).toBeGreaterThan(100);
  });

  it('draws the full render (RGBA, opaque) without its alpha channel', async () => {
    const pixels = new Uint8Array(400 * 400 * 4).fill(255);
    for (let i = 0; i < 400 * 400; i++) pixels.set([200, 30, 30, 255], i * 4);
    const out = await encodeThumbnail({ width: 400, height: 400, channels: 4, pixels });
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height, meta.channels, meta.hasAlpha]).toEqual(['jpeg', 320, 320, 3, false]);
  });
});

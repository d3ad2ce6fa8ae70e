import sharp from 'sharp';
import { median } from './support.ts';
const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const px = Buffer.alloc(512 * 512, 100);
const v: Record<string, () => Promise<unknown>> = {
  tiny_raw: () => sharp(px.subarray(0, 1), { raw: { width: 1, height: 1, channels: 1 } }).toColourspace('b-w').raw().toBuffer(),
  tiny_jpeg: () => sharp(px.subarray(0, 1), { raw: { width: 1, height: 1, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 80 }).toBuffer(),
  g320_jpeg: () => sharp(px.subarray(0, 320 * 320), { raw: { width: 320, height: 320, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 80 }).toBuffer(),
  g320_jpeg_noopt: () => sharp(px.subarray(0, 320 * 320), { raw: { width: 320, height: 320, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 80, optimiseCoding: false }).toBuffer(),
  g320_raw: () => sharp(px.subarray(0, 320 * 320), { raw: { width: 320, height: 320, channels: 1 } }).toColourspace('b-w').raw().toBuffer(),
  g512_resize_raw: () => sharp(px, { raw: { width: 512, height: 512, channels: 1 } }).resize(320, 320, { fit: 'inside', kernel: 'linear' }).toColourspace('b-w').raw().toBuffer(),
};
for (let rep = 0; rep < 2; rep++)
for (const [name, fn] of Object.entries(v)) {
  for (let i = 0; i < 5; i++) await fn();
  const runs: number[] = [];
  for (let i = 0; i < 100; i++) { const a = cpuNow(); await fn(); runs.push(cpuNow() - a); }
  console.log(name.padEnd(18), 'cpu', median(runs).toFixed(3));
}

import sharp from 'sharp';
import { median } from './support.ts';
const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const w = 512, h = 512;
const px = Buffer.alloc(w * h); for (let i = 0; i < px.length; i++) px[i] = (i * 7 + (i >> 9) * 3) & 255;
const variants: Record<string, () => Promise<Buffer>> = {
  full: () => sharp(px, { raw: { width: w, height: h, channels: 1 } }).resize(320, 320, { fit: 'inside', kernel: 'linear' }).toColourspace('b-w').jpeg({ quality: 80 }).toBuffer(),
  noColourspace: () => sharp(px, { raw: { width: w, height: h, channels: 1 } }).resize(320, 320, { fit: 'inside', kernel: 'linear' }).jpeg({ quality: 80 }).toBuffer(),
  nearest: () => sharp(px, { raw: { width: w, height: h, channels: 1 } }).resize(320, 320, { fit: 'inside', kernel: 'nearest' }).toColourspace('b-w').jpeg({ quality: 80 }).toBuffer(),
  noResizeEncode: () => sharp(px, { raw: { width: w, height: h, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 80 }).toBuffer(),
  resizeRawOut: () => sharp(px, { raw: { width: w, height: h, channels: 1 } }).resize(320, 320, { fit: 'inside', kernel: 'linear' }).raw().toBuffer(),
  rawOnly: () => sharp(px, { raw: { width: w, height: h, channels: 1 } }).raw().toBuffer(),
  small64: () => sharp(px.subarray(0, 4096), { raw: { width: 64, height: 64, channels: 1 } }).jpeg({ quality: 80 }).toBuffer(),
  encode320: () => sharp(px.subarray(0, 320*320), { raw: { width: 320, height: 320, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 80 }).toBuffer(),
};
for (const [name, fn] of (process.argv[2] ? Object.entries(variants).reverse() : Object.entries(variants))) {
  for (let i = 0; i < 5; i++) await fn();
  const runs: number[] = []; const walls: number[] = [];
  for (let i = 0; i < 50; i++) { const a = cpuNow(); const t = performance.now(); await fn(); runs.push(cpuNow() - a); walls.push(performance.now() - t); }
  console.log(name.padEnd(16), 'cpu', median(runs).toFixed(2), 'wall', median(walls).toFixed(2));
}

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** dcmtk is installed by .ci/run; tests that need it skip with this reason when it is absent. */
export const hasDcmtk = spawnSync('dcmdump', ['--version']).status === 0;
export const NO_DCMTK = 'dcmtk (dcmdump, dcmj2pnm) is not installed: install the Debian package dcmtk';

export interface Raster {
  width: number;
  height: number;
  channels: number;
  data: Buffer;
}

/** Binary PGM (P5) or PPM (P6), 8-bit. */
export function parsePnm(buf: Buffer): Raster {
  const header: string[] = [];
  let pos = 0;
  while (header.length < 4) {
    while (/\s/.test(String.fromCharCode(buf[pos]!))) pos++;
    if (buf[pos] === 0x23) {
      while (buf[pos] !== 0x0a) pos++;
      continue;
    }
    let token = '';
    while (!/\s/.test(String.fromCharCode(buf[pos]!))) token += String.fromCharCode(buf[pos++]!);
    header.push(token);
  }
  pos++;
  const [magic, w, h] = header as [string, string, string, string];
  const channels = magic === 'P6' ? 3 : 1;
  return {
    width: Number(w),
    height: Number(h),
    channels,
    data: buf.subarray(pos, pos + Number(w) * Number(h) * channels),
  };
}

/** dcmtk's rendering of the first frame with an explicit window (or none for colour). */
export function dcmtkRender(file: string, window: { center: number; width: number } | null, tool = 'dcmj2pnm'): Raster {
  const dir = mkdtempSync(join(tmpdir(), 'dcmtk-'));
  try {
    const out = join(dir, 'out.pnm');
    const args = ['+F', '1', ...(window ? ['+Ww', String(window.center), String(window.width)] : []), file, out];
    execFileSync(tool, args, { stdio: 'pipe' });
    return parsePnm(readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** RGBA (or any channel count) reduced to `channels` (1: the first channel; 3: RGB). */
export function toChannels(r: Raster, channels: number): Raster {
  if (r.channels === channels) return r;
  const out = Buffer.alloc(r.width * r.height * channels);
  for (let i = 0; i < r.width * r.height; i++)
    for (let c = 0; c < channels; c++) out[i * channels + c] = r.data[i * r.channels + Math.min(c, r.channels - 1)]!;
  return { ...r, channels, data: out };
}

/** Mean absolute difference in grey levels, over all samples. */
export function meanAbsDiff(a: Raster, b: Raster): number {
  if (a.width !== b.width || a.height !== b.height || a.channels !== b.channels)
    throw new Error(`size differs: ${a.width}x${a.height}x${a.channels} vs ${b.width}x${b.height}x${b.channels}`);
  let sum = 0;
  for (let i = 0; i < a.data.length; i++) sum += Math.abs(a.data[i]! - b.data[i]!);
  return sum / a.data.length;
}

export function stats(r: Raster): { mean: number; std: number } {
  let sum = 0;
  let sq = 0;
  for (const v of r.data) {
    sum += v;
    sq += v * v;
  }
  const mean = sum / r.data.length;
  return { mean, std: Math.sqrt(sq / r.data.length - mean * mean) };
}

export function dcmdump(file: string): string {
  return execFileSync('dcmdump', ['+L', '-q', file], { encoding: 'latin1', maxBuffer: 64 * 1024 * 1024 });
}

import { type AnalysisFindings, AnalysisTexts } from '@medshare/contracts';
import { type AnalysisInput, type AnalysisMetadata, type AnalysisProvider, sharpOf } from './provider.ts';

/**
 * The default provider (no network): an honest technical report computed from the pixels and the
 * DICOM header. It never names a condition: no diagnostic model stands behind it (`docs/architecture.md` ›
 * AI analysis).
 */

/** Statistics run on at most this many pixels per side (nearest-neighbour, so values stay real). */
const STATS_MAX_PX = 2048;

export interface IntensityStats {
  pixels: number;
  min: number;
  max: number;
  mean: number;
  std: number;
  p1: number;
  p5: number;
  p50: number;
  p95: number;
  p99: number;
  /** Share of the 0..255 display range between the 1st and 99th percentile. */
  rangeUsed: number;
  atBlack: number;
  atWhite: number;
  /** Share of pixels holding the single most common value. */
  modeShare: number;
}

/** Luminance statistics on the 8-bit display scale (16-bit sources are scaled to it). */
export async function intensityStats(input: AnalysisInput): Promise<IntensityStats> {
  const { data, info } = await sharpOf(input)
    .resize(STATS_MAX_PX, STATS_MAX_PX, { fit: 'inside', withoutEnlargement: true, kernel: 'nearest' })
    .flatten({ background: '#000000' })
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  // 'b-w' yields 8-bit samples for 8- and 16-bit sources alike; the check keeps a 16-bit output honest.
  const sixteen = data.length === info.width * info.height * info.channels * 2;
  const samples = sixteen ? new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2) : data;
  const step = info.channels;
  const histogram = new Float64Array(256);
  for (let i = 0; i < samples.length; i += step) {
    const v = sixteen ? Math.round(samples[i]! / 257) : samples[i]!;
    histogram[v]! += 1;
  }
  const n = samples.length / step;
  let sum = 0;
  let squares = 0;
  let min = 255;
  let max = 0;
  let mode = 0;
  for (let v = 0; v < 256; v++) {
    const count = histogram[v]!;
    if (!count) continue;
    sum += v * count;
    squares += v * v * count;
    min = Math.min(min, v);
    max = Math.max(max, v);
    mode = Math.max(mode, count);
  }
  const mean = sum / n;
  const percentile = (p: number) => {
    const target = p * n;
    let seen = 0;
    for (let v = 0; v < 256; v++) {
      seen += histogram[v]!;
      if (seen >= target) return v;
    }
    return 255;
  };
  const p1 = percentile(0.01);
  const p99 = percentile(0.99);
  return {
    pixels: n,
    min,
    max,
    mean,
    std: Math.sqrt(Math.max(0, squares / n - mean * mean)),
    p1,
    p5: percentile(0.05),
    p50: percentile(0.5),
    p95: percentile(0.95),
    p99,
    rangeUsed: (p99 - p1) / 255,
    atBlack: histogram[0]! / n,
    atWhite: histogram[255]! / n,
    modeShare: mode / n,
  };
}

const pct = (share: number) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
const round = (v: number) => (Math.round(v * 10) / 10).toString();

/** Quality problems a person should know of; each is a plain statement of what the numbers show. */
export function qualityWarnings(s: IntensityStats): { warnings: string[]; reacquire: boolean; review: boolean } {
  const warnings: string[] = [];
  let reacquire = false;
  let review = false;
  if (s.std < 2 || s.modeShare > 0.98) {
    warnings.push(
      `The image is blank or nearly blank: ${pct(s.modeShare)} of pixels share one value (standard deviation ${round(s.std)} on a 0-255 scale). There is nothing to interpret.`,
    );
    return { warnings, reacquire: true, review: false };
  }
  if (s.p99 < 96) {
    warnings.push(
      `Possible under-exposure: even the brightest 1% of the image stays below ${s.p99} of 255, so structures may be too dark to assess.`,
    );
    reacquire = true;
  }
  if (s.p1 > 160) {
    warnings.push(
      `Possible over-exposure: even the darkest 1% of the image is brighter than ${s.p1} of 255, so detail may be washed out.`,
    );
    reacquire = true;
  }
  if (s.p95 - s.p5 < 40) {
    warnings.push(
      `Low contrast: 90% of pixels lie within ${s.p95 - s.p5} grey levels (${s.p5}-${s.p95} of 255); fine differences may not be visible.`,
    );
    review = true;
  }
  if (s.atWhite > 0.02) {
    warnings.push(
      `${pct(s.atWhite)} of pixels are clipped at full white. Uniform background (inverted greyscale, collimation) can be normal; elsewhere detail is lost.`,
    );
    review = true;
  }
  if (s.atBlack > 0.3) {
    warnings.push(
      `${pct(s.atBlack)} of pixels are pure black. Uniform background (air, collimation) is normal; elsewhere it means detail is clipped.`,
    );
  }
  return { warnings, reacquire, review };
}

function describeSource(m: AnalysisMetadata): string {
  const kind = m.format === 'dicom' ? `DICOM ${m.modality ?? 'image (modality not recorded)'}` : m.format.toUpperCase();
  const part = m.bodyPart ? ` of the ${m.bodyPart.toLowerCase()}` : '';
  const colour = m.channels >= 3 ? 'colour' : 'greyscale';
  const bits = m.bitsStored ? `, ${m.bitsStored} bits stored per sample` : '';
  const frames = m.frames > 1 ? `, ${m.frames} frames (the first was analysed)` : '';
  const window = m.windowing
    ? ` Rendered with window centre ${round(m.windowing.center)} and width ${round(m.windowing.width)}${m.windowing.source === 'min-max' ? ' (from the pixel range: the file records no window)' : ''}.`
    : '';
  return `Technical report for a ${kind} image${part}: ${m.columns} × ${m.rows} pixels, ${colour}${bits}${frames}.${window}`;
}

export function technicalReport(m: AnalysisMetadata, s: IntensityStats): AnalysisFindings {
  const quality = qualityWarnings(s);
  const statsText =
    ` Intensity on the 0-255 display scale: mean ${round(s.mean)}, standard deviation ${round(s.std)}, median ${s.p50};` +
    ` 1st-99th percentile ${s.p1}-${s.p99} (${pct(s.rangeUsed)} of the display range used), 5th-95th ${s.p5}-${s.p95}, full range ${s.min}-${s.max}.`;
  const verdict = quality.warnings.length
    ? ` ${quality.warnings.length} image-quality issue${quality.warnings.length > 1 ? 's were' : ' was'} found (see Warnings).`
    : ' No exposure, contrast or clipping problems were detected.';
  const followUp: string[] = [];
  if (quality.reacquire)
    followUp.push('Consider re-acquiring or re-uploading the image: its exposure makes it hard to read.');
  if (quality.review) followUp.push('Review the original with adjusted window/level before relying on it.');
  return {
    description: describeSource(m) + statsText + verdict,
    differentialDiagnosis: [],
    treatment: [],
    followUp,
    warnings: [AnalysisTexts.noDiagnosticModel, ...quality.warnings],
    confidence: 0,
  };
}

export const LOCAL_MODEL = 'medshare-image-statistics-1';

export function createLocalProvider(): AnalysisProvider {
  return {
    name: 'local',
    model: LOCAL_MODEL,
    async analyze(input) {
      return technicalReport(input.metadata, await intensityStats(input));
    },
  };
}

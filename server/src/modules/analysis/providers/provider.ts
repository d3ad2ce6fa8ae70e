import type { AnalysisFindings, AnalysisProviderName } from '@medshare/contracts';
import sharp, { type Sharp } from 'sharp';

/** Attributes of the image that are not PHI: the only words about it a provider ever receives. */
export interface AnalysisMetadata {
  format: 'jpeg' | 'png' | 'dicom';
  /** DICOM Modality (CT, MR, CR …), null for photographs. */
  modality: string | null;
  /** DICOM Body Part Examined, null when absent. */
  bodyPart: string | null;
  rows: number;
  columns: number;
  /** Bits per sample of the source (DICOM Bits Stored; 8 or 16 for PNG/JPEG). */
  bitsStored: number | null;
  frames: number;
  /** Samples per pixel of the source: 1 greyscale, 3 colour (4 with alpha for PNG). */
  channels: number;
  photometric: string | null;
  /** The VOI window the DICOM rendering used, when greyscale. */
  windowing: { center: number; width: number; source: string } | null;
}

/**
 * What a provider analyses: the pixels as a person would see them (8-bit; DICOM: the first frame
 * rendered with its default window) and the metadata above. No names, ids or dates reach here.
 */
export interface AnalysisInput {
  pixels:
    | { kind: 'encoded'; data: Buffer }
    | { kind: 'raw'; data: Buffer; width: number; height: number; channels: 1 | 2 | 3 | 4 };
  metadata: AnalysisMetadata;
}

export interface AnalysisProvider {
  readonly name: AnalysisProviderName;
  readonly model: string;
  /** Findings, or an AppError (502/504 for provider failures); never a partial result. */
  analyze(input: AnalysisInput): Promise<AnalysisFindings>;
}

/** A sharp pipeline over the input's pixels (encoded PNG/JPEG or raw 8-bit samples). */
export function sharpOf(input: AnalysisInput): Sharp {
  const options = { limitInputPixels: 100_000_000, failOn: 'error' as const };
  const { pixels } = input;
  return pixels.kind === 'encoded'
    ? sharp(pixels.data, options)
    : sharp(pixels.data, {
        ...options,
        raw: { width: pixels.width, height: pixels.height, channels: pixels.channels },
      });
}

/** A code string (Modality, Body Part Examined) only when it looks like one: free text never leaves. */
export function codeString(value: string | null | undefined): string | null {
  const v = (value ?? '').trim().toUpperCase();
  return /^[A-Z0-9 _]{1,16}$/.test(v) ? v : null;
}

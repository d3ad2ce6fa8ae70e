import { AnalysisTexts } from '@medshare/contracts';
import { AppError, badRequest } from '../../errors.ts';
import type { DicomEngine } from '../dicom/dicom-engine.ts';
import { type AnalysisInput, codeString } from './providers/provider.ts';

/** What analysis needs of the DICOM module: its worker-backed, time-limited header reader and renderer. */
export type DicomDecoder = Pick<DicomEngine, 'inspect' | 'render'>;

/**
 * A DICOM object as analysis input: the header through `inspect` (only its non-PHI summary is
 * kept; the PHI half is dropped here), the pixels through `render` (first frame, modality LUT and
 * default VOI window, 8-bit RGBA). Both run in the DICOM module's worker pool.
 */
export async function dicomAnalysisInput(bytes: Buffer, dicom: DicomDecoder): Promise<AnalysisInput> {
  try {
    const { summary } = await dicom.inspect(bytes);
    if (summary.kind !== 'image') throw badRequest(AnalysisTexts.noPixelData);
    const rendered = await dicom.render(bytes);
    const pixels = Buffer.from(rendered.pixels.buffer, rendered.pixels.byteOffset, rendered.pixels.byteLength);
    return {
      pixels: { kind: 'raw', data: pixels, width: rendered.width, height: rendered.height, channels: 4 },
      metadata: {
        format: 'dicom',
        modality: codeString(summary.modality),
        bodyPart: codeString(summary.bodyPart),
        rows: summary.rows ?? rendered.height,
        columns: summary.columns ?? rendered.width,
        bitsStored: summary.bitsStored ?? summary.bitsAllocated,
        frames: summary.frames ?? 1,
        channels: summary.photometricInterpretation?.startsWith('MONOCHROME') ? 1 : 3,
        photometric: codeString(summary.photometricInterpretation),
        windowing: rendered.window,
      },
    };
  } catch (err) {
    // The engine answers refusals as AppError 400/415 with a safe message; say what failed.
    if (err instanceof AppError) {
      if (err.message === AnalysisTexts.noPixelData) throw err;
      throw badRequest(`${AnalysisTexts.undecodable} ${err.message}`);
    }
    throw err;
  }
}

import { AnalysisTexts } from '@medshare/contracts';
import { AppError, badRequest } from '../../errors.ts';
import { DicomMessages } from '../dicom/dicom-core.ts';
import type { DicomEngine } from '../dicom/dicom-engine.ts';
import { type AnalysisInput, codeString } from './providers/provider.ts';

/** What analysis needs of the DICOM module: its worker-backed, time-limited renderer. */
export type DicomDecoder = Pick<DicomEngine, 'render'>;

/**
 * A DICOM object as analysis input, from one worker job (one parse, within the memory bounds of
 * every DICOM read): the pixels through `render` (first frame, modality LUT and default VOI window,
 * 8-bit RGBA) and the header's non-PHI summary that comes with it. `owner`: whose job it is in the
 * DICOM pool's fair queue (the user who asked).
 */
export async function dicomAnalysisInput(bytes: Buffer, dicom: DicomDecoder, owner?: string): Promise<AnalysisInput> {
  try {
    const rendered = await dicom.render(bytes, owner);
    const { summary } = rendered;
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
    // A data set without pixel data (structured report, ECG) has no frame to render.
    if (err instanceof AppError && err.message === DicomMessages.noFrames) throw badRequest(AnalysisTexts.noPixelData);
    // The engine answers what it cannot read as AppError 400/415 with a safe message; say what
    // failed. Anything else is said as it is: too large (413, with the bound in the message), or
    // the DICOM service busy with the user's earlier jobs (429 with Retry-After: try again, the
    // image is fine).
    if (err instanceof AppError && (err.status === 400 || err.status === 415))
      throw badRequest(`${AnalysisTexts.undecodable} ${err.message}`);
    throw err;
  }
}

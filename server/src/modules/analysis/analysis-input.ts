import { AnalysisTexts, type ImageContentType } from '@medshare/contracts';
import sharp, { type Metadata } from 'sharp';
import { badRequest } from '../../errors.ts';
import { type DicomDecoder, dicomAnalysisInput } from './dicom-input.ts';
import type { AnalysisInput } from './providers/provider.ts';

/** The decrypted file as a provider's input: JPEG/PNG through sharp, DICOM through the DICOM module's worker. */
export async function analysisInputOf(
  bytes: Buffer,
  contentType: ImageContentType,
  dicom: DicomDecoder,
  /** Who asked (the DICOM pool's fair queue). */
  owner?: string,
): Promise<AnalysisInput> {
  if (contentType === 'application/pdf') throw badRequest(AnalysisTexts.pdfNotSupported);
  if (contentType === 'application/dicom') return dicomAnalysisInput(bytes, dicom, owner);
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: 100_000_000, failOn: 'error' }).metadata();
  } catch {
    throw badRequest(AnalysisTexts.undecodable);
  }
  if (!meta.width || !meta.height) throw badRequest(AnalysisTexts.undecodable);
  // EXIF orientation 5-8 swaps the axes; sizes are reported as the image is seen.
  const swapped = (meta.orientation ?? 1) >= 5;
  return {
    pixels: { kind: 'encoded', data: bytes },
    metadata: {
      format: contentType === 'image/png' ? 'png' : 'jpeg',
      modality: null,
      bodyPart: null,
      rows: swapped ? meta.width : meta.height,
      columns: swapped ? meta.height : meta.width,
      bitsStored: meta.depth === 'ushort' ? 16 : 8,
      frames: 1,
      channels: meta.channels ?? 3,
      photometric: null,
      windowing: null,
    },
  };
}

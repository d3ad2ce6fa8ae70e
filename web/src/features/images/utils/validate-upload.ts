import { ImageMessages } from '@medshare/contracts/constants';

/**
 * `docs/product.md` › Validation rules: the four accepted kinds, by declared type or (when the browser gives
 * none) by extension.
 */
export const ACCEPTED_TYPES = ['image/jpeg', 'image/png', 'application/pdf', 'application/dicom'] as const;
export const ACCEPT_ATTRIBUTE =
  '.jpeg,.jpg,.png,.pdf,.dcm,.dicom,image/jpeg,image/png,application/pdf,application/dicom';

const EXTENSION_TYPES: Record<string, (typeof ACCEPTED_TYPES)[number]> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  pdf: 'application/pdf',
  dcm: 'application/dicom',
  dicom: 'application/dicom',
};

/** The kind a file claims: its extension decides, and a declared type must not disagree. */
export function claimedType(file: File): (typeof ACCEPTED_TYPES)[number] | null {
  const ext = /\.([^.]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? '';
  const byExt = EXTENSION_TYPES[ext] ?? null;
  if (!byExt) return null;
  // Browsers often declare DICOM as '' or application/octet-stream; other kinds must agree.
  const declared = file.type;
  if (!declared || declared === 'application/octet-stream') return byExt;
  if (declared === byExt) return byExt;
  if (byExt === 'application/dicom' && declared === 'application/x-dicom') return byExt;
  return null;
}

export function isPicture(file: File | null): boolean {
  if (!file) return false;
  const type = claimedType(file);
  return type === 'image/jpeg' || type === 'image/png';
}

/** The file check done as soon as a file is chosen; null when it is acceptable. */
export function fileProblem(file: File, maxUploadMb: number): string | null {
  if (!claimedType(file)) return ImageMessages.invalidType;
  if (file.size > maxUploadMb * 1024 * 1024) return ImageMessages.tooLarge(maxUploadMb);
  if (file.size === 0) return ImageMessages.emptyFile;
  return null;
}

/**
 * The checks before sending, in the order `docs/product.md` › Validation rules lists them; null when the form
 * may be sent.
 */
export function uploadProblem(file: File | null, caption: string, maxUploadMb: number): string | null {
  if (!file) return ImageMessages.noFile;
  const problem = fileProblem(file, maxUploadMb);
  if (problem) return problem;
  if (!caption.trim()) return ImageMessages.noCaption;
  return null;
}

import { z } from 'zod';
import { uuid } from './common.ts';
/** Defined without zod, for the web to import alone (docs/architecture.md › Frontend, "Start-up"). */
export { DicomPaths } from './paths.ts';

/** Non-PHI DICOM attributes of an image, from columns. UIDs only for viewers of the content. */
export const DicomItemSchema = z.object({
  kind: z.enum(['image', 'document']).describe("'document': DICOM without pixel data (SR, ECG waveform); no thumbnail"),
  modality: z.string().nullable(),
  bodyPart: z.string().nullable(),
  studyDate: z.string().nullable().describe('YYYY-MM-DD'),
  rows: z.number().int().nullable(),
  columns: z.number().int().nullable(),
  frames: z.number().int().nullable(),
  bitsAllocated: z.number().int().nullable(),
  bitsStored: z.number().int().nullable(),
  photometricInterpretation: z.string().nullable(),
  transferSyntaxUid: z.string().nullable(),
  deidentified: z.boolean().describe('A de-identified copy (PS3.15 Annex E basic profile) made for a share'),
  studyInstanceUid: z.string().nullable().describe('Only when the viewer may see the content'),
  seriesInstanceUid: z.string().nullable().describe('Only when the viewer may see the content'),
  sopInstanceUid: z.string().nullable().describe('Only when the viewer may see the content'),
});
export type DicomItem = z.infer<typeof DicomItemSchema>;

/** Attributes that identify the patient: only for viewers of the content. */
export const DicomPhiSchema = z.object({
  patientName: z.string().nullable(),
  patientId: z.string().nullable(),
  patientBirthDate: z.string().nullable().describe('YYYY-MM-DD'),
  patientSex: z.string().nullable(),
  accessionNumber: z.string().nullable(),
  institutionName: z.string().nullable(),
  referringPhysicianName: z.string().nullable(),
});
export type DicomPhi = z.infer<typeof DicomPhiSchema>;

export const DicomMetadataSchema = z.object({
  imageId: uuid(),
  caption: z.string().describe('The caption given at upload, as on the image card'),
  dicom: DicomItemSchema,
  sopClassUid: z.string().nullable(),
  phi: DicomPhiSchema.nullable().describe('null when the viewer may not see the content'),
});
export type DicomMetadata = z.infer<typeof DicomMetadataSchema>;

/** QIDO-RS query parameters (PS3.18 §10.6): attribute matching by keyword or tag, paging. */
export const QidoQuerySchema = z
  .object({
    StudyInstanceUID: z.string().max(64).optional(),
    '0020000D': z.string().max(64).optional(),
    SeriesInstanceUID: z.string().max(64).optional(),
    '0020000E': z.string().max(64).optional(),
    SOPInstanceUID: z.string().max(64).optional(),
    '00080018': z.string().max(64).optional(),
    PatientID: z.string().max(64).optional(),
    '00100020': z.string().max(64).optional(),
    Modality: z.string().max(16).optional(),
    '00080060': z.string().max(16).optional(),
    ModalitiesInStudy: z.string().max(16).optional(),
    '00080061': z.string().max(16).optional(),
    StudyDate: z
      .string()
      .max(17)
      .optional()
      .describe('YYYYMMDD, or a range YYYYMMDD-YYYYMMDD (either end may be left out)'),
    '00080020': z.string().max(17).optional(),
    PatientName: z
      .string()
      .max(200)
      .optional()
      .describe('Wildcards * and ? (case-insensitive); prefix of a name part with fuzzymatching=true'),
    '00100010': z.string().max(200).optional(),
    AccessionNumber: z.string().max(64).optional().describe('Exact, or with wildcards * and ?'),
    '00080050': z.string().max(64).optional(),
    StudyDescription: z.string().max(200).optional().describe('Exact, or with wildcards * and ?'),
    '00081030': z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(0)
      .describe('Results past the first 10 000 cannot be paged to (400)'),
    includefield: z
      .union([z.string().max(4000), z.array(z.string().max(4000)).max(200)])
      .optional()
      .describe('Attribute keywords or tags (repeated or comma-separated), or all; unknown ones are ignored'),
    fuzzymatching: z
      .string()
      .max(16)
      .optional()
      .describe('true: PatientName matches a case-insensitive prefix of any of its parts'),
  })
  // Other attributes a client sends to match on are kept, to be named in a Warning (not matched).
  .catchall(z.union([z.string().max(1000), z.array(z.string().max(1000)).max(20)]))
  .describe(
    "Exact matching of UIDs, Patient ID and Modality; the level's default attributes plus includefield; limit/offset paging",
  );
export type QidoQuery = z.infer<typeof QidoQuerySchema>;

/** WADO-RS rendered resources' query parameters (PS3.18 §8.3.5.1); others are ignored. */
export const RenderedQuerySchema = z.object({
  window: z.string().max(100).optional().describe('center,width[,linear]: the VOI window (greyscale)'),
  quality: z.coerce.number().int().min(1).max(100).optional().describe('JPEG quality, 1..100 (default 90)'),
  viewport: z
    .string()
    .max(100)
    .optional()
    .describe('vw,vh[,sx,sy,sw,sh]: scale to fit vw × vh (at most 4096 each), after cropping to the region'),
});
export type RenderedQuery = z.infer<typeof RenderedQuerySchema>;

/**
 * STOW-RS query (`docs/architecture.md` › Studies and DICOMweb): the caller names the patient the
 * instances are stored for by their MedShare user id, here or (for clients that take only a base
 * URL and headers, such as Orthanc's DICOMweb plugin) in the header STOW_PATIENT_HEADER; checked
 * before the body is read.
 */
export const StowQuerySchema = z.strictObject({
  patientId: z
    .string()
    .trim()
    .max(64)
    .optional()
    .describe('The MedShare user id of the patient (or the X-MedShare-Patient header)'),
});
export const STOW_PATIENT_HEADER = 'x-medshare-patient';
export type StowQuery = z.infer<typeof StowQuerySchema>;

/** STOW-RS Failure Reason (0008,1197) values this server answers (PS3.18 Table I.2-2; 0xA901 is ours). */
export const StowFailureReason = {
  /** A7xx: refused, out of resources (an instance over max_upload_mb, a full queue, storage down, parts past the limit). */
  outOfResources: 0xa700,
  /** A9xx, implementation-specific: the instance is not of the study named in the URL. */
  studyMismatch: 0xa901,
  /** Cxxx: cannot understand (not DICOM, a type the bytes deny, a malformed or truncated object). */
  cannotUnderstand: 0xc000,
  /** 0110: processing failure (anything else; logged). */
  processingFailure: 0x0110,
} as const;

/** One data set in the DICOM JSON model (PS3.18 Annex F). */
export const DicomJsonSchema = z
  .record(
    z.string(),
    z.object({ vr: z.string(), Value: z.array(z.unknown()).optional(), InlineBinary: z.string().optional() }),
  )
  .describe('DICOM JSON model: tag -> {vr, Value}');

export const DicomMessages = {
  burnedIn:
    'This DICOM image is flagged with burned-in annotation (0028,0301 = YES): its pixels may show patient details, so it cannot be shared de-identified.',
  notDicom: 'Only DICOM images can be shared de-identified.',
  cannotProcess: 'The DICOM file could not be processed.',
} as const;

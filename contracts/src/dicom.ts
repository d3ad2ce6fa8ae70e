import { z } from 'zod';

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
  imageId: z.uuid(),
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
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    includefield: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Accepted; the answer has a fixed set'),
    fuzzymatching: z.string().optional(),
  })
  .describe('Exact matching of UIDs, Patient ID and Modality; limit/offset paging');
export type QidoQuery = z.infer<typeof QidoQuerySchema>;

/** One data set in the DICOM JSON model (PS3.18 Annex F). */
export const DicomJsonSchema = z
  .record(
    z.string(),
    z.object({ vr: z.string(), Value: z.array(z.unknown()).optional(), InlineBinary: z.string().optional() }),
  )
  .describe('DICOM JSON model: tag -> {vr, Value}');

export const DicomPaths = {
  metadata: (id: string) => `/api/images/${id}/dicom/metadata`,
  dicomweb: '/api/dicomweb',
} as const;

export const DicomMessages = {
  burnedIn:
    'This DICOM image is flagged with burned-in annotation (0028,0301 = YES): its pixels may show patient details, so it cannot be shared de-identified.',
  notDicom: 'Only DICOM images can be shared de-identified.',
  cannotProcess: 'The DICOM file could not be processed.',
} as const;

import { z } from 'zod';
import { pageQuerySchema, uuid } from './common.ts';
import { AccessStateSchema, UserRefSchema, UserWithRoleRefSchema } from './images.ts';
import { ShareStateSchema } from './sharing.ts';
/** Defined without zod, for the web to import alone (docs/architecture.md › Frontend, "Start-up"). */
export { StudyPaths } from './paths.ts';

/**
 * A study is the DICOM images with one Study Instance UID that the caller may see; it is not a
 * stored thing of its own (`docs/architecture.md` › Studies and DICOMweb). Lists show a study as
 * one card; single files (JPEG, PNG, PDF) stay image cards.
 */

/** A DICOM UID: digits and dots, at most 64 characters (PS3.5 §9.1). */
export const DicomUidSchema = z
  .string()
  .max(64)
  .regex(/^[0-9]+(\.[0-9]+)*$/, 'A DICOM UID is digits separated by dots')
  .describe('DICOM UID');

export const StudyParamsSchema = z.object({ studyUid: DicomUidSchema.describe('Study Instance UID') });
export const StudyShareParamsSchema = StudyParamsSchema.extend({ id: uuid().describe('The study share id') });

export const ListStudiesQuerySchema = pageQuerySchema(10).strict();
export type ListStudiesQuery = z.infer<typeof ListStudiesQuerySchema>;

/**
 * One study card as the caller sees it. A study reached through a share is one card per share
 * (each has its own code and state); the caller's own (or, for an admin, every) upload of the
 * study is one card. Identifying text (UIDs, the Study Description) only with access to the content.
 */
export const StudySummarySchema = z.object({
  studyUid: DicomUidSchema.nullable().describe(
    'Study Instance UID; null until the viewer may see the content (a UID can identify a study)',
  ),
  caption: z.string().describe('The caption given at upload (of the newest instance), as on an image card'),
  modalities: z.array(z.string()).describe('Modalities of its instances, e.g. ["CT"]'),
  studyDate: z.string().nullable().describe('YYYY-MM-DD'),
  description: z.string().nullable().describe('Study Description (0008,1030); only for viewers of the content'),
  seriesCount: z.number().int(),
  instanceCount: z
    .number()
    .int()
    .describe('Instances: each uploader’s copy of a SOP Instance UID for a patient counts once'),
  thumbnailUrl: z
    .string()
    .nullable()
    .describe("One instance's thumbnail (GET with the bearer header); null without access"),
  patient: UserRefSchema.nullable().describe(
    'The patient the instances were uploaded for (null for a de-identified copy)',
  ),
  sharedBy: UserRefSchema.describe('Who shared it with the viewer; the uploader for own and admin-listed studies'),
  isShared: z.boolean().describe('The study came to the viewer through a share (not uploaded by them)'),
  accessState: AccessStateSchema,
  sharingId: uuid()
    .nullable()
    .describe('The share that brought the study to the viewer (for the Verify dialog); never the code'),
  deidentified: z.boolean().describe('A de-identified copy (PS3.15 Annex E basic profile) made for a share'),
  expiresAt: z.string().nullable().describe('When the share to the viewer ends; null = never'),
  createdAt: z.string().describe('Newest upload, or the share time for a study shared with the viewer'),
});
export type StudySummary = z.infer<typeof StudySummarySchema>;

export const StudyInstanceSchema = z.object({
  imageId: uuid().describe('The image id (content, thumbnail, DICOM metadata routes)'),
  sopInstanceUid: DicomUidSchema,
  instanceNumber: z.number().int().nullable().describe('Instance Number (0020,0013)'),
  frames: z.number().int().nullable(),
});
export type StudyInstance = z.infer<typeof StudyInstanceSchema>;

export const StudySeriesSchema = z.object({
  seriesUid: DicomUidSchema,
  modality: z.string().nullable(),
  description: z.string().nullable().describe('Series Description (0008,103E)'),
  number: z.number().int().nullable().describe('Series Number (0020,0011)'),
  instanceCount: z.number().int(),
  thumbnailUrl: z.string().nullable().describe("The middle instance's thumbnail, when made"),
  instances: z.array(StudyInstanceSchema).describe('Sorted by Instance Number (then SOP Instance UID)'),
});
export type StudySeries = z.infer<typeof StudySeriesSchema>;

/** The study page: every instance of the study whose content the viewer may see, by series. */
export const StudyDetailSchema = StudySummarySchema.extend({
  studyUid: DicomUidSchema,
  series: z.array(StudySeriesSchema).describe('Sorted by Series Number (then Series Instance UID)'),
});
export type StudyDetail = z.infer<typeof StudyDetailSchema>;

export const StudyShareBodySchema = z.strictObject({
  createdfor: uuid().describe('The recipient user id'),
  expiresInHours: z.coerce
    .number()
    .int()
    .min(1)
    .max(8760)
    .optional()
    .describe('Defaults to the share_expiry_hours setting; capped by share_expiry_max_hours'),
  deidentify: z
    .boolean()
    .optional()
    .describe(
      'Share de-identified copies (PS3.15 Annex E basic profile) with the same replacement UIDs across the study; 409 when an instance has burned-in annotation',
    ),
});
export type StudyShareBody = z.infer<typeof StudyShareBodySchema>;

/** A study share as its creator sees it: one sharing id and one code for every instance; never the code. */
export const StudyShareSchema = z.object({
  id: uuid().describe('The sharing id the recipient types with the code'),
  studyUid: DicomUidSchema.describe('The shared study (the source study for a de-identified share)'),
  recipient: UserWithRoleRefSchema,
  createdBy: UserRefSchema,
  state: ShareStateSchema,
  deidentified: z.boolean(),
  isPatientShare: z.boolean().describe('Shared with the study’s own patient: does not end'),
  seriesCount: z.number().int(),
  instanceCount: z.number().int(),
  expiresAt: z.string().nullable(),
  verifiedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type StudyShare = z.infer<typeof StudyShareSchema>;

export const StudyMessages = {
  notFound: 'Study not found',
  shared: 'Study shared successfully',
  verified: 'Study verified successfully',
  revoked: 'Study share revoked',
  alreadyShared: 'This study, or an image of it, is already shared with this user',
  nothingToShare: 'None of the images of this study can be shared by you',
  tooManyInstances: (max: number, deidentified: boolean) =>
    `A ${deidentified ? 'de-identified ' : ''}study share covers at most ${max.toLocaleString('en-US')} images, and this study has more.`,
  severalPatients:
    'This study holds images uploaded for more than one patient and cannot be shared as one study. Share its images one by one.',
} as const;

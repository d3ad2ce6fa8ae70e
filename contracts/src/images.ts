import { z } from 'zod';
import { RoleNameSchema, pageQuerySchema, uuid } from './common.ts';
import { DicomItemSchema } from './dicom.ts';
import { UPLOAD_DUPLICATE_CODE } from './constants.ts';
/** Defined without zod, for the web to import alone (docs/architecture.md › Frontend, "Start-up"). */
export { ImagePaths } from './paths.ts';
export { ImageMessages, MAX_CAPTION_LENGTH, UPLOAD_DUPLICATE_CODE } from './constants.ts';

/** The four accepted kinds; the server decides the kind from the file's bytes. */
export const ImageContentTypeSchema = z
  .enum(['image/jpeg', 'image/png', 'application/pdf', 'application/dicom'])
  .describe('Type decided from the file bytes');
export type ImageContentType = z.infer<typeof ImageContentTypeSchema>;

export const UserRefSchema = z.object({
  id: uuid(),
  firstname: z.string(),
  lastname: z.string(),
});
export type UserRef = z.infer<typeof UserRefSchema>;

export const UserWithRoleRefSchema = UserRefSchema.extend({ role: RoleNameSchema });
export type UserWithRoleRef = z.infer<typeof UserWithRoleRefSchema>;

/** The state of the viewer's share of an image (or 'owner' when the viewer needs no share). */
export const AccessStateSchema = z
  .enum(['owner', 'pending', 'verified', 'expired', 'revoked', 'locked'])
  .describe("How the viewer reaches the image: 'owner' (uploader or admin) or the state of the share to them");
export type AccessState = z.infer<typeof AccessStateSchema>;

export const ThumbnailStatusSchema = z
  .enum(['none', 'pending', 'ready', 'failed'])
  .describe("'none' for PDF and DICOM (no thumbnail yet), 'pending' while it is made after the upload");

/** One card of View Images. Content URLs are present only when the viewer may see the content. */
export const ImageSchema = z.object({
  id: uuid().describe('Image id (imagemetadataId in share requests)'),
  caption: z.string(),
  contentType: ImageContentTypeSchema,
  sizeBytes: z.number().int().describe('Size of the original file in bytes'),
  isShared: z.boolean().describe('The image came to the viewer through a share (not uploaded by them)'),
  isVerified: z.boolean().describe('The viewer has unlocked the content (always true for the uploader and admins)'),
  uploadedByMe: z.boolean(),
  sharedBy: UserRefSchema.describe('Who shared it with the viewer; the uploader for own and admin-listed images'),
  patient: UserRefSchema.nullable().describe('The patient the image was uploaded for'),
  createdAt: z.string().describe('Upload time, or the share time for an image shared with the viewer'),
  sharingId: uuid().nullable().describe('The share to the viewer (prefills the Verify dialog); never the code'),
  accessState: AccessStateSchema,
  expiresAt: z.string().nullable().describe('When the share to the viewer ends; null = never'),
  revokedAt: z.string().nullable(),
  thumbnailStatus: ThumbnailStatusSchema,
  thumbnailUrl: z.string().nullable().describe('GET with the bearer header; null when no thumbnail or no access'),
  image_url: z.string().nullable().describe('GET with the bearer header; null when the viewer may not see the content'),
  dicom: DicomItemSchema.optional().describe('DICOM only: non-PHI attributes (UIDs only with access to the content)'),
});
export type Image = z.infer<typeof ImageSchema>;

export const UploadDuplicateResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  code: z.literal(UPLOAD_DUPLICATE_CODE),
  data: ImageSchema.describe('The image already stored'),
});
export type UploadDuplicateResponse = z.infer<typeof UploadDuplicateResponseSchema>;

export const ListImagesQuerySchema = pageQuerySchema(10)
  .extend({
    kind: z
      .enum(['all', 'files'])
      .default('all')
      .describe(
        "'files': leaves out the DICOM instances that belong to a study (GET /api/studies lists those, one card per study); 'all' (default): every image",
      ),
  })
  .strict();
export type ListImagesQuery = z.infer<typeof ListImagesQuerySchema>;

export const ImageContentQuerySchema = z.strictObject({
  download: z.enum(['0', '1']).optional().describe("'1' answers Content-Disposition: attachment"),
});
export type ImageContentQuery = z.infer<typeof ImageContentQuerySchema>;

export const ImageStatsSchema = z.object({
  totalImages: z.number().int().describe('Images the viewer sees in their lists'),
  sharedImages: z
    .number()
    .int()
    .describe('Of those, images that came through a share (admin: images with a live share)'),
});
export type ImageStats = z.infer<typeof ImageStatsSchema>;

import { z } from 'zod';
import { uuid } from './common.ts';
import { UserRefSchema, UserWithRoleRefSchema } from './images.ts';
/** Defined without zod, for the web to import alone (docs/architecture.md › Frontend, "Start-up"). */
export { SharingMessages } from './constants.ts';

export const ShareStateSchema = z
  .enum(['pending', 'verified', 'expired', 'revoked', 'locked'])
  .describe('pending: code not yet entered; locked: five wrong codes');
export type ShareState = z.infer<typeof ShareStateSchema>;

export const ShareRequestBodySchema = z.strictObject({
  imagemetadataId: uuid().describe('The image to share'),
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
      'DICOM only: share a de-identified copy (PS3.15 Annex E basic profile) instead of the original; 409 when the image has burned-in annotation',
    ),
});
export type ShareRequestBody = z.infer<typeof ShareRequestBodySchema>;

export const ShareVerifyBodySchema = z.strictObject({
  sharingRequestId: uuid().describe('The sharing id from the mail'),
  verificationCode: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'The code has 6 digits')
    .describe('The 6-digit code from the mail'),
});
export type ShareVerifyBody = z.infer<typeof ShareVerifyBodySchema>;

/** A share as its creator sees it: never the code. */
export const ShareSchema = z.object({
  id: uuid().describe('The sharing id'),
  imageId: uuid(),
  recipient: UserWithRoleRefSchema,
  createdBy: UserRefSchema,
  state: ShareStateSchema,
  isPatientShare: z.boolean().describe('The automatic, never-expiring share to the image’s patient'),
  studyShareId: uuid()
    .nullable()
    .optional()
    .describe('Part of this study share: it is verified and revoked with the whole study'),
  expiresAt: z.string().nullable(),
  verifiedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Share = z.infer<typeof ShareSchema>;

export const ShareVerifyResponseDataSchema = z.object({
  sharingId: uuid(),
  imageId: uuid().describe('The image unlocked (for a study share: one of its instances)'),
  studyUid: z
    .string()
    .nullable()
    .optional()
    .describe('A study share: the Study Instance UID now open (the copy’s for a de-identified share)'),
  instanceCount: z.number().int().optional().describe('A study share: how many instances it opened'),
  verifiedAt: z.string(),
  expiresAt: z.string().nullable(),
});
export type ShareVerifyResponseData = z.infer<typeof ShareVerifyResponseDataSchema>;

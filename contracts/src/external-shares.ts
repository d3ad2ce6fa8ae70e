import { z } from 'zod';
import { uuid } from './common.ts';
import { DicomItemSchema } from './dicom.ts';
import { UserRefSchema } from './images.ts';
/** Defined without zod, for the web to import alone (docs/architecture.md › Frontend, "Start-up"). */
export { ExternalSharePaths } from './paths.ts';
export { ExternalShareMessages } from './constants.ts';

/** Hours a link may live: the `external_share_max_hours` setting (1–168, default 72) caps it. */
export const EXTERNAL_SHARE_MAX_HOURS_CAP = 168;

export const ExternalShareStateSchema = z
  .enum(['active', 'locked', 'expired', 'revoked'])
  .describe('locked: five wrong codes (the sharer may re-issue)');
export type ExternalShareState = z.infer<typeof ExternalShareStateSchema>;

/** A link as its sharer's list shows it: its own state, or what its sharer's standing makes of it. */
export const ExternalShareListStateSchema = z
  .enum([...ExternalShareStateSchema.options, 'paused', 'ended'])
  .describe(
    'paused: its sharer’s account is deactivated (it opens again if reactivated); ended: it opens nothing now, its sharer’s account being deleted or none of its images theirs to share now (deleted, or their record’s share revoked or expired; it opens again if shared with them anew)',
  );
export type ExternalShareListState = z.infer<typeof ExternalShareListStateSchema>;

export const ExternalShareCreateBodySchema = z
  .strictObject({
    imageId: uuid().optional().describe('The image to share (or studyUid)'),
    studyUid: z
      .string()
      .trim()
      .regex(/^[0-9.]{1,64}$/, 'Not a DICOM UID')
      .optional()
      .describe('The study to share (or imageId)'),
    recipientEmail: z
      .email('Enter a valid e-mail address')
      .trim()
      .toLowerCase()
      .max(254)
      .describe('Where the link is mailed; the code is not'),
    expiresInHours: z.coerce
      .number()
      .int()
      .min(1)
      .max(EXTERNAL_SHARE_MAX_HOURS_CAP)
      .optional()
      .describe('Defaults to 72; never longer than the external_share_max_hours setting'),
    viewOnly: z.boolean().default(false).describe('No download: the viewer only'),
    deidentify: z.boolean().default(false).describe('DICOM only: share de-identified copies'),
  })
  .refine((b) => Boolean(b.imageId) !== Boolean(b.studyUid), {
    message: 'Name either an image or a study',
    path: ['imageId'],
  });
export type ExternalShareCreateBody = z.infer<typeof ExternalShareCreateBodySchema>;

/** An external share as its sharer (or an administrator) sees it: never the link's token or the code. */
export const ExternalShareSchema = z.object({
  id: uuid(),
  sharedBy: UserRefSchema.describe('Who made the link'),
  kind: z.enum(['image', 'study']),
  imageId: uuid().nullable().describe('The image shared (the source for a de-identified share)'),
  studyUid: z.string().nullable(),
  caption: z.string().describe('What the sharer’s list names it by (never mailed)'),
  recipientEmail: z.string(),
  state: ExternalShareListStateSchema,
  viewOnly: z.boolean(),
  deidentified: z.boolean(),
  imageCount: z.number().int(),
  views: z.number().int(),
  lastViewedAt: z.string().nullable(),
  expiresAt: z.string(),
  revokedAt: z.string().nullable(),
  lockedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type ExternalShare = z.infer<typeof ExternalShareSchema>;

export const ExternalShareIssuedSchema = z.object({
  share: ExternalShareSchema,
  code: z.string().describe('The 6-digit code, shown once: pass it on by another channel than e-mail'),
});
export type ExternalShareIssued = z.infer<typeof ExternalShareIssuedSchema>;

/**
 * `mine`: the caller's own links (everyone); `all`: every user's links, for those who manage every
 * image (`image:view_all`, administrators), to revoke one that should not stay open.
 */
export const ExternalShareListQuerySchema = z.strictObject({
  scope: z.enum(['mine', 'all']).default('mine').describe('all: every user’s links (image:view_all)'),
});
export type ExternalShareListQuery = z.infer<typeof ExternalShareListQuerySchema>;

export const ExternalShareListSchema = z.object({
  items: z.array(ExternalShareSchema),
  maxHours: z.number().int().describe('The external_share_max_hours setting'),
});
export type ExternalShareList = z.infer<typeof ExternalShareListSchema>;

/** The link's token: 32 random bytes, base64url (43 characters). */
const LinkTokenSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'Not a share link')
  .describe('The token from the link’s fragment');

export const ExternalLinkBodySchema = z.strictObject({ token: LinkTokenSchema });
export type ExternalLinkBody = z.infer<typeof ExternalLinkBodySchema>;

export const ExternalRedeemBodySchema = z.strictObject({
  token: LinkTokenSchema,
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'The code has 6 digits'),
});
export type ExternalRedeemBody = z.infer<typeof ExternalRedeemBodySchema>;

/** What a link says before its code: only whether it still opens and until when. */
export const ExternalLinkStatusSchema = z.object({
  state: ExternalShareStateSchema,
  expiresAt: z.string(),
});
export type ExternalLinkStatus = z.infer<typeof ExternalLinkStatusSchema>;

export const ExternalImageSchema = z.object({
  id: uuid(),
  contentType: z.string(),
  dicom: DicomItemSchema.nullable(),
  hasThumbnail: z.boolean(),
});
export type ExternalImage = z.infer<typeof ExternalImageSchema>;

/** What the link holder's viewer gets after the code: the shared images and the share's terms. */
export const ExternalViewSchema = z.object({
  kind: z.enum(['image', 'study']),
  title: z.string().describe('The caption (a neutral one for a de-identified share)'),
  sharedBy: z.string().describe('The sharer’s name'),
  viewOnly: z.boolean(),
  deidentified: z.boolean(),
  expiresAt: z.string(),
  images: z.array(ExternalImageSchema).describe('In series and instance order for a study'),
});
export type ExternalView = z.infer<typeof ExternalViewSchema>;

import { z } from 'zod';
import { uuid } from './common.ts';

/** Seeded settings that drive behaviour; their values are validated by these rules. */
export const KnownSettings = {
  max_upload_mb: { default: '10', description: 'Largest accepted upload in MB (1–100)' },
  max_import_files: { default: '2000', description: 'Most files in one study import in the web app (1–100000)' },
  max_import_mb: { default: '2048', description: 'Most MB in one study import in the web app (1–102400)' },
  share_expiry_hours: { default: '24', description: 'Default lifetime of a share in hours' },
  share_expiry_max_hours: { default: '720', description: 'Longest lifetime a share may be given, in hours' },
  external_share_max_hours: {
    default: '72',
    description: 'Longest lifetime of a link shared with someone without an account, in hours (1–168)',
  },
  otp_ttl_minutes: { default: '10', description: 'Lifetime of an e-mailed code in minutes (1–60)' },
  session_idle_minutes: { default: '30', description: 'Sessions end after this many idle minutes (5–720)' },
  display_locale: { default: 'en-PK', description: 'Locale for dates and numbers in the web app' },
  display_time_zone: { default: 'Asia/Karachi', description: 'Time zone for dates and times in the web app' },
} as const;
export type KnownSettingName = keyof typeof KnownSettings;

const intIn = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'Must be a whole number')
    .refine((v) => Number(v) >= min && Number(v) <= max, `Must be between ${min} and ${max}`);

export const KnownSettingValueSchemas: Record<KnownSettingName, z.ZodType<string>> = {
  max_upload_mb: intIn(1, 100),
  max_import_files: intIn(1, 100_000),
  max_import_mb: intIn(1, 102_400),
  share_expiry_hours: intIn(1, 8760),
  share_expiry_max_hours: intIn(1, 8760),
  external_share_max_hours: intIn(1, 168),
  otp_ttl_minutes: intIn(1, 60),
  session_idle_minutes: intIn(5, 720),
  display_locale: z
    .string()
    .trim()
    .refine((v) => {
      try {
        return Intl.DateTimeFormat.supportedLocalesOf([v]).length > 0;
      } catch {
        return false;
      }
    }, 'Must be a supported locale such as en-PK'),
  display_time_zone: z
    .string()
    .trim()
    .refine((v) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: v });
        return true;
      } catch {
        return false;
      }
    }, 'Must be an IANA time zone such as Asia/Karachi'),
};

export const AppSettingSchema = z.object({
  id: uuid(),
  name: z.string(),
  value: z.string(),
  description: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AppSetting = z.infer<typeof AppSettingSchema>;

/** Settings the web app needs before login (locale and time zone) and to check uploads before sending them. */
export const PublicSettingsSchema = z.object({
  displayLocale: z.string(),
  displayTimeZone: z.string(),
  maxUploadMb: z.number(),
  maxImportFiles: z.number().int().min(1).describe('Most files in one study import'),
  maxImportMb: z.number().int().min(1).describe('Most MB in one study import'),
});
export type PublicSettings = z.infer<typeof PublicSettingsSchema>;

export const SettingNameSchema = z
  .string('Name is required')
  .trim()
  .min(1, 'Name is required')
  .max(100, 'Name must be at most 100 characters')
  .regex(/^[\p{L}\p{N} ._-]+$/u, 'Name may contain letters, digits, spaces, dot, dash and underscore');

const settingFields = {
  name: SettingNameSchema,
  value: z.string('Value is required').max(2000, 'Value must be at most 2000 characters'),
  description: z.string().trim().max(500, 'Description must be at most 500 characters').nullish(),
};

/** POST /api/appsetting/add: `{ setting: { name, value, description } }` as in `docs/product.md` › Calls. */
export const CreateSettingBodySchema = z.strictObject({
  setting: z.strictObject(settingFields),
});
export type CreateSettingBody = z.infer<typeof CreateSettingBodySchema>;

/**
 * PUT /api/appsetting/edit/:id: "the row". The row's own id and timestamps may come along
 * (the web sends the row it edited); they are ignored, except that a different id is refused.
 */
export const UpdateSettingBodySchema = z.strictObject({
  ...settingFields,
  id: uuid().optional(),
  createdAt: z.string().optional(),
  createAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type UpdateSettingBody = z.infer<typeof UpdateSettingBodySchema>;

/** DELETE /api/appsetting/delete: `{ id, authUser }`; `authUser` (sent by the original client) is ignored. */
export const DeleteSettingBodySchema = z.strictObject({
  id: uuid('Setting id must be a UUID'),
  authUser: z.unknown().optional().describe('Ignored: the caller is the bearer token’s user'),
});
export type DeleteSettingBody = z.infer<typeof DeleteSettingBodySchema>;

export const SettingMessages = {
  created: 'Setting added',
  updated: 'Setting updated',
  deleted: 'Setting deleted',
  nameTaken: 'A setting with this name already exists',
  knownUndeletable: 'This setting drives the application and cannot be deleted',
  knownRename: 'This setting drives the application and cannot be renamed',
} as const;

export const AppSettingListSchema = z.array(AppSettingSchema);

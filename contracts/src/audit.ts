import { z } from 'zod';
import {
  CalendarDateSchema,
  InstantSchema,
  LIST_MAX_WINDOW,
  PaginationSchema,
  pageQuerySchema,
  uuid,
} from './common.ts';
/** Defined without zod, for the web to import alone (docs/architecture.md › Frontend, "Start-up"). */
export { AUDIT_PAGE_SIZES } from './constants.ts';

/** Offset paging stops here; older rows are reached by narrowing the date range or the filters. */
export const AUDIT_MAX_WINDOW = LIST_MAX_WINDOW;

const DateOrInstantSchema = z.union([CalendarDateSchema, InstantSchema]);

/**
 * Actions that record a read of another person's data (ids and counts only, never the data).
 * Reads of one's own data are not recorded.
 */
export const AUDIT_READ_ACTIONS = [
  'user.profile.read',
  'users.list.read',
  'admin.summary.read',
  'message.thread.read',
  'message.chats.read',
  'message.recipients.read',
  'share.list.read',
  'images.list.read',
  'studies.list.read',
  'study.read',
  'image.view',
  'image.thumbnail',
  'image.download',
  'dicom.metadata',
  'dicomweb.query',
  'dicomweb.instance',
  'dicomweb.metadata',
  'dicomweb.frames',
  'dicomweb.rendered',
  'analysis.view',
  'analysis.history',
  'external_share.view',
  'external_share.list.read',
] as const;

/** A 401/403/404 answered to a signed-in caller or to a presented token (route pattern, method, status). */
export const AUDIT_REFUSAL_ACTION = 'access.denied';

/** Every other action a service records: sign-ins, sign-outs and changes (the screen's writes and their failures). */
export const AUDIT_WRITE_ACTIONS = [
  'auth.register',
  'auth.confirm',
  'auth.code.resend',
  'auth.login',
  'auth.login.password',
  'auth.logout',
  'auth.password.forgot',
  'auth.password.reset',
  'user.update',
  'user.approve',
  'user.activate',
  'user.deactivate',
  'user.delete',
  'account.delete',
  'image.upload',
  'image.delete',
  'dicom.deidentify',
  'dimse.association',
  'dimse.store',
  'share.create',
  'share.delete',
  'share.verify',
  'share.revoke',
  'external_share.create',
  'external_share.reissue',
  'external_share.revoke',
  'external_share.redeem',
  'message.send',
  'analysis.run',
  'settings.create',
  'settings.update',
  'settings.delete',
] as const;

/** The audit event's action: one of these, so a misspelt action fails typecheck instead of filtering wrong. */
export type AuditAction =
  (typeof AUDIT_READ_ACTIONS)[number] | (typeof AUDIT_WRITE_ACTIONS)[number] | typeof AUDIT_REFUSAL_ACTION;

/**
 * The audit screen's kinds of row: refusals are every failure row (access.denied and the failures
 * services record themselves, e.g. a wrong share code); reads are the successful AUDIT_READ_ACTIONS;
 * writes are every other successful row.
 */
export const AuditCategorySchema = z.enum(['reads', 'refusals', 'writes']);
export type AuditCategory = z.infer<typeof AuditCategorySchema>;

export const ListAuditLogsQuerySchema = pageQuerySchema(5).extend({
  search: z.string().trim().max(100).optional().describe('Prefix of the acting user’s name, username or e-mail'),
  action: z.string().trim().max(100).optional().describe('Exact action type, e.g. auth.login'),
  category: AuditCategorySchema.optional().describe(
    'reads (of other people’s data), refusals (every failure row, access.denied included) or writes',
  ),
  from: DateOrInstantSchema.optional().describe(
    'Inclusive start: a calendar date (start of that day in the display time zone) or an ISO instant',
  ),
  to: DateOrInstantSchema.optional().describe(
    'Inclusive end: a calendar date (end of that day in the display time zone) or an ISO instant',
  ),
});
export type ListAuditLogsQuery = z.infer<typeof ListAuditLogsQuerySchema>;

export const AuditLogSchema = z.object({
  id: z.number().int(),
  createAt: z.string().describe('ISO 8601'),
  user: z
    .object({ id: uuid(), firstname: z.string(), lastname: z.string(), username: z.string() })
    .nullable()
    .describe('The acting user, or null (e.g. a sign-in attempt for an unknown e-mail)'),
  actiontype: z.string(),
  tablename: z.string().nullable(),
  recordId: z.string().nullable(),
  ipaddress: z.string().nullable(),
  status: z.enum(['success', 'failure']),
  reason: z.string().nullable(),
});
export type AuditLog = z.infer<typeof AuditLogSchema>;

export const AuditPaginationSchema = PaginationSchema.extend({
  totalItemsCapped: z
    .boolean()
    .describe(
      `True when more than ${AUDIT_MAX_WINDOW} rows match: totalItems is then ${AUDIT_MAX_WINDOW}; narrow the filters to reach older rows`,
    ),
});
export type AuditPagination = z.infer<typeof AuditPaginationSchema>;

export const AuditLogsResponseSchema = z.object({
  success: z.literal(true),
  message: z.string().optional(),
  data: z.array(AuditLogSchema),
  pagination: AuditPaginationSchema,
});

export const AuditActionListSchema = z.array(z.string());

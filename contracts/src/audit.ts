import { z } from 'zod';
import { CalendarDateSchema, LIST_MAX_WINDOW, PaginationSchema, pageQuerySchema } from './common.ts';

export const AUDIT_PAGE_SIZES = [5, 10, 20] as const;

/** Offset paging stops here; older rows are reached by narrowing the date range or the filters. */
export const AUDIT_MAX_WINDOW = LIST_MAX_WINDOW;

const DateOrInstantSchema = z.union([CalendarDateSchema, z.iso.datetime({ offset: true })]);

export const ListAuditLogsQuerySchema = pageQuerySchema(5).extend({
  search: z.string().trim().max(100).optional().describe('Prefix of the acting user’s name, username or e-mail'),
  action: z.string().trim().max(100).optional().describe('Exact action type, e.g. auth.login'),
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
    .object({ id: z.uuid(), firstname: z.string(), lastname: z.string(), username: z.string() })
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

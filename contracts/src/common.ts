import { z } from 'zod';

export const RoleNameSchema = z
  .enum(['patient', 'healthProvider', 'admin'])
  .describe('Role of a user, always a plain string');
export type RoleName = z.infer<typeof RoleNameSchema>;

export const SelfRegisterRoleSchema = z.enum(['patient', 'healthProvider']);

/**
 * Why a field was refused: zod's issue code when the request schema refused it with zod's own
 * wording (not written for people: the web words it from the code), or 'rejected' when the
 * server states the rule in `message` for people (a schema's own message or a domain rule).
 * `docs/product.md` › Messages and errors.
 */
export const FieldErrorCodeSchema = z.enum([
  'invalid_type',
  'too_small',
  'too_big',
  'invalid_format',
  'invalid_value',
  'not_multiple_of',
  'unrecognized_keys',
  'invalid_union',
  'invalid_key',
  'invalid_element',
  'custom',
  'invalid_code',
  'rejected',
]);
export type FieldErrorCode = z.infer<typeof FieldErrorCodeSchema>;

export const FieldErrorSchema = z.object({
  field: z.string(),
  message: z.string(),
  code: FieldErrorCodeSchema.optional().describe('Stable machine-readable reason; absent from older answers'),
});
export type FieldError = z.infer<typeof FieldErrorSchema>;

export const ErrorResponseSchema = z.object({
  success: z.literal(false),
  message: z.string(),
  code: z.string().optional().describe('Stable machine-readable error code'),
  errors: z.array(FieldErrorSchema).optional(),
});
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

/**
 * Long lists page by offset only within their first LIST_MAX_WINDOW matching rows, and count only
 * that far: an exact count and a deep OFFSET over 10^6 rows on every page are too slow (issue 9).
 */
export const LIST_MAX_WINDOW = 10_000;

/**
 * A search's window is smaller: a broad term ('a') can match 10^5 of 10^6 users, and counting
 * even the first 10 000 of them costs every request 15–20 ms; past 1 000 matches the answer is
 * "refine the search", not page 201.
 */
export const SEARCH_MAX_WINDOW = 1_000;

export const PaginationSchema = z.object({
  currentPage: z.number().int(),
  pageSize: z.number().int(),
  totalPages: z.number().int(),
  totalItems: z.number().int(),
  hasPrevPage: z.boolean(),
  hasNextPage: z.boolean(),
  totalItemsCapped: z
    .boolean()
    .optional()
    .describe(
      `Only on windowed lists: true when more rows match than the list's window (${LIST_MAX_WINDOW}; ${SEARCH_MAX_WINDOW} for a search); totalItems is then the window and pages past it answer 400`,
    ),
});
export type Pagination = z.infer<typeof PaginationSchema>;

/** `page` from 1 and `limit`; bounded so that no request can ask for an unbounded page. */
export function pageQuerySchema(defaultLimit: number, maxLimit = 100) {
  return z.object({
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
  });
}

/** The success envelope (`docs/architecture.md` › API conventions). */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({
    success: z.literal(true),
    message: z.string().optional(),
    data,
  });
}

export function pagedEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    success: z.literal(true),
    message: z.string().optional(),
    data: z.array(item),
    pagination: PaginationSchema,
  });
}

export const MessageOnlyResponseSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.null(),
});

/**
 * A UUID as the database spells it, lower case. RFC 9562 reads UUIDs case-insensitively, so an
 * upper-case id names the same row; but ids are also bound into sealed values (messages, analyses),
 * used as map and lock keys, and compared as strings. One spelling from the edge on
 * (docs/security.md › Input).
 */
export const uuid = (message?: string) => z.uuid(message).toLowerCase();

export const IdParamSchema = z.object({ id: uuid() });

/** Years 0001–9999, as a PostgreSQL date or timestamp holds them: year 0000 would fail the write or the query. */
const notYearZero = (value: string) => !value.startsWith('0000-');
const YEAR_RANGE_MESSAGE = 'Enter a date in the years 0001 to 9999';

/** Dates of birth travel as calendar dates (YYYY-MM-DD) so that no time zone can shift them. */
export const CalendarDateSchema = z.iso
  .date()
  .refine(notYearZero, YEAR_RANGE_MESSAGE)
  .describe('Calendar date, YYYY-MM-DD');

/** An offset no time zone has (zod takes up to ±23:59; PostgreSQL refuses past ±15:59 with a 500). */
const offsetOnEarth = (value: string) => {
  const offset = /([+-])(\d{2}):?(\d{2})$/.exec(value);
  return !offset || Number(offset[2]) * 60 + Number(offset[3]) <= 14 * 60;
};

/** An ISO 8601 instant with its offset, in the same years and with an offset some time zone has (±14:00). */
export const InstantSchema = z.iso
  .datetime({ offset: true })
  .refine(notYearZero, YEAR_RANGE_MESSAGE)
  .refine(offsetOnEarth, 'Enter a UTC offset between -14:00 and +14:00');

/** True when a calendar date is after today everywhere on Earth (the last time zone is UTC+14). */
export const isFutureDateOfBirth = (value: string, now = Date.now()) =>
  value > new Date(now + 14 * 3_600_000).toISOString().slice(0, 10);
export const FUTURE_DATE_OF_BIRTH_MESSAGE = 'Date of birth cannot be in the future';

/** A date of birth: a calendar date not after today anywhere on Earth. */
export const DateOfBirthSchema = CalendarDateSchema.refine(
  (value) => !isFutureDateOfBirth(value),
  FUTURE_DATE_OF_BIRTH_MESSAGE,
);

/** Optional free-text field: empty strings are accepted from forms and stored as null. */
export const optionalText = (max = 200) => z.string().trim().max(max).nullish();

export const EmailSchema = z.email().max(254).trim().toLowerCase();

import type { FieldError } from '@medshare/contracts';

/** An error the client may see: status, stable code and a message safe to show. */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

export const badRequest = (message: string, errors?: FieldError[]) =>
  new AppError(400, 'bad_request', message, { errors });
export const validationFailed = (errors: FieldError[]) =>
  new AppError(400, 'validation_failed', 'Validation failed', { errors });
export const unauthenticated = (message: string, code = 'unauthenticated') => new AppError(401, code, message);
export const forbidden = (message = 'You are not allowed to do this') => new AppError(403, 'forbidden', message);
export const notFound = (message = 'Not found') => new AppError(404, 'not_found', message);
export const conflict = (message: string, errors?: FieldError[]) => new AppError(409, 'conflict', message, { errors });
export const tooLarge = (message: string) => new AppError(413, 'too_large', message);
/** No representation the client accepts can be produced (content negotiation, e.g. a DICOM transfer syntax). */
export const notAcceptable = (message: string) => new AppError(406, 'not_acceptable', message);
export const unsupportedType = (message: string) => new AppError(415, 'unsupported_type', message);
export const tooManyRequests = (message: string, retryAfterSeconds?: number) =>
  new AppError(429, 'rate_limited', message, {
    headers: retryAfterSeconds ? { 'retry-after': String(Math.ceil(retryAfterSeconds)) } : undefined,
  });
export const unavailable = (message = 'A service this request needs is unavailable. Try again shortly.') =>
  new AppError(503, 'unavailable', message);

/** The message of whatever was thrown (a rejection may carry a non-Error). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** PostgreSQL's (and PGlite's) errors: a five-character SQLSTATE and a severity. */
export const isDatabaseError = (err: unknown): err is Error & Record<string, unknown> =>
  err instanceof Error &&
  /^[0-9A-Z]{5}$/.test(errorCode(err) ?? '') &&
  typeof (err as { severity?: unknown }).severity === 'string';

/**
 * The text of a database error (its message or stack) as a log may carry it. A data exception
 * (SQLSTATE class 22: `invalid input syntax for type date: "…"`, `time zone "…" not recognized`)
 * quotes the value it refused, and such a value may be PHI or a secret: it is masked from the first
 * quote to the last of each line, since PostgreSQL does not escape a quote inside a value. Other
 * classes quote names only (a table, a column, a constraint), which stay: their values are in
 * `detail`, which no log carries (http/logger.ts › serializeError).
 */
export function maskedDatabaseText(err: unknown, text: string): string {
  return errorCode(err)?.startsWith('22') ? text.replace(/"[^\n]*"/g, '"…"') : text;
}

/** errorMessage for a log line or a CLI's output: a database error's quoted values masked. */
export function loggedMessage(err: unknown): string {
  return isDatabaseError(err) ? maskedDatabaseText(err, err.message) : errorMessage(err);
}

/** The `code` a thrown value carries, if any: Node's system errors, pg's and PGlite's SQLSTATE. */
export function errorCode(err: unknown): string | undefined {
  const code = err !== null && typeof err === 'object' && 'code' in err ? err.code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** The HTTP status a thrown value carries as `statusCode` (Fastify's and @fastify/multipart's errors), if any. */
export function errorStatus(err: unknown): number | undefined {
  const status = err !== null && typeof err === 'object' && 'statusCode' in err ? err.statusCode : undefined;
  return typeof status === 'number' ? status : undefined;
}

/** A unique constraint refused the row: node-postgres and PGlite both report SQLSTATE 23505 as `code`. */
export const isUniqueViolation = (err: unknown): boolean => errorCode(err) === '23505';

/**
 * The statement was refused for certain, so nothing it wrote committed: the app refused it
 * (AppError), or the database answered with an SQLSTATE outside the classes that leave a commit's
 * outcome unknown (08 connection exception, 57 operator intervention, 58 system error, XX internal).
 * A connection that broke without an answer is not a refusal.
 */
export function refusedForCertain(err: unknown): boolean {
  if (err instanceof AppError) return true;
  const code = errorCode(err);
  return code !== undefined && /^[0-9][0-9A-Z]{4}$/.test(code) && !['08', '57', '58'].includes(code.slice(0, 2));
}

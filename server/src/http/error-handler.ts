import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { FieldErrorCodeSchema, type FieldError, type FieldErrorCode } from '@medshare/contracts';
import { z } from 'zod';
import { AppError, errorCode, errorMessage, loggedMessage } from '../errors.ts';

const DB_DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
  '08004',
]);

export function isDatabaseDown(err: unknown): boolean {
  const code = errorCode(err);
  return (
    (code !== undefined && DB_DOWN_CODES.has(code)) ||
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      errorMessage(err),
    )
  );
}

type SchemaIssue = { keyword: string; message?: string; params: Record<string, unknown>; instancePath: string };

/**
 * A schema's own message (`.min(1, 'First name is required')`) is written for people: 'rejected'
 * tells the web to show it. zod's default wording ('Too small: expected string to have >=20
 * characters') is not: the zod issue code lets the web word it (`docs/product.md` › Messages and
 * errors). zod's default is recomputed from the issue to tell them apart; an invalid_type issue
 * no longer carries its input, so its default cannot be recomputed, and no schema words one.
 */
function schemaIssueCode(issue: SchemaIssue): FieldErrorCode {
  const parsed = FieldErrorCodeSchema.safeParse(issue.keyword);
  if (!parsed.success) return 'custom';
  if (issue.keyword === 'invalid_type') return 'invalid_type';
  const localeError = z.config().localeError;
  const computed = localeError?.({ code: issue.keyword, ...issue.params, path: [] } as never);
  const zodDefault = typeof computed === 'string' ? computed : computed?.message;
  return zodDefault !== undefined && issue.message !== zodDefault ? 'rejected' : parsed.data;
}

/** One place maps every failure to the envelope; 5xx details stay in the log, never in the answer. */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const errors = err.validation.map((v): FieldError => {
        const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
        if (v.keyword === 'unrecognized_keys') {
          const keys = (v.params as { keys?: string[] }).keys ?? [];
          return {
            field: [path, keys.join(', ')].filter(Boolean).join('.'),
            code: 'unrecognized_keys',
            message: 'Unknown field',
          };
        }
        return {
          field: path || err.validationContext || 'body',
          code: schemaIssueCode(v),
          message: v.message ?? 'Invalid value',
        };
      });
      return reply
        .status(400)
        .send({ success: false, code: 'validation_failed', message: 'Validation failed', errors });
    }
    if (err instanceof AppError) {
      if (err.headers) reply.headers(err.headers);
      return reply.status(err.status).send({
        success: false,
        code: err.code,
        message: err.message,
        // The server's own field messages are written for people.
        ...(err.errors ? { errors: err.errors.map((e) => ({ ...e, code: e.code ?? 'rejected' })) } : {}),
      });
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err: { message: err.message } }, 'response did not match its schema');
      return reply.status(500).send({ success: false, code: 'internal', message: 'Something went wrong on our side.' });
    }
    if (isDatabaseDown(err)) {
      request.log.error({ err: { message: loggedMessage(err), code: err.code } }, 'database unavailable');
      return reply.status(503).header('retry-after', '5').send({
        success: false,
        code: 'unavailable',
        message: 'The database is unavailable. Please try again shortly.',
      });
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const messages: Record<string, string> = {
        FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON',
        FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty',
        FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large',
        FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type',
      };
      return reply
        .status(status)
        .send({ success: false, code: err.code ?? 'bad_request', message: messages[err.code] ?? err.message });
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ success: false, code: 'internal', message: 'Something went wrong on our side.' });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({
      success: false,
      code: 'not_found',
      message: `Route ${request.method} ${request.url.split('?')[0]} not found`,
    });
  });
}

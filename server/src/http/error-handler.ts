import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError } from '../errors.ts';

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
  const e = err as { code?: string; message?: string };
  return (
    (e.code !== undefined && DB_DOWN_CODES.has(e.code)) ||
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      e.message ?? '',
    )
  );
}

/** One place maps every failure to the envelope; 5xx details stay in the log, never in the answer. */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const errors = err.validation.map((v) => {
        const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
        if (v.keyword === 'unrecognized_keys') {
          const keys = (v.params as { keys?: string[] }).keys ?? [];
          return { field: [path, keys.join(', ')].filter(Boolean).join('.'), message: 'Unknown field' };
        }
        return { field: path || err.validationContext || 'body', message: v.message };
      });
      return reply
        .status(400)
        .send({ success: false, code: 'validation_failed', message: 'Validation failed', errors });
    }
    if (err instanceof AppError) {
      if (err.headers) reply.headers(err.headers);
      return reply
        .status(err.status)
        .send({ success: false, code: err.code, message: err.message, ...(err.errors ? { errors: err.errors } : {}) });
    }
    if (isResponseSerializationError(err)) {
      request.log.error({ err: { message: err.message } }, 'response did not match its schema');
      return reply.status(500).send({ success: false, code: 'internal', message: 'Something went wrong on our side.' });
    }
    if (isDatabaseDown(err)) {
      request.log.error({ err: { message: err.message, code: err.code } }, 'database unavailable');
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

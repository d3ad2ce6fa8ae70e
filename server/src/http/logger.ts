import { type DestinationStream, type LoggerOptions, stdSerializers } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Config } from '../config.ts';
import { isDatabaseError, maskedDatabaseText } from '../errors.ts';

/** Secrets and PHI never reach the log, whatever a route puts on the request. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.code',
  '*.otp',
  '*.token',
  '*.verificationCode',
  '*.content',
  'body',
];

/**
 * Errors as pino writes them, with two changes.
 * - A database error is written without the values it may carry: its `detail` (a failing row whole,
 *   `Key (email)=(…)`), `where` and PGlite's query and parameters are left out, and a data
 *   exception's quoted value is masked in its message and stack (errors.ts › maskedDatabaseText).
 *   Kept: what names the fault (SQLSTATE, severity, schema, table, column, constraint, data type,
 *   routine, hint, position).
 * - An error's `code` (SQLSTATE, ENOSPC, ECONNREFUSED…) is written as `errorCode`: the redaction of
 *   `*.code` (verification codes) would hide it.
 */
export function serializeError(err: unknown): unknown {
  if (err === null || typeof err !== 'object') return err;
  const { code, ...rest } = (err instanceof Error ? writtenError(err) : err) as Record<string, unknown>;
  return code === undefined ? rest : { ...rest, errorCode: code };
}

const DATABASE_ERROR_FIELDS = [
  'code',
  'severity',
  'schema',
  'table',
  'column',
  'constraint',
  'dataType',
  'routine',
  'hint',
  'position',
] as const;

function writtenError(err: Error): object {
  if (!isDatabaseError(err)) return stdSerializers.err(err);
  const { type, stack } = stdSerializers.err(err);
  return {
    type,
    message: maskedDatabaseText(err, err.message),
    stack: stack && maskedDatabaseText(err, stack),
    ...Object.fromEntries(DATABASE_ERROR_FIELDS.flatMap((k) => (typeof err[k] === 'string' ? [[k, err[k]]] : []))),
  };
}

/**
 * Development logs are read by a person in a terminal: one coloured line per entry. It runs in
 * this thread, after pino has redacted and serialized the entry, so the redaction holds; production
 * keeps one JSON object per line for log collectors.
 */
export function prettyStream(destination: number | NodeJS.WritableStream = 1): DestinationStream {
  return PinoPretty({
    destination,
    colorize: typeof destination === 'number' && Boolean(process.stdout.isTTY),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    sync: true,
  });
}

/** A caller's own stream (tests) replaces the pretty one: `{ ...loggerOptions(config), stream }`. */
export function loggerOptions(
  config: Pick<Config, 'env' | 'logLevel'>,
): LoggerOptions & { stream?: DestinationStream } {
  return {
    ...(config.env === 'development' ? { stream: prettyStream() } : {}),
    level: config.logLevel,
    redact: { paths: redactPaths, censor: '[redacted]' },
    serializers: {
      err: serializeError,
      // Query strings may carry search terms typed by users (names): log the path only.
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split('?')[0],
        ip: req.ip,
      }),
    },
  };
}

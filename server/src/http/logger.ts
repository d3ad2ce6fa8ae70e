import { type DestinationStream, type LoggerOptions, stdSerializers } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Config } from '../config.ts';
import { isDatabaseError, maskQuotedValues } from '../errors.ts';

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
 * - A database error's values are left out. PostgreSQL quotes what it refused (`invalid input syntax
 *   for type date: "…"`, `Key (email)=(…) already exists`, a failing row whole in `detail`), and
 *   PGlite's errors carry the query's parameters; any of them may be PHI or a secret. Kept: what
 *   names the fault (SQLSTATE, table, column, constraint, routine) and the message and stack with
 *   quoted values masked.
 * - An error's `code` (SQLSTATE, ENOSPC, ECONNREFUSED…) is written as `errorCode`: the redaction of
 *   `*.code` (verification codes) would hide it.
 */
export function serializeError(err: unknown): unknown {
  if (err === null || typeof err !== 'object') return err;
  const { code, ...rest } = (err instanceof Error ? writtenError(err) : err) as Record<string, unknown>;
  return code === undefined ? rest : { ...rest, errorCode: code };
}

function writtenError(err: Error): object {
  if (!isDatabaseError(err)) return stdSerializers.err(err);
  const { type, stack } = stdSerializers.err(err);
  const names = ['code', 'severity', 'table', 'column', 'constraint', 'dataType', 'routine'] as const;
  return {
    type,
    message: maskQuotedValues(err.message),
    stack: stack && maskQuotedValues(stack),
    ...Object.fromEntries(names.flatMap((k) => (typeof err[k] === 'string' ? [[k, err[k]]] : []))),
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

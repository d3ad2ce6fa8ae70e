import type { DestinationStream, LoggerOptions } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Config } from '../config.ts';

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

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { S3Settings } from './storage/s3-storage.ts';

/**
 * PGlite's buffer cache. Its WebAssembly build zeroes the whole cache when it starts, so all of it is
 * resident from the first second: with PostgreSQL's own 128MB, PGlite's memory was 154 of an idle
 * node's 470 MiB (50 with 32MB). The data files are in the operating system's page cache as well
 * (docs/decisions.md › Memory of a server under load and at rest).
 */
export const PGLITE_SHARED_BUFFERS = '32MB';

/** PostgreSQL's smallest `shared_buffers` (16 pages of 8 kB) up to what a WebAssembly memory can hold beside the rest. */
function isPgliteCacheSize(value: string): boolean {
  const m = /^([1-9]\d{0,6})(kB|MB|GB)$/.exec(value);
  if (!m) return false;
  const kB = Number(m[1]) * { kB: 1, MB: 1024, GB: 1024 * 1024 }[m[2] as 'kB' | 'MB' | 'GB'];
  return kB >= 128 && kB <= 1024 * 1024;
}

/** PS3.5 AE title: up to 16 characters of the default repertoire, no backslash or control character. */
const AE_TITLE = /^[\x20-\x5b\x5d-\x7e]{1,16}$/;

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  PGLITE_SHARED_BUFFERS: z
    .string()
    .default(PGLITE_SHARED_BUFFERS)
    .refine(isPgliteCacheSize, 'must be a size from 128kB to 1GB, such as 32MB'),
  STORAGE_DRIVER: z.enum(['fs', 's3']).default('fs'),
  MAIL_TRANSPORT: z.enum(['outbox', 'smtp']).default('outbox'),
  MAIL_FROM: z.string().default('MedShare <no-reply@medshare.local>'),
  SMTP_URL: z.string().url().optional(),
  MASTER_KEY: z
    .string()
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(10).optional(),
  REDIS_URL: z.string().url().optional(),
  PUBLIC_URL: z.string().url().optional(),
  TRUST_PROXY: z.stringbool().default(false),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  HTTP_UPLOAD_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
  HTTP_BODY_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(72_000),
  HTTP_MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).max(100_000).optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  RATE_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().optional(),
  ANALYSIS_PROVIDER: z.enum(['local', 'openai']).default('local'),
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_MODEL: z.string().optional(),
  ANALYSIS_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(60_000),
  DICOM_WORKERS: z.coerce.number().int().min(1).max(32).optional(),
  DIMSE_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  DIMSE_AE_TITLE: z
    .string()
    .trim()
    .regex(AE_TITLE, 'must be 1 to 16 printable characters without a backslash')
    .default('MEDSHARE'),
  DIMSE_ALLOWED_AES: z
    .string()
    .default('[]')
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON: [{"ae":"ORTHANC","provider":"dr@example.org"}]' });
        return z.NEVER;
      }
    })
    .pipe(
      z.array(
        z.strictObject({
          ae: z.string().trim().regex(AE_TITLE, 'an AE title: 1 to 16 printable characters without a backslash'),
          provider: z.email(),
        }),
      ),
    ),
  DIMSE_TLS_KEY: z.string().optional(),
  DIMSE_TLS_CERT: z.string().optional(),
  DIMSE_TLS_CA: z.string().optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_BUCKET: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.stringbool().default(true),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  port: number;
  host: string;
  dataDir: string;
  database: { kind: 'pglite'; dir: string | null; sharedBuffers?: string } | { kind: 'postgres'; url: string };
  mail:
    | { transport: 'outbox'; dir: string; from: string; logCodes: boolean }
    | { transport: 'smtp'; url: string; from: string; logCodes: boolean };
  masterKey: Buffer;
  jwtSecret: Buffer;
  admin: { email: string | null; password: string | null };
  redisUrl: string | null;
  publicUrl: string | null;
  trustProxy: boolean;
  /**
   * Slow-client limits (docs/security.md, Connections and timeouts): headers must arrive within
   * headersTimeoutMs; a whole request within requestTimeoutMs (uploadTimeoutMs for the upload
   * route); a body that sends no byte for bodyIdleTimeoutMs is cut; one address holds at most
   * maxConnectionsPerIp sockets (0: no cap).
   */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    uploadTimeoutMs: number;
    bodyIdleTimeoutMs: number;
    keepAliveTimeoutMs: number;
    maxConnectionsPerIp: number;
  };
  /** Prometheus metrics on their own listener (never the public port); null port: not served. */
  metrics: { port: number | null; host: string };
  /** DICOM worker threads (null: 2-4 by the cores, dicom-pool.ts). */
  dicomWorkers: number | null;
  /**
   * The DIMSE receiver (C-ECHO and C-STORE SCP, `docs/security.md` › DICOM networking: STOW-RS and
   * DIMSE): off when port is null; each calling AE title allowed stores as the provider account
   * named by e-mail; TLS (PEM files read at start) when key and cert are given.
   */
  dimse: {
    port: number | null;
    aeTitle: string;
    allowed: Array<{ ae: string; provider: string }>;
    tls: { key: Buffer; cert: Buffer; ca: Buffer | null } | null;
  };
  logLevel: Env['LOG_LEVEL'];
  webDist: string | null;
  /** Rate limits can be raised in tests that drive many requests from one address. */
  rateLimits: { authPerMinute: number };
  argon2: { memoryCost: number; timeCost: number };
  /**
   * AI analysis (`docs/architecture.md` › AI analysis): which provider runs, and the OpenAI-compatible
   * endpoint when it is 'openai'.
   */
  analysis: {
    provider: Env['ANALYSIS_PROVIDER'];
    baseUrl: string | null;
    apiKey: string | null;
    model: string | null;
    timeoutMs: number;
  };
  /** Encrypted blobs: local disk under DATA_DIR/blobs or an S3-compatible bucket; orphan sweeping. */
  storage: ({ driver: 'fs' } | { driver: 's3'; s3: S3Settings }) & {
    sweepGraceMinutes: number;
    sweepIntervalMinutes: number;
  };
}

export class ConfigError extends Error {}

/** Parses the environment once; start-up fails listing every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  const dataDir = resolve(env.DATA_DIR);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });

  const problems: string[] = [];
  if (env.NODE_ENV === 'production') {
    if (!env.MASTER_KEY) problems.push('  MASTER_KEY: required in production (32 bytes, base64)');
    if (!env.JWT_SECRET) problems.push('  JWT_SECRET: required in production');
    if (env.MAIL_TRANSPORT === 'outbox') problems.push('  MAIL_TRANSPORT: use smtp in production');
  }
  if (env.MAIL_TRANSPORT === 'smtp' && !env.SMTP_URL) problems.push('  SMTP_URL: required with MAIL_TRANSPORT=smtp');
  if (env.ANALYSIS_PROVIDER === 'openai') {
    if (!env.OPENAI_BASE_URL) problems.push('  OPENAI_BASE_URL: required with ANALYSIS_PROVIDER=openai');
    if (!env.OPENAI_MODEL) problems.push('  OPENAI_MODEL: required with ANALYSIS_PROVIDER=openai');
  }
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS)
    problems.push('  HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  if (env.HTTP_REQUEST_TIMEOUT_MS > env.HTTP_UPLOAD_TIMEOUT_MS)
    problems.push('  HTTP_REQUEST_TIMEOUT_MS: must not exceed HTTP_UPLOAD_TIMEOUT_MS');
  if (env.STORAGE_DRIVER === 's3' && !env.S3_BUCKET) problems.push('  S3_BUCKET: required with STORAGE_DRIVER=s3');
  if (!env.DIMSE_TLS_KEY !== !env.DIMSE_TLS_CERT)
    problems.push('  DIMSE_TLS_KEY, DIMSE_TLS_CERT: give both (PEM files) for DIMSE over TLS, or neither');
  const pem = (name: string, path: string | undefined) => {
    if (!path) return null;
    try {
      return readFileSync(path);
    } catch {
      problems.push(`  ${name}: cannot read ${path}`);
      return null;
    }
  };
  const tlsKey = pem('DIMSE_TLS_KEY', env.DIMSE_TLS_KEY);
  const tlsCert = pem('DIMSE_TLS_CERT', env.DIMSE_TLS_CERT);
  const tlsCa = pem('DIMSE_TLS_CA', env.DIMSE_TLS_CA);
  if (problems.length) throw new ConfigError(`Invalid environment:\n${problems.join('\n')}`);

  // A code in the log is a second way to it besides the mailbox: only for mail that is never sent
  // (the outbox, a developer's machine), never beside real delivery, whatever NODE_ENV says.
  const logCodes = env.NODE_ENV !== 'production' && env.MAIL_TRANSPORT === 'outbox';
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    dataDir,
    database: env.DATABASE_URL
      ? { kind: 'postgres', url: env.DATABASE_URL }
      : { kind: 'pglite', dir: join(dataDir, 'db'), sharedBuffers: env.PGLITE_SHARED_BUFFERS },
    mail:
      env.MAIL_TRANSPORT === 'smtp'
        ? { transport: 'smtp', url: env.SMTP_URL!, from: env.MAIL_FROM, logCodes }
        : { transport: 'outbox', dir: join(dataDir, 'outbox'), from: env.MAIL_FROM, logCodes },
    masterKey: env.MASTER_KEY
      ? Buffer.from(env.MASTER_KEY, 'base64')
      : Buffer.from(readOrCreateSecret(join(dataDir, 'master.key')), 'base64'),
    jwtSecret: Buffer.from(env.JWT_SECRET ?? readOrCreateSecret(join(dataDir, 'jwt.secret')), 'utf8'),
    admin: { email: env.ADMIN_EMAIL ?? null, password: env.ADMIN_PASSWORD ?? null },
    redisUrl: env.REDIS_URL ?? null,
    publicUrl: env.PUBLIC_URL ?? null,
    trustProxy: env.TRUST_PROXY,
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      uploadTimeoutMs: env.HTTP_UPLOAD_TIMEOUT_MS,
      bodyIdleTimeoutMs: env.HTTP_BODY_IDLE_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      // 256: a hospital behind one NAT address (a few dozen browsers, ~6 sockets and a stream each)
      // must pass. Behind a proxy every socket comes from the proxy's address: the cap belongs at
      // the proxy (deploy/medshare-proxy.conf: limit_conn), so it is off unless set explicitly.
      maxConnectionsPerIp: env.HTTP_MAX_CONNECTIONS_PER_IP ?? (env.TRUST_PROXY ? 0 : 256),
    },
    metrics: { port: env.METRICS_PORT ?? null, host: env.METRICS_HOST },
    dicomWorkers: env.DICOM_WORKERS ?? null,
    dimse: {
      port: env.DIMSE_PORT ?? null,
      aeTitle: env.DIMSE_AE_TITLE,
      allowed: env.DIMSE_ALLOWED_AES,
      tls: tlsKey && tlsCert ? { key: tlsKey, cert: tlsCert, ca: tlsCa } : null,
    },
    logLevel: env.LOG_LEVEL,
    webDist: env.WEB_DIST ?? null,
    rateLimits: { authPerMinute: env.RATE_LIMIT_AUTH_PER_MINUTE },
    argon2: { memoryCost: 19_456, timeCost: 2 },
    analysis: {
      provider: env.ANALYSIS_PROVIDER,
      baseUrl: env.OPENAI_BASE_URL ? env.OPENAI_BASE_URL.replace(/\/+$/, '') : null,
      apiKey: env.OPENAI_API_KEY || null,
      model: env.OPENAI_MODEL || null,
      timeoutMs: env.ANALYSIS_TIMEOUT_MS,
    },
    storage: {
      ...(env.STORAGE_DRIVER === 's3'
        ? {
            driver: 's3' as const,
            s3: {
              endpoint: env.S3_ENDPOINT ?? null,
              region: env.S3_REGION,
              bucket: env.S3_BUCKET!,
              accessKeyId: env.S3_ACCESS_KEY_ID ?? null,
              secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? null,
              forcePathStyle: env.S3_FORCE_PATH_STYLE,
              prefix: 'blobs/',
            },
          }
        : { driver: 'fs' as const }),
      sweepGraceMinutes: 60,
      sweepIntervalMinutes: 60,
    },
  };
}

/** A random 32-byte secret kept in DATA_DIR with owner-only permissions. */
function readOrCreateSecret(path: string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = randomBytes(32).toString('base64');
  writeFileSync(path, value + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return value;
}

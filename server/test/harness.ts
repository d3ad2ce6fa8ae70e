import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { createTestDatabase, testDbKind } from './database.ts';
import { freshPgliteDir } from './pglite-template.ts';
import { type TestSmtp, codeIn, startSmtp } from './smtp.ts';

export const ADMIN = { email: 'admin@test.medshare', password: 'Admin-password-for-tests-1' };

export interface TestApp {
  app: FastifyInstance;
  smtp: TestSmtp;
  config: Config;
  dataDir: string;
  request(opts: InjectOptions & { token?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** The real app on a fresh database, a temporary DATA_DIR and a real in-process SMTP server. */
export async function createTestApp(
  tweak: (c: Config & { dataDir: string }) => void = () => {},
  logStream?: Writable,
): Promise<TestApp> {
  const smtp = await startSmtp();
  const dataDir = mkdtempSync(join(tmpdir(), 'medshare-test-'));
  const database = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    MAIL_TRANSPORT: 'smtp',
    SMTP_URL: smtp.url,
    LOG_LEVEL: 'silent',
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    WEB_DIST: join(dataDir, 'no-web'),
    PUBLIC_URL: 'http://medshare.test',
  });
  config.database = database.target;
  config.rateLimits.authPerMinute = 10_000;
  // Real argon2id, lighter memory so that hundreds of hashes fit in the suite's time.
  config.argon2 = { memoryCost: 4_096, timeCost: 1 };
  tweak(config);
  // A test that names its own PGlite directory starts from the migrated template too (no initdb).
  const own = config.database;
  if (own.kind === 'pglite' && own.dir && !existsSync(own.dir)) await freshPgliteDir(own.dir);
  const app = await buildApp(config, logStream ? { logStream } : {});
  await app.ready();
  return {
    app,
    smtp,
    config,
    dataDir,
    request: ({ token, headers, ...opts }) =>
      app.inject({ ...opts, headers: { ...(headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) } }),
    async close() {
      await app.close();
      await smtp.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `from` shares an image with `to` (`POST /api/sharing/request`); with `unlock`, `to` enters the
 * mailed code. Returns the sharing id.
 */
export async function shareImage(
  t: TestApp,
  imageId: string,
  from: SignedIn,
  to: SignedIn,
  { unlock }: { unlock: boolean },
): Promise<string> {
  const before = t.smtp.countTo(to.user.email);
  const res = await t.request({
    method: 'POST',
    url: '/api/sharing/request',
    payload: { imagemetadataId: imageId, createdfor: to.user.id },
    token: from.token,
  });
  if (res.statusCode !== 201) throw new Error(`share: ${res.statusCode} ${res.body}`);
  const sharingId = res.json().data.id as string;
  if (!unlock) return sharingId;
  while (t.smtp.countTo(to.user.email) === before) await new Promise((r) => setTimeout(r, 10));
  const verified = await t.request({
    method: 'POST',
    url: '/api/sharing/verify',
    payload: { sharingRequestId: sharingId, verificationCode: codeIn(await t.smtp.lastTo(to.user.email)) },
    token: to.token,
  });
  if (verified.statusCode !== 200) throw new Error(`verify: ${verified.statusCode} ${verified.body}`);
  return sharingId;
}

/**
 * Why two instances of the app cannot run here, or null: they need one PostgreSQL database
 * (TEST_DATABASE_URL; PGlite cannot be shared) and Redis between them (TEST_REDIS_URL).
 */
export const twoInstancesSkip: string | null = !process.env.TEST_REDIS_URL
  ? 'TEST_REDIS_URL is not set'
  : testDbKind !== 'postgres'
    ? 'two instances need one shared PostgreSQL database (TEST_DATABASE_URL); PGlite cannot be shared'
    : null;

/**
 * Another instance of `first`'s deployment, as behind a load balancer: the same database, master key,
 * token secret and blob store (`first`'s DATA_DIR/blobs; S3 in production). Close it before `first`,
 * which owns the database.
 */
export const secondInstance = (first: TestApp, tweak: (c: Config & { dataDir: string }) => void = () => {}) =>
  createTestApp((c) => {
    c.database = first.config.database;
    c.masterKey = first.config.masterKey;
    c.jwtSecret = first.config.jwtSecret;
    c.dataDir = first.config.dataDir;
    tweak(c);
  });

let counter = 0;
/**
 * A tiny built web app under `dataDir/web` (index.html with the nonce placeholder, one asset), for
 * tests of the SPA fallback, static files and their headers. Returns its directory for `webDist`.
 */
export function writeTinyWebApp(dataDir: string): string {
  const dist = join(dataDir, 'web');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(
    join(dist, 'index.html'),
    '<html><head><meta property="csp-nonce" nonce="__CSP_NONCE__"></head><body>app</body></html>',
  );
  writeFileSync(join(dist, 'assets', 'app.js'), 'console.log(1)');
  return dist;
}

/**
 * Holds the app's next password-hasher call (`verify`: a code or password check; `hash`: a new code or
 * password) until `release()`: `reached` resolves once a request is held there, so that a test can
 * run another request between that request's read of a row and its write (a race, made certain).
 */
export function holdNextHasherCall(t: TestApp, method: 'verify' | 'hash') {
  const hasher = t.app.ctx.hasher as Record<'verify' | 'hash', (...args: never[]) => Promise<unknown>>;
  const original = hasher[method];
  let release!: () => void;
  let arrived!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  hasher[method] = async (...args) => {
    hasher[method] = original;
    arrived();
    await released;
    return original(...args);
  };
  return { reached, release };
}

export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}`;
}

export interface SignedIn {
  token: string;
  user: { id: string; email: string; role: string };
  password: string;
}

/** Signs in through the real two-factor flow: password, mailed code, confirm. */
export async function login(t: TestApp, email: string, password: string): Promise<SignedIn> {
  const before = t.smtp.countTo(email);
  const res = await t.request({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`login ${email}: ${res.statusCode} ${res.body}`);
  while (t.smtp.countTo(email) === before) await new Promise((r) => setTimeout(r, 10));
  const code = codeIn(await t.smtp.lastTo(email));
  const confirm = await t.request({ method: 'POST', url: '/api/auth/confirm', payload: { email, code } });
  if (confirm.statusCode !== 200) throw new Error(`confirm ${email}: ${confirm.statusCode} ${confirm.body}`);
  const data = confirm.json().data;
  return { token: data.token, user: data.user, password };
}

export const loginAdmin = (t: TestApp) => login(t, ADMIN.email, ADMIN.password);

/** Registers, confirms the e-mail and (for providers) has the admin approve, then signs in. */
export async function newUser(
  t: TestApp,
  role: 'patient' | 'healthProvider' = 'patient',
  extra: Record<string, unknown> = {},
): Promise<SignedIn> {
  const username = uniqueName(role === 'patient' ? 'pat' : 'doc');
  const email = `${username}@example.org`;
  const password = 'Tr0ubadour-and-horse';
  const res = await t.request({
    method: 'POST',
    url: '/api/auth/register',
    payload: { role, email, username, password, firstname: 'Test', lastname: username, ...extra },
  });
  if (res.statusCode !== 201) throw new Error(`register: ${res.statusCode} ${res.body}`);
  const id = res.json().data.user.id as string;
  const code = codeIn(await t.smtp.lastTo(email));
  const confirm = await t.request({ method: 'POST', url: '/api/auth/confirm', payload: { email, code } });
  if (confirm.statusCode !== 200) throw new Error(`confirm: ${confirm.body}`);
  if (role === 'patient') return { token: confirm.json().data.token, user: confirm.json().data.user, password };
  const admin = await loginAdmin(t);
  const approve = await t.request({ method: 'PUT', url: `/api/users/toggleUserStatus/${id}`, token: admin.token });
  if (approve.statusCode !== 200) throw new Error(`approve: ${approve.body}`);
  return login(t, email, password);
}

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVER_ENV, SERVER_NODE_FLAGS } from '../src/node-flags.ts';
import { freshPgliteDir } from './pglite-template.ts';

/** The real server as its own process (`node server/src/main.ts`), for crash tests and benchmarks. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface SpawnedServer {
  base: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  stop(signal: NodeJS.Signals): Promise<void>;
}

export interface ServerOptions {
  dataDir: string;
  admin: { email: string; password: string };
  /** PostgreSQL URL; PGlite in DATA_DIR/db without it. */
  databaseUrl?: string | null;
  env?: Record<string, string>;
  port?: number;
  /** Extra node flags, e.g. --max-old-space-size. */
  nodeArgs?: string[];
  /** How long to wait for /api/health (default 60 s). */
  startTimeoutMs?: number;
}

/** The environment a spawned server (or a CLI on its data) runs with: outbox mail, no web app. */
export function serverEnv(options: ServerOptions): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'test',
    DATA_DIR: options.dataDir,
    HOST: '127.0.0.1',
    MAIL_TRANSPORT: 'outbox',
    ADMIN_EMAIL: options.admin.email,
    ADMIN_PASSWORD: options.admin.password,
    LOG_LEVEL: 'warn',
    WEB_DIST: join(options.dataDir, 'no-web'),
    RATE_LIMIT_AUTH_PER_MINUTE: '1000',
    // Benchmarks drive hundreds of clients from 127.0.0.1; slow-clients.test.ts sets its own cap.
    HTTP_MAX_CONNECTIONS_PER_IP: '0',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  };
}

/** Starts the server with the outbox mailer and waits until it says it listens and /api/health answers. */
export async function startServer(options: ServerOptions): Promise<SpawnedServer> {
  const port = options.port ?? (await freePort());
  // A first start on PGlite would run initdb in the child; a restart or a restored backup keeps its own.
  const pgliteDir = join(options.dataDir, 'db');
  if (!options.databaseUrl && !existsSync(pgliteDir)) await freshPgliteDir(pgliteDir);
  const child = spawn(
    process.execPath,
    [...SERVER_NODE_FLAGS, ...(options.nodeArgs ?? []), join(ROOT, 'server/src/main.ts')],
    {
      env: { ...SERVER_ENV, ...serverEnv(options), PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  // Its own line first (main.ts prints it once listening): freePort's port can be taken by another
  // test's server in the meantime, whose health would answer for a child that never started.
  const listening = `MedShare on ${base}:`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    const ok =
      output.includes(listening) &&
      (await fetch(`${base}/api/health`)
        .then((r) => r.ok)
        .catch(() => false));
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    output: () => output,
    async stop(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

/**
 * Reads codes the outbox mailer wrote (one .eml per mail in DATA_DIR/outbox), by recipient.
 * Files are parsed once each; `codeFor` waits for a mail newer than the count given.
 */
export function outboxReader(dataDir: string) {
  const dir = join(dataDir, 'outbox');
  const seen = new Set<string>();
  const codes = new Map<string, string[]>();
  let lastScan = 0;
  // Many waiting clients share one directory listing every few milliseconds (benchmarks).
  const scan = (force = false) => {
    if ((!force && Date.now() - lastScan < 10) || !existsSync(dir)) return;
    lastScan = Date.now();
    for (const name of readdirSync(dir)) {
      // A mail being written is a dot-file until it is renamed to its .eml name (mail/mailer.ts).
      if (seen.has(name) || !name.endsWith('.eml')) continue;
      let text: string;
      try {
        text = readFileSync(join(dir, name), 'utf8');
      } catch {
        continue;
      }
      const to = /^To: (?:.*<)?([^\s<>]+@[^\s<>]+)>?\r?$/m.exec(text)?.[1]?.toLowerCase();
      const code = /^(\d{6})\r?$/m.exec(text)?.[1];
      // A file seen while still being written has no code yet: read it again next time.
      if (!to || !code) continue;
      seen.add(name);
      const list = codes.get(to) ?? [];
      list.push(code);
      codes.set(to, list);
    }
  };
  return {
    /** How many codes this address has received so far. */
    count(email: string): number {
      scan(true);
      return codes.get(email.toLowerCase())?.length ?? 0;
    },
    /** The code of the mail after the first `after` mails to this address. */
    async codeFor(email: string, after: number, timeoutMs = 15_000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        scan();
        const list = codes.get(email.toLowerCase()) ?? [];
        if (list.length > after) return list.at(-1)!;
        if (Date.now() > deadline) throw new Error(`no code mailed to ${email}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
export type OutboxReader = ReturnType<typeof outboxReader>;

const json = (body: object) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Password, mailed code, confirm: a bearer token. */
export async function signInOverHttp(base: string, outbox: OutboxReader, email: string, password: string) {
  const before = outbox.count(email);
  const login = await fetch(`${base}/api/auth/login`, json({ email, password }));
  if (login.status !== 200) throw new Error(`login ${email}: ${login.status} ${await login.text()}`);
  const code = await outbox.codeFor(email, before);
  const confirm = await fetch(`${base}/api/auth/confirm`, json({ email, code }));
  if (confirm.status !== 200) throw new Error(`confirm ${email}: ${confirm.status} ${await confirm.text()}`);
  const data = ((await confirm.json()) as { data: { token: string; user: { id: string } } }).data;
  return { token: data.token, userId: data.user.id };
}

/** Registers a patient and confirms the mailed code: signed in. */
export async function registerPatientOverHttp(base: string, outbox: OutboxReader, username: string) {
  const email = `${username}@example.org`;
  const password = 'Tr0ubadour-and-horse';
  const before = outbox.count(email);
  const res = await fetch(
    `${base}/api/auth/register`,
    json({ role: 'patient', email, username, password, firstname: 'Load', lastname: username }),
  );
  if (res.status !== 201) throw new Error(`register ${email}: ${res.status} ${await res.text()}`);
  const code = await outbox.codeFor(email, before);
  const confirm = await fetch(`${base}/api/auth/confirm`, json({ email, code }));
  if (confirm.status !== 200) throw new Error(`confirm ${email}: ${confirm.status} ${await confirm.text()}`);
  const data = ((await confirm.json()) as { data: { token: string; user: { id: string } } }).data;
  return { email, password, token: data.token, userId: data.user.id };
}

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/database.ts';
import { openDatabase } from '../../db/db.ts';
import { ROOT, type ServerOptions, serverEnv, startServer as startSpawned } from '../../../test/spawned-server.ts';
import { fixture } from './images.test-helpers.ts';

/**
 * The real server process, killed with SIGKILL in the middle of 50 concurrent uploads: after a
 * restart and a sweep, no row points at a missing blob and no blob is left without a row. Then
 * the keys:rewrap command rotates the master key and the restarted server still serves the bytes.
 */
const ADMIN = { email: 'crash-admin@test.medshare', password: 'Crash-test-admin-password-1' };

let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'medshare-crash-'));
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const serverOptions = (extra: Record<string, string> = {}): ServerOptions => ({
  dataDir,
  admin: ADMIN,
  databaseUrl: database.target.kind === 'postgres' ? database.target.url : null,
  env: extra,
  // Four starts in one test: a cold PGlite start took 30 s+ on a 2-core machine at load 14.
  startTimeoutMs: 60_000,
});

async function startServer(extra: Record<string, string> = {}) {
  const server = await startSpawned(serverOptions(extra));
  children.add(server.child);
  const stop = async (signal: NodeJS.Signals) => {
    await server.stop(signal);
    children.delete(server.child);
  };
  return { base: server.base, child: server.child, stop };
}

async function runCli(script: string, args: string[], extra: Record<string, string> = {}) {
  const child = spawn(process.execPath, [join(ROOT, script), ...args], {
    env: serverEnv(serverOptions(extra)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, out };
}

/** The newest 6-digit code in the outbox. */
function latestCode(): string {
  const dir = join(dataDir, 'outbox');
  const newest = readdirSync(dir)
    .filter((n) => n.endsWith('.eml'))
    .map((n) => ({ n, t: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t || (b.n > a.n ? 1 : -1))[0]!;
  return /^(\d{6})\r?$/m.exec(readFileSync(join(dir, newest.n), 'utf8'))![1]!;
}

async function signIn(base: string): Promise<string> {
  const post = (path: string, body: object) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await post('/api/auth/login', ADMIN)).status).toBe(200);
  const confirm = await post('/api/auth/confirm', { email: ADMIN.email, code: latestCode() });
  expect(confirm.status).toBe(200);
  return ((await confirm.json()) as { data: { token: string } }).data.token;
}

function blobKeys(): string[] {
  const root = join(dataDir, 'blobs');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => d !== '.tmp')
    .flatMap((d) => readdirSync(join(root, d)));
}

describe('crash safety of uploads', () => {
  it(
    'leaves no row without a blob and no blob without a row after kill -9 during 50 uploads',
    { timeout: 300_000 },
    async () => {
      const file = fixture('dicom/ct_implicit_le_16bit_signed.dcm');
      // 50 different instances: the same SOP Instance UID again would be one instance, stored once
      // (docs/product.md › Upload). The UID's last part is swapped for one of the same length.
      const sopUid = '1.3.6.1.4.1.5962.1.1.1.1.1.20040826185059.5457';
      expect(file.data.includes(sopUid)).toBe(true);
      const instance = (i: number) =>
        Buffer.from(file.data.toString('latin1').replaceAll(sopUid, `${sopUid.slice(0, -4)}${1000 + i}`), 'latin1');
      const first = await startServer();
      const token = await signIn(first.base);
      const upload = (i: number) => {
        const form = new FormData();
        form.append('caption', `crash ${i}`);
        form.append('file', new Blob([new Uint8Array(instance(i))], { type: 'application/dicom' }), `ct-${i}.dcm`);
        return fetch(`${first.base}/api/upload/image`, {
          method: 'POST',
          body: form,
          headers: { authorization: `Bearer ${token}` },
        }).then(
          (r) => r.status,
          () => 'aborted' as const,
        );
      };
      let done = 0;
      const all = Array.from({ length: 50 }, (_, i) => upload(i).finally(() => done++));
      const deadline = Date.now() + 20_000;
      while (done < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      first.child.kill('SIGKILL');
      const statuses = await Promise.all(all);
      children.delete(first.child);
      const succeeded = statuses.filter((s) => s === 201).length;
      expect(succeeded).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 'aborted').length).toBeGreaterThan(0);
      expect(statuses.every((s) => s === 201 || s === 'aborted')).toBe(true);

      // Restart: the database recovers, the app serves; then stop it and sweep with no grace.
      const second = await startServer();
      const token2 = await signIn(second.base);
      const list = (await (
        await fetch(`${second.base}/api/upload/images?limit=100`, { headers: { authorization: `Bearer ${token2}` } })
      ).json()) as { data: Array<{ id: string }> };
      expect(list.data.length).toBeGreaterThanOrEqual(succeeded);
      await second.stop('SIGTERM');
      const sweep = await runCli('server/src/cli/sweep.ts', ['--grace-minutes', '0']);
      expect(sweep.code, sweep.out).toBe(0);

      const db = await openDatabase(
        database.target.kind === 'postgres' ? database.target : { kind: 'pglite', dir: join(dataDir, 'db') },
      );
      const rows = await db.db
        .selectFrom('images')
        .select(['id', 'storage_key', 'thumb_storage_key', 'original_name'])
        .where('deleted_at', 'is', null)
        .execute();
      await db.close();
      const blobs = new Set(blobKeys());
      const referenced = new Set(
        rows.flatMap((r) => [r.storage_key, ...(r.thumb_storage_key ? [r.thumb_storage_key] : [])]),
      );
      expect(rows.length).toBeGreaterThanOrEqual(succeeded);
      for (const key of referenced) expect(blobs.has(key), `row points at missing blob ${key}`).toBe(true);
      for (const key of blobs) expect(referenced.has(key), `blob without a row ${key}`).toBe(true);
      expect(readdirSync(join(dataDir, 'blobs', '.tmp'))).toEqual([]);

      // keys:rewrap rotates the generated master key in DATA_DIR; the restarted server still serves the bytes.
      const oldKey = readFileSync(join(dataDir, 'master.key'), 'utf8').trim();
      const newKey = randomBytes(32).toString('base64');
      const rewrap = await runCli('server/src/cli/rewrap-keys.ts', [], { NEW_MASTER_KEY: newKey });
      expect(rewrap.code, rewrap.out).toBe(0);
      expect(readFileSync(join(dataDir, 'master.key'), 'utf8').trim()).toBe(newKey);
      const third = await startServer();
      const token3 = await signIn(third.base);
      const content = await fetch(`${third.base}/api/images/${rows[0]!.id}/content`, {
        headers: { authorization: `Bearer ${token3}` },
      });
      expect(content.status).toBe(200);
      const uploaded = instance(Number(/^ct-(\d+)\.dcm$/.exec(rows[0]!.original_name)![1]));
      expect(Buffer.from(await content.arrayBuffer()).equals(uploaded)).toBe(true);
      // The stored Patient ID keys still match (dicom-engine.ts › loadDicomKeys): QIDO finds the study by
      // the fixture's Patient ID, as it did under the old key. Before the keys were kept, a rotation
      // changed them and this found nothing.
      const byPatient = await fetch(`${third.base}/api/dicomweb/studies?PatientID=1CT1`, {
        headers: { authorization: `Bearer ${token3}`, accept: 'application/dicom+json' },
      });
      expect(byPatient.status).toBe(200);
      expect(
        ((await byPatient.json()) as Array<Record<string, { Value: string[] }>>).map((s) => s['0020000D']!.Value[0]),
      ).toEqual(['1.3.6.1.4.1.5962.1.2.1.20040826185059.5457']);
      await third.stop('SIGTERM');

      // The old master key no longer opens anything: the server refuses to start under it
      // (message field keys are checked at start; image keys per read, see maintenance.test.ts).
      await expect(startServer({ MASTER_KEY: oldKey })).rejects.toThrow(/master key/i);
    },
  );
});

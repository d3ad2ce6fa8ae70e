import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditVerify } from '../src/cli/audit-verify.ts';
import { runRestore } from '../src/cli/restore.ts';
import type { Config } from '../src/config.ts';
import {
  type BackupManifest,
  type BackupResult,
  createBackup,
  manifestMac,
  openTable,
  restoreBackup,
  tableKey,
} from '../src/modules/backup/backup.ts';
import { createFsStorage } from '../src/storage/fs-storage.ts';
import { openDatabase } from '../src/db/db.ts';
import { createS3Storage } from '../src/storage/s3-storage.ts';
import { bytesOf, fixture, uploadFile } from '../src/modules/images/images.test-helpers.ts';
import { createStorage } from '../src/storage/index.ts';
import { testDbKind } from './database.ts';
import { ADMIN, type SignedIn, type TestApp, createTestApp, login, loginAdmin, newUser } from './harness.ts';

const FILES = [
  'other/photo_chelsea_cat.png',
  'other/photo_hopper_portrait.jpg',
  'other/pdflatex_4_pages.pdf',
  'dicom/ct_explicit_le_16bit_signed_small.dcm',
  'dicom/us_rgb_explicit_le_8bit.dcm',
];
/** A fresh PGlite data directory costs an initdb: seconds, more on a loaded machine. */
const SLOW = 120_000;
const MESSAGE = 'Your scan looks fine — see you on Monday.';
const PHONE = '+41 79 555 01 23';
const TAXID = 'CH-756.1234.5678.97';

let source: TestApp;
let doc: SignedIn;
let patient: SignedIn;
let backup: BackupResult;
/** Image id → its bytes (and thumbnail bytes) as the source app serves them. */
const originals = new Map<string, { content: Buffer; thumbnail: Buffer | null }>();
const temps: string[] = [];
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

beforeAll(async () => {
  source = await createTestApp();
  doc = await newUser(source, 'healthProvider');
  patient = await newUser(source, 'patient', { phone: PHONE, taxid: TAXID });
  for (const path of FILES) {
    const f = fixture(path);
    const res = await uploadFile(source, doc.token, f, { caption: f.name, patientId: patient.user.id });
    expect(res.statusCode, res.body).toBe(201);
  }
  const sent = await source.request({
    method: 'POST',
    url: '/api/message/send',
    token: patient.token,
    payload: { recipientId: doc.user.id, content: MESSAGE },
  });
  expect(sent.statusCode, sent.body).toBe(201);
  await source.app.ctx.services.images.idle();
  const admin = await loginAdmin(source);
  for (const image of await listAll(source, admin.token)) {
    const content = await source.request({ method: 'GET', url: `/api/images/${image.id}/content`, token: admin.token });
    const thumb = await source.request({ method: 'GET', url: `/api/images/${image.id}/thumbnail`, token: admin.token });
    originals.set(image.id, { content: bytesOf(content), thumbnail: thumb.statusCode === 200 ? bytesOf(thumb) : null });
  }
  const storage = createStorage(source.config);
  const database = source.app.ctx.database;
  backup = await createBackup(
    { db: database.db, kind: database.kind, storage, masterKey: source.config.masterKey },
    join(temp('medshare-backup-'), 'b'),
  );
  console.warn(
    `backup: ${backup.manifest.tables.reduce((n, t) => n + t.rows, 0)} rows, ${backup.manifest.blobs.length} blobs, ${(backup.bytes / 1024).toFixed(0)} KiB in ${backup.ms.toFixed(0)} ms`,
  );
});

afterAll(async () => {
  await source?.close();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

async function listAll(t: TestApp, token: string): Promise<Array<{ id: string; caption: string }>> {
  const res = await t.request({ method: 'GET', url: '/api/upload/images?limit=100', token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** Every file of a backup directory: path and bytes. */
function filesOf(dir: string): Array<{ path: string; bytes: Buffer }> {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => ({ path: join(f.parentPath, f.name), bytes: readFileSync(join(f.parentPath, f.name)) }));
}

/** The decrypted JSON lines of every table of a backup, by table name. */
async function tableTexts(dir: string, manifest: BackupManifest): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of manifest.tables) out[t.name] = await text(openTable(dir, t, tableKey(t, source.config.masterKey)));
  return out;
}

const envFor = (dataDir: string, extra: Record<string, string> = {}) => ({
  DATA_DIR: dataDir,
  MASTER_KEY: source.config.masterKey.toString('base64'),
  ...extra,
});

/** Starts the real app on restored data with the source's master key and checks what users see. */
async function checkRestored(dataDir: string, database: Config['database']) {
  const t = await createTestApp((c) => {
    c.dataDir = dataDir;
    c.database = database;
    c.masterKey = source.config.masterKey;
  });
  try {
    const admin = await loginAdmin(t);
    const images = await listAll(t, admin.token);
    expect(images.map((i) => i.id).sort()).toEqual([...originals.keys()].sort());
    for (const image of images) {
      const want = originals.get(image.id)!;
      const content = await t.request({ method: 'GET', url: `/api/images/${image.id}/content`, token: admin.token });
      expect(content.statusCode, image.caption).toBe(200);
      expect(bytesOf(content).equals(want.content), image.caption).toBe(true);
      expect(bytesOf(content).equals(fixture(FILES.find((f) => f.endsWith(image.caption))!).data)).toBe(true);
      if (want.thumbnail) {
        const thumb = await t.request({ method: 'GET', url: `/api/images/${image.id}/thumbnail`, token: admin.token });
        expect(bytesOf(thumb).equals(want.thumbnail), `${image.caption} thumbnail`).toBe(true);
      }
    }
    // Users, passwords, encrypted messages and shares come back as they were.
    const d = await login(t, doc.user.email, doc.password);
    const chat = await t.request({ method: 'GET', url: `/api/message/chat/${patient.user.id}`, token: d.token });
    expect(chat.statusCode, chat.body).toBe(200);
    expect(JSON.stringify(chat.json().data)).toContain(MESSAGE);
    const p = await login(t, patient.user.email, patient.password);
    const shared = await t.request({ method: 'GET', url: '/api/upload/shared-images', token: p.token });
    expect(shared.json().data).toHaveLength(FILES.length);
    // The restored chain keeps growing: new rows link to the restored head.
    const audit = await t.app.ctx.services.audit.verifyChain();
    expect(audit.ok).toBe(true);
    expect(audit.checked).toBeGreaterThan(FILES.length);
    expect(ADMIN.email).toBe(admin.user.email);
  } finally {
    await t.close();
  }
}

describe('backup', () => {
  it('writes a manifest with every table, blob digests and no key material', async () => {
    const m = backup.manifest;
    expect(m.missingBlobs).toEqual([]);
    // Every upload has a blob; JPEG, PNG and DICOM images have a thumbnail too.
    expect(m.blobs.length).toBeGreaterThanOrEqual(FILES.length + 3);
    const rows = Object.fromEntries(m.tables.map((t) => [t.name, t.rows]));
    expect(rows.images).toBe(FILES.length);
    expect(rows.messages).toBe(1);
    expect(rows.audit_head).toBe(1);
    expect(rows.audit_logs).toBeGreaterThan(FILES.length);
    // Referenced tables come before the tables that reference them.
    const order = m.tables.map((t) => t.name);
    expect(order.indexOf('roles')).toBeLessThan(order.indexOf('users'));
    expect(order.indexOf('users')).toBeLessThan(order.indexOf('images'));
    expect(order.indexOf('images')).toBeLessThan(order.indexOf('shares'));
    expect(order).not.toContain('kysely_migration');
    const key = source.config.masterKey;
    for (const file of filesOf(backup.dir)) {
      expect(file.bytes.includes(key), file.path).toBe(false);
      expect(file.bytes.includes(Buffer.from(key.toString('base64'))), file.path).toBe(false);
    }
  });

  it('holds no plaintext personal data: table dumps are encrypted, the manifest is MACed', async () => {
    const m = backup.manifest;
    expect(m.format).toBe(2);
    expect(m.mac).toMatch(/^[0-9a-f]{64}$/);
    expect(manifestMac(m, source.config.masterKey)).toBe(m.mac);
    // Strings the rows hold: e-mails, user and last names, phone, tax id, captions (the uploaded file
    // names) and the message.
    const name = (u: SignedIn) => u.user.email.split('@')[0]!; // the user name, also the last name
    const secrets = [doc.user.email, patient.user.email, name(doc), name(patient), PHONE, TAXID, MESSAGE];
    for (const f of FILES)
      secrets.push(
        f
          .split('/')
          .pop()!
          .replace(/\.[a-z]+$/, ''),
      );
    for (const s of secrets) expect(s.length).toBeGreaterThan(5);
    const files = filesOf(backup.dir);
    expect(files.length).toBe(1 + m.tables.length + m.blobs.length);
    for (const file of files) {
      for (const s of secrets) expect(file.bytes.includes(Buffer.from(s)), `${s} in ${file.path}`).toBe(false);
    }
    // ...and they are there once decrypted with the master key (the check above can fail).
    const plain = await tableTexts(backup.dir, m);
    expect(plain.users).toContain(doc.user.email);
    expect(plain.users).toContain(name(patient));
    expect(plain.users).toContain(TAXID);
    expect(plain.images).toContain('photo_chelsea_cat');
    for (const t of m.tables) {
      const bytes = readFileSync(join(backup.dir, t.file));
      expect(bytes.subarray(0, 4).equals(Buffer.from('MSE\x01', 'latin1')), t.file).toBe(true);
      expect(plain[t.name]!.split('\n').filter(Boolean)).toHaveLength(t.rows);
    }
    // Each file has its own data key.
    expect(new Set(m.tables.map((t) => t.wrappedKey)).size).toBe(m.tables.length);
  });

  it('a write error (ENOSPC) rejects, is not an unhandled error, and leaves no partial backup', async () => {
    const dir = join(temp('medshare-backup-'), 'full');
    const storage = createStorage(source.config);
    const database = source.app.ctx.database;
    let opened = 0;
    await expect(
      createBackup({ db: database.db, kind: database.kind, storage, masterKey: source.config.masterKey }, dir, {
        // The kernel's full device: every write fails with ENOSPC, as on a full disk.
        openWrite: (path) => (opened++ === 2 ? createWriteStream('/dev/full') : createWriteStream(path)),
      }),
    ).rejects.toThrow(/ENOSPC/);
    expect(opened).toBe(3);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(`${dir}.partial`)).toBe(false);
  });
});

/**
 * Restore's refusals and the S3 round trip read only the backup, whose format is the same from
 * either engine: they run on the PGlite project (every suite's engine without PostgreSQL), not again
 * on PostgreSQL. The restores into each engine run from both (docs/architecture.md › Tests and CI).
 */
const sourceIndependent = it.runIf(testDbKind === 'pglite');

describe('restore', () => {
  /** The PGlite target of the first test, reused by the refusal test (each fresh PGlite costs an initdb). */
  let restored = '';

  it(
    'into an empty DATA_DIR (PGlite): byte-identical files, a verifiable audit chain',
    async () => {
      const dataDir = temp('medshare-restore-');
      restored = dataDir;
      const started = performance.now();
      const r = await runRestore(envFor(dataDir), [backup.dir]);
      expect(r, r.lines.join('\n')).toMatchObject({ code: 0 });
      console.warn(`restore (PGlite): ${(performance.now() - started).toFixed(0)} ms`);
      const verified = await auditVerify(envFor(dataDir));
      expect(verified.line).toMatch(/^OK: \d+ rows verified$/);
      await checkRestored(dataDir, { kind: 'pglite', dir: join(dataDir, 'db') });
    },
    SLOW,
  );

  sourceIndependent(
    'refuses a non-empty target unless --force, and a different master key',
    async () => {
      expect(restored).not.toBe('');
      const dataDir = restored;
      const again = await runRestore(envFor(dataDir), [backup.dir]);
      expect(again.code).toBe(2);
      expect(again.lines.join('\n')).toMatch(/not empty.*--force/);
      const forced = await runRestore(envFor(dataDir), [backup.dir, '--force']);
      expect(forced, forced.lines.join('\n')).toMatchObject({ code: 0 });
      expect((await auditVerify(envFor(dataDir))).code).toBe(0);

      const other = temp('medshare-restore-');
      const wrongKey = await runRestore(envFor(other, { MASTER_KEY: randomBytes(32).toString('base64') }), [
        backup.dir,
      ]);
      expect(wrongKey.code).toBe(2);
      expect(wrongKey.lines.join('\n')).toMatch(/master key/);
      const noKey = await runRestore({ DATA_DIR: other }, [backup.dir]);
      expect(noKey.code).toBe(2);
      expect(noKey.lines.join('\n')).toMatch(/MASTER_KEY/);
    },
    SLOW,
  );

  sourceIndependent('refuses a backup whose files do not match the manifest', async () => {
    const copy = join(temp('medshare-backup-'), 'tampered');
    const { cpSync } = await import('node:fs');
    cpSync(backup.dir, copy, { recursive: true });
    const blob = backup.manifest.blobs[0]!;
    const bytes = readFileSync(join(copy, blob.file));
    bytes[bytes.length - 1]! ^= 1;
    writeFileSync(join(copy, blob.file), bytes);
    const r = await runRestore(envFor(temp('medshare-restore-')), [copy]);
    expect(r.code).toBe(2);
    expect(r.lines.join('\n')).toContain(`${blob.file} does not match its SHA-256`);
  });

  sourceIndependent(
    'refuses a manifest edited together with its files (the MAC does not match)',
    async () => {
      const { cpSync } = await import('node:fs');
      const copy = join(temp('medshare-backup-'), 'forged');
      cpSync(backup.dir, copy, { recursive: true });
      const manifest = JSON.parse(readFileSync(join(copy, 'manifest.json'), 'utf8')) as BackupManifest;
      const users = manifest.tables.find((t) => t.name === 'users')!;
      const bytes = readFileSync(join(copy, users.file));
      bytes[bytes.length - 1]! ^= 1;
      writeFileSync(join(copy, users.file), bytes);
      const { createHash } = await import('node:crypto');
      users.sha256 = createHash('sha256').update(bytes).digest('hex');
      writeFileSync(join(copy, 'manifest.json'), JSON.stringify(manifest, null, 2));
      const r = await runRestore(envFor(temp('medshare-restore-')), [copy]);
      expect(r.code).toBe(2);
      expect(r.lines.join('\n')).toMatch(/manifest is not authentic.*refusing/);
      // Without a MAC at all: refused the same way.
      const { mac: _mac, ...unsigned } = manifest;
      writeFileSync(join(copy, 'manifest.json'), JSON.stringify(unsigned));
      const r2 = await runRestore(envFor(temp('medshare-restore-')), [copy]);
      expect(r2.lines.join('\n')).toMatch(/manifest is not authentic/);
      // Past the checks (a caller handing in the forged manifest), the altered file fails to decrypt.
      const database = await openDatabase({ kind: 'pglite', dir: null });
      try {
        const storage = createFsStorage(join(temp('medshare-restore-'), 'blobs'));
        await expect(
          restoreBackup(copy, { db: database.db, storage, masterKey: source.config.masterKey }, manifest),
        ).rejects.toThrow(/does not decrypt \(chunk \d+ failed authentication\); nothing was restored/);
      } finally {
        await database.close();
      }
    },
    SLOW,
  );

  sourceIndependent(
    'into an S3 store and back: the same blobs, byte for byte',
    async () => {
      const s3 = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: temp('medshare-s3-'),
        configureBuckets: [{ name: 'medshare-backup', configs: [] }],
      });
      const { port } = await s3.run();
      const storage = createS3Storage({
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        bucket: 'medshare-backup',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
        prefix: 'blobs/',
      });
      const database = await openDatabase({ kind: 'pglite', dir: null });
      try {
        const target = { db: database.db, storage, masterKey: source.config.masterKey };
        const r = await restoreBackup(backup.dir, target);
        expect(r.blobs).toBe(backup.manifest.blobs.length);
        await expect(restoreBackup(backup.dir, target)).rejects.toThrow(/not empty/);
        const again = await createBackup({ ...target, kind: 'pglite' }, join(temp('medshare-backup-'), 'again'));
        expect(again.manifest.storageDriver).toBe('s3');
        expect(again.manifest.blobs.map(({ key, sha256 }) => ({ key, sha256 }))).toEqual(
          backup.manifest.blobs.map(({ key, sha256 }) => ({ key, sha256 })),
        );
        // Fresh data keys make new ciphertext; the dumped rows are the same bytes.
        expect(again.manifest.tables.map(({ name, rows }) => ({ name, rows }))).toEqual(
          backup.manifest.tables.map(({ name, rows }) => ({ name, rows })),
        );
        expect(await tableTexts(again.dir, again.manifest)).toEqual(await tableTexts(backup.dir, backup.manifest));
      } finally {
        storage.close();
        await database.close();
        await s3.close();
      }
    },
    SLOW,
  );

  it.runIf(process.env.TEST_DATABASE_URL)(
    'into a fresh PostgreSQL database',
    async () => {
      const base = process.env.TEST_DATABASE_URL!;
      const name = `medshare_restore_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(base);
      url.pathname = `/${name}`;
      try {
        const dataDir = temp('medshare-restore-');
        const started = performance.now();
        const r = await runRestore(envFor(dataDir, { DATABASE_URL: url.toString() }), [backup.dir]);
        expect(r, r.lines.join('\n')).toMatchObject({ code: 0 });
        console.warn(`restore (PostgreSQL): ${(performance.now() - started).toFixed(0)} ms`);
        expect((await auditVerify(envFor(dataDir, { DATABASE_URL: url.toString() }))).code).toBe(0);
        // Same database, empty blob store: the tables alone make the target non-empty.
        const other = envFor(temp('medshare-restore-'), { DATABASE_URL: url.toString() });
        const refused = await runRestore(other, [backup.dir]);
        expect(refused.code).toBe(2);
        expect(refused.lines.join('\n')).toMatch(/already has \d+ tables/);
        // --force drops every table (and the audit trigger's function) and restores again.
        const forced = await runRestore(other, [backup.dir, '--force']);
        expect(forced, forced.lines.join('\n')).toMatchObject({ code: 0 });
        expect((await auditVerify(other)).code).toBe(0);
        await checkRestored(dataDir, { kind: 'postgres', url: url.toString() });
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    },
    SLOW,
  );
});

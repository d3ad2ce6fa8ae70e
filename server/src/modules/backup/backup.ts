import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import { masterKeyId } from '../../crypto/envelope.ts';
import type { Db } from '../../db/db.ts';
import { migrateTo, migrateToLatest, migrationNames } from '../../db/migrate.ts';
import { type BlobStorage, BlobNotFoundError } from '../../storage/storage.ts';
import {
  type TableInfo,
  dumpRows,
  existingTables,
  listTables,
  loadRows,
  loadSelfRefs,
  resetIdentities,
} from './db-dump.ts';

export const BACKUP_FORMAT = 1;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  app: 'medshare';
  createdAt: string;
  /** The last migration applied to the dumped database: rows are loaded at exactly this schema. */
  migration: string;
  sourceDatabase: 'pglite' | 'postgres';
  storageDriver: 'fs' | 's3';
  /** Fingerprint (first 8 hex of SHA-256) of the master key that wraps the data keys; never the key. */
  masterKeyId: string;
  tables: Array<{ name: string; file: string; rows: number; bytes: number; sha256: string }>;
  /** Encrypted blobs as stored (ciphertext): SHA-256 over the stored bytes. */
  blobs: Array<{ key: string; file: string; bytes: number; sha256: string }>;
  /** Live images whose blob was missing at backup time (deleted concurrently or lost before). */
  missingBlobs: string[];
}

export interface BackupSource {
  db: Db;
  kind: 'pglite' | 'postgres';
  storage: BlobStorage;
  masterKey: Buffer;
}

export interface BackupResult {
  dir: string;
  manifest: BackupManifest;
  ms: number;
  bytes: number;
}

export class BackupError extends Error {
  override name = 'BackupError';
}

const blobFile = (key: string) => join('blobs', key.slice(0, 2), key);

/** A pass-through that hashes and counts what flows through it. */
function digester() {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ sha256: hash.digest('hex'), bytes }) };
}

async function sha256Of(stream: Readable): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

async function isEmptyDir(path: string): Promise<boolean> {
  if (!existsSync(path)) return true;
  return (await readdir(path)).length === 0;
}

/**
 * Writes a backup directory: manifest.json, db/<table>.jsonl (rows in foreign-key order) and
 * blobs/<key> (ciphertext as stored). Rows come from one REPEATABLE READ snapshot; blobs are
 * immutable once written, so copying the ones that snapshot references afterwards is consistent.
 * The directory appears under its name only when complete (written as `<dir>.partial`, renamed).
 */
export async function createBackup(source: BackupSource, dir: string): Promise<BackupResult> {
  const started = performance.now();
  if (!(await isEmptyDir(dir))) throw new BackupError(`${dir} exists and is not empty; choose a new directory`);
  const work = `${dir}.partial`;
  await rm(work, { recursive: true, force: true });
  await mkdir(join(work, 'db'), { recursive: true, mode: 0o700 });

  const tables: BackupManifest['tables'] = [];
  const keys = new Map<string, boolean>();
  let migration = '';
  await source.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await sql`SET TRANSACTION READ ONLY`.execute(trx);
      // Rows as text do not depend on the server's settings: the same data always dumps the same.
      await sql`SET LOCAL TIME ZONE 'UTC'`.execute(trx);
      await sql`SET LOCAL bytea_output = 'hex'`.execute(trx);
      const applied = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1`
        .execute(trx)
        .catch(() => ({ rows: [] as Array<{ name: string }> }));
      migration = applied.rows[0]?.name ?? '';
      if (!migration) throw new BackupError('the database has never been migrated; nothing to back up');
      for (const table of await listTables(trx)) {
        const file = join('db', `${table.name}.jsonl`);
        const out = createWriteStream(join(work, file), { mode: 0o600 });
        const d = digester();
        d.stream.pipe(out);
        let rows = 0;
        for await (const page of dumpRows(trx, table)) {
          rows += page.length;
          if (!d.stream.write(page.join('\n') + '\n')) await new Promise((r) => d.stream.once('drain', r));
        }
        d.stream.end();
        await new Promise<void>((resolve, reject) => out.on('finish', resolve).on('error', reject));
        tables.push({ name: table.name, file, rows, ...d.result() });
      }
      const referenced = await sql<{ key: string; live: boolean }>`
        SELECT storage_key AS key, deleted_at IS NULL AS live FROM images
        UNION ALL
        SELECT thumb_storage_key, deleted_at IS NULL FROM images WHERE thumb_storage_key IS NOT NULL`.execute(trx);
      for (const r of referenced.rows) keys.set(r.key, r.live);
    });

  const blobs: BackupManifest['blobs'] = [];
  const missingBlobs: string[] = [];
  for (const [key, live] of [...keys].sort(([a], [b]) => (a < b ? -1 : 1))) {
    let body: Readable;
    try {
      body = await source.storage.get(key);
    } catch (err) {
      // A deleted image's blobs are removed after its row is marked; only live ones are missed.
      if (err instanceof BlobNotFoundError) {
        if (live) missingBlobs.push(key);
        continue;
      }
      throw err;
    }
    const file = blobFile(key);
    await mkdir(dirname(join(work, file)), { recursive: true, mode: 0o700 });
    const d = digester();
    await pipeline(body, d.stream, createWriteStream(join(work, file), { mode: 0o600 }));
    blobs.push({ key, file, ...d.result() });
  }

  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    app: 'medshare',
    createdAt: new Date().toISOString(),
    migration,
    sourceDatabase: source.kind,
    storageDriver: source.storage.kind,
    masterKeyId: masterKeyId(source.masterKey),
    tables,
    blobs,
    missingBlobs,
  };
  await writeFile(join(work, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
  await rm(dir, { recursive: true, force: true });
  await rename(work, dir);
  const bytes = tables.reduce((n, t) => n + t.bytes, 0) + blobs.reduce((n, b) => n + b.bytes, 0);
  return { dir, manifest, ms: performance.now() - started, bytes };
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  const path = join(dir, 'manifest.json');
  if (!existsSync(path)) throw new BackupError(`${dir} is not a backup (no manifest.json)`);
  const manifest = JSON.parse(await readFile(path, 'utf8')) as BackupManifest;
  if (manifest.app !== 'medshare' || manifest.format !== BACKUP_FORMAT)
    throw new BackupError(`${dir} is not a MedShare backup of format ${BACKUP_FORMAT}`);
  return manifest;
}

/** Every file of the backup against the manifest, before anything is written to the target. */
export async function verifyBackup(dir: string, manifest: BackupManifest): Promise<void> {
  for (const entry of [...manifest.tables, ...manifest.blobs]) {
    const path = join(dir, entry.file);
    if (!existsSync(path)) throw new BackupError(`backup file ${entry.file} is missing`);
    const got = await sha256Of(createReadStream(path));
    if (got.sha256 !== entry.sha256 || got.bytes !== entry.bytes)
      throw new BackupError(`backup file ${entry.file} does not match its SHA-256 in the manifest`);
  }
}

/**
 * Everything that can be known before touching the target: a manifest of this format, a schema
 * version this code knows, the same master key, and every file matching its SHA-256.
 */
export async function checkBackup(dir: string, masterKey: Buffer): Promise<BackupManifest> {
  const manifest = await readManifest(dir);
  if (!migrationNames.includes(manifest.migration))
    throw new BackupError(
      `the backup is at schema ${manifest.migration}, which this version does not know; upgrade first`,
    );
  const keyId = masterKeyId(masterKey);
  if (keyId !== manifest.masterKeyId)
    throw new BackupError(
      `the configured master key (${keyId}) is not the one the backup was made with (${manifest.masterKeyId}); set MASTER_KEY to that key`,
    );
  await verifyBackup(dir, manifest);
  return manifest;
}

export interface RestoreTarget {
  db: Db;
  storage: BlobStorage;
  masterKey: Buffer;
}

export interface RestoreResult {
  rows: number;
  blobs: number;
  ms: number;
}

/** Blob keys present in the target store (at most `limit`). */
async function someBlobs(storage: BlobStorage, limit: number): Promise<string[]> {
  const found: string[] = [];
  for await (const b of storage.list()) {
    found.push(b.key);
    if (found.length >= limit) break;
  }
  return found;
}

/** Why the target is not empty, or null. The caller decides whether --force wipes it first. */
export async function targetProblems(target: Pick<RestoreTarget, 'db' | 'storage'>): Promise<string[]> {
  const problems: string[] = [];
  const tables = await existingTables(target.db);
  if (tables.length)
    problems.push(`the database already has ${tables.length} tables (${tables.slice(0, 3).join(', ')}…)`);
  if ((await someBlobs(target.storage, 1)).length) problems.push('the blob store already holds objects');
  return problems;
}

export async function wipeBlobs(storage: BlobStorage): Promise<number> {
  let n = 0;
  for (;;) {
    const keys = await someBlobs(storage, 500);
    if (!keys.length) return n;
    for (const key of keys) await storage.delete(key);
    n += keys.length;
  }
}

/**
 * Loads a verified backup into an empty database and blob store: migrations up to the backup's
 * version, every row in one transaction (the audit chain and its head as they were), identity
 * sequences moved past the restored ids, the remaining migrations, then the blobs, each read back
 * from the store and checked against the manifest's SHA-256.
 */
export async function restoreBackup(
  dir: string,
  target: RestoreTarget,
  checked: BackupManifest | null = null,
): Promise<RestoreResult> {
  const started = performance.now();
  const manifest = checked ?? (await checkBackup(dir, target.masterKey));
  const problems = await targetProblems(target);
  if (problems.length) throw new BackupError(`the target is not empty: ${problems.join('; ')}`);

  await migrateTo(target.db, manifest.migration);
  let rows = 0;
  await target.db.transaction().execute(async (trx) => {
    const tables = new Map((await listTables(trx)).map((t) => [t.name, t]));
    for (const entry of manifest.tables) {
      const table = tables.get(entry.name);
      if (!table) throw new BackupError(`the backup has table ${entry.name}, which the schema does not`);
      // Rows a migration inserted (the audit head's genesis row) give way to the dumped ones.
      if (entry.rows > 0) await sql`DELETE FROM ${sql.raw(`"${table.name}"`)}`.execute(trx);
      rows += await loadFile(trx, table, join(dir, entry.file));
    }
    await resetIdentities(trx);
  });
  await migrateToLatest(target.db);

  for (const blob of manifest.blobs) {
    await target.storage.put(blob.key, createReadStream(join(dir, blob.file)));
    const stored = await sha256Of(await target.storage.get(blob.key));
    if (stored.sha256 !== blob.sha256 || stored.bytes !== blob.bytes)
      throw new BackupError(`blob ${blob.key} does not read back with the SHA-256 of the manifest`);
  }
  return { rows, blobs: manifest.blobs.length, ms: performance.now() - started };
}

/** Loads one table file in batches; self references in a second pass once every row exists. */
async function loadFile(db: Db, table: TableInfo, path: string): Promise<number> {
  const n = await eachBatch(path, (rows) => loadRows(db, table, rows));
  if (table.selfRefs.length) await eachBatch(path, (rows) => loadSelfRefs(db, table, rows));
  return n;
}

/** Streams a JSON-lines file in batches of 500 rows (a table never has to fit in memory). */
async function eachBatch(path: string, load: (rows: string[]) => Promise<void>): Promise<number> {
  let batch: string[] = [];
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    if (!line) continue;
    batch.push(line);
    n++;
    if (batch.length >= 500) {
      await load(batch);
      batch = [];
    }
  }
  if (batch.length) await load(batch);
  return n;
}

/** The size of a directory tree in bytes (for the printed summary). */
export async function dirBytes(path: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import {
  IntegrityError,
  type WrappedKey,
  createKeyring,
  decryptChunks,
  encryptChunks,
  masterKeyId,
} from '../../crypto/envelope.ts';
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

/**
 * Format 2: table dumps are envelope-encrypted (format 1 wrote them as plaintext JSON lines) and
 * the manifest carries an HMAC under a key derived from the master key.
 */
export const BACKUP_FORMAT = 2;
const MAC_INFO = 'medshare-backup-manifest';

export interface TableEntry {
  name: string;
  /** db/<table>.jsonl.enc: the JSON lines in the blobs' envelope format (AES-256-GCM chunks). */
  file: string;
  rows: number;
  /** Size and SHA-256 of the encrypted file as written. */
  bytes: number;
  sha256: string;
  /** The file's own data key, wrapped by the master key (as image rows hold a blob's key). */
  wrappedKey: string;
  keyId: string;
}

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
  tables: TableEntry[];
  /** Encrypted blobs as stored (ciphertext): SHA-256 over the stored bytes. */
  blobs: Array<{ key: string; file: string; bytes: number; sha256: string }>;
  /** Live images whose blob was missing at backup time (deleted concurrently or lost before). */
  missingBlobs: string[];
  /** HMAC-SHA256 over the canonical JSON of every other field; see `manifestMac`. */
  mac: string;
}

export interface BackupSource {
  db: Db;
  kind: 'pglite' | 'postgres';
  storage: BlobStorage;
  masterKey: Buffer;
}

export interface BackupOptions {
  /** Opens a file of the backup for writing (tests pass a device that fails writes). */
  openWrite?: (path: string) => Writable;
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

/** JSON with object keys sorted at every level and no whitespace: the bytes the MAC covers. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** HMAC-SHA256 of the manifest without `mac`, keyed by HKDF(master key, info 'medshare-backup-manifest'). */
export function manifestMac(manifest: Omit<BackupManifest, 'mac'> | BackupManifest, masterKey: Buffer): string {
  const key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), MAC_INFO, 32));
  const { mac: _mac, ...rest } = manifest as BackupManifest;
  return createHmac('sha256', key).update(canonicalJson(rest)).digest('hex');
}

async function isEmptyDir(path: string): Promise<boolean> {
  if (!existsSync(path)) return true;
  return (await readdir(path)).length === 0;
}

/**
 * Writes a backup directory: manifest.json (MACed), db/<table>.jsonl.enc (rows in foreign-key
 * order, envelope-encrypted) and blobs/<key> (ciphertext as stored). Rows come from one REPEATABLE
 * READ snapshot; blobs are immutable once written, so copying the ones that snapshot references
 * afterwards is consistent. The directory appears under its name only when complete (written as
 * `<dir>.partial`, renamed); a failure removes `<dir>.partial` and rejects.
 */
export async function createBackup(
  source: BackupSource,
  dir: string,
  options: BackupOptions = {},
): Promise<BackupResult> {
  const started = performance.now();
  if (!(await isEmptyDir(dir))) throw new BackupError(`${dir} exists and is not empty; choose a new directory`);
  const work = `${dir}.partial`;
  const open = options.openWrite ?? ((path: string) => createWriteStream(path, { mode: 0o600 }));
  await rm(work, { recursive: true, force: true });
  await mkdir(join(work, 'db'), { recursive: true, mode: 0o700 });
  try {
    const result = await writeBackup(source, work, open);
    await rm(dir, { recursive: true, force: true });
    await rename(work, dir);
    return { dir, ...result, ms: performance.now() - started };
  } catch (err) {
    // A failed backup (ENOSPC, EIO, a store error) leaves nothing that could pass for one.
    await rm(work, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
}

async function writeBackup(
  source: BackupSource,
  work: string,
  open: (path: string) => Writable,
): Promise<{ manifest: BackupManifest; bytes: number }> {
  const keyring = createKeyring(source.masterKey);
  const tables: TableEntry[] = [];
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
        const file = join('db', `${table.name}.jsonl.enc`);
        // A fresh data key per file, wrapped by the master key: the envelope the blobs use.
        const { dataKey, wrapped } = keyring.newDataKey();
        let rows = 0;
        async function* lines(): AsyncGenerator<Buffer> {
          for await (const page of dumpRows(trx, table)) {
            rows += page.length;
            yield Buffer.from(page.join('\n') + '\n');
          }
        }
        const d = digester();
        // pipeline: a write error (ENOSPC, EIO) rejects here instead of crashing the process.
        await pipeline(encryptChunks(lines(), dataKey), d.stream, open(join(work, file)));
        tables.push({ name: table.name, file, rows, ...d.result(), ...wrapped });
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
    await pipeline(body, d.stream, open(join(work, file)));
    blobs.push({ key, file, ...d.result() });
  }

  const unsigned: Omit<BackupManifest, 'mac'> = {
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
  const manifest: BackupManifest = { ...unsigned, mac: manifestMac(unsigned, source.masterKey) };
  await pipeline(Readable.from([JSON.stringify(manifest, null, 2) + '\n']), open(join(work, 'manifest.json')));
  const bytes = tables.reduce((n, t) => n + t.bytes, 0) + blobs.reduce((n, b) => n + b.bytes, 0);
  return { manifest, bytes };
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  const path = join(dir, 'manifest.json');
  if (!existsSync(path)) throw new BackupError(`${dir} is not a backup (no manifest.json)`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(path, 'utf8')) as BackupManifest;
  } catch {
    throw new BackupError(`${dir}/manifest.json is not valid JSON`);
  }
  if (!manifest || typeof manifest !== 'object' || manifest.app !== 'medshare')
    throw new BackupError(`${dir} is not a MedShare backup`);
  if ((manifest.format as number) === 1)
    throw new BackupError(
      `${dir} is a backup of format 1 (plaintext table dumps, no manifest MAC); this version restores format ${BACKUP_FORMAT} only: restore it with the version that wrote it, then take a new backup`,
    );
  if (manifest.format !== BACKUP_FORMAT)
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

/** Refuses a manifest whose MAC is missing or not the one the master key gives (constant-time compare). */
export function checkManifestMac(manifest: BackupManifest, masterKey: Buffer): void {
  const want = Buffer.from(manifestMac(manifest, masterKey), 'hex');
  const got = typeof manifest.mac === 'string' ? Buffer.from(manifest.mac, 'hex') : Buffer.alloc(0);
  if (got.length !== want.length || !timingSafeEqual(got, want))
    throw new BackupError(
      'the manifest is not authentic (its MAC does not match under the configured master key): the backup was altered after it was written; refusing to restore it',
    );
}

/**
 * Everything that can be known before touching the target: a manifest of this format, made with
 * the same master key and unaltered (MAC), a schema version this code knows, and every file
 * matching its SHA-256.
 */
export async function checkBackup(dir: string, masterKey: Buffer): Promise<BackupManifest> {
  const manifest = await readManifest(dir);
  // The key check comes first only for its clearer message; nothing else is trusted before the MAC.
  const keyId = masterKeyId(masterKey);
  if (keyId !== manifest.masterKeyId)
    throw new BackupError(
      `the configured master key (${keyId}) is not the one the backup was made with (${manifest.masterKeyId}); set MASTER_KEY to that key`,
    );
  checkManifestMac(manifest, masterKey);
  if (!migrationNames.includes(manifest.migration))
    throw new BackupError(
      `the backup is at schema ${manifest.migration}, which this version does not know; upgrade first`,
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
      try {
        rows += await loadFile(trx, table, () => openTable(dir, entry, tableKey(entry, target.masterKey)));
      } catch (err) {
        // Nothing is loaded: the transaction rolls back.
        if (err instanceof IntegrityError)
          throw new BackupError(`backup file ${entry.file} does not decrypt (${err.message}); nothing was restored`);
        throw err;
      }
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

/**
 * The plaintext JSON lines of one table file, decrypted as a stream. Every chunk is authenticated
 * before it is yielded, and a truncated file fails at its end (inside the restore's transaction).
 */
export function openTable(dir: string, entry: TableEntry, dataKey: Buffer): Readable {
  return Readable.from(decryptChunks(createReadStream(join(dir, entry.file)), dataKey));
}

/** The data key of a table file (the manifest's wrapped key opened with the master key). */
export function tableKey(entry: Pick<TableEntry, 'wrappedKey' | 'keyId'>, masterKey: Buffer): Buffer {
  const wrapped: WrappedKey = { wrappedKey: entry.wrappedKey, keyId: entry.keyId };
  return createKeyring(masterKey).unwrap(wrapped);
}

/** Loads one table file in batches; self references in a second pass once every row exists. */
async function loadFile(db: Db, table: TableInfo, open: () => Readable): Promise<number> {
  const n = await eachBatch(open(), (rows) => loadRows(db, table, rows));
  if (table.selfRefs.length) await eachBatch(open(), (rows) => loadSelfRefs(db, table, rows));
  return n;
}

/** Streams JSON lines in batches of 500 rows (a table never has to fit in memory). */
async function eachBatch(input: Readable, load: (rows: string[]) => Promise<void>): Promise<number> {
  let batch: string[] = [];
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
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

import { type QueryResult, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/db.ts';

/**
 * A logical dump that works the same on PGlite and PostgreSQL: every row as `to_jsonb(row)::text`,
 * one JSON line per row, and loaded back with `jsonb_populate_recordset`. The text never passes
 * through JSON.parse, so bigints, microsecond timestamps and bytea survive exactly.
 */

/** Kysely's bookkeeping is recreated by the migrations; the live-event channel name is per database. */
const SKIPPED = new Set(['kysely_migration', 'kysely_migration_lock', 'realtime_channel']);

export interface TableInfo {
  name: string;
  columns: string[];
  /** Primary-key columns with their SQL types, for keyset pagination. */
  key: Array<{ name: string; type: string }>;
  /** Single-column foreign keys to the table itself (images.source_image_id): loaded in a second pass. */
  selfRefs: Array<{ column: string; references: string }>;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Tables of the current schema in foreign-key order (referenced tables first). */
export async function listTables(db: Db): Promise<TableInfo[]> {
  const tables = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
    ORDER BY c.relname`.execute(db);
  const columns = await sql<{ table: string; name: string }>`
    SELECT c.relname AS table, a.attname AS name FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
      AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
    ORDER BY c.relname, a.attnum`.execute(db);
  const keys = await sql<{ table: string; name: string; type: string }>`
    SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indrelid
    JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
    WHERE i.indisprimary AND c.relnamespace = current_schema()::regnamespace
    ORDER BY c.relname, k.ord`.execute(db);
  const fks = await sql<{ table: string; target: string; column: string; ref: string; n: number }>`
    SELECT c.relname AS table, t.relname AS target,
      (SELECT attname FROM pg_attribute WHERE attrelid = f.conrelid AND attnum = f.conkey[1]) AS column,
      (SELECT attname FROM pg_attribute WHERE attrelid = f.confrelid AND attnum = f.confkey[1]) AS ref,
      cardinality(f.conkey) AS n
    FROM pg_constraint f
    JOIN pg_class c ON c.oid = f.conrelid
    JOIN pg_class t ON t.oid = f.confrelid
    WHERE f.contype = 'f' AND c.relnamespace = current_schema()::regnamespace`.execute(db);

  const infos = new Map<string, TableInfo>();
  for (const { name } of tables.rows) {
    if (SKIPPED.has(name)) continue;
    infos.set(name, { name, columns: [], key: [], selfRefs: [] });
  }
  for (const c of columns.rows) infos.get(c.table)?.columns.push(c.name);
  for (const k of keys.rows) infos.get(k.table)?.key.push({ name: k.name, type: k.type });
  const deps = new Map<string, Set<string>>([...infos.keys()].map((n) => [n, new Set<string>()]));
  for (const fk of fks.rows) {
    if (!infos.has(fk.table)) continue;
    if (fk.table === fk.target) {
      if (Number(fk.n) !== 1) throw new Error(`${fk.table}: multi-column self references are not supported`);
      infos.get(fk.table)!.selfRefs.push({ column: fk.column, references: fk.ref });
    } else if (infos.has(fk.target)) {
      deps.get(fk.table)!.add(fk.target);
    }
  }
  for (const info of infos.values()) {
    if (!info.key.length) throw new Error(`${info.name} has no primary key; cannot dump it in a stable order`);
  }

  // Kahn's algorithm, alphabetical among equals so that dumps of the same data are identical.
  const ordered: TableInfo[] = [];
  const done = new Set<string>();
  while (ordered.length < infos.size) {
    const ready = [...infos.keys()].filter((n) => !done.has(n) && [...deps.get(n)!].every((d) => done.has(d)));
    if (!ready.length) throw new Error('foreign keys form a cycle between tables');
    for (const n of ready.sort()) {
      done.add(n);
      ordered.push(infos.get(n)!);
    }
  }
  return ordered;
}

/** Every row of `table` as JSON text, in primary-key order, a page at a time (keyset, not OFFSET). */
export async function* dumpRows(db: Db, table: TableInfo, pageSize = 1000): AsyncGenerator<string[]> {
  const keyList = table.key.map((k) => ident(k.name)).join(', ');
  const keyText = table.key.map((k, i) => `${ident(k.name)}::text AS k${i}`).join(', ');
  let after: string[] | null = null;
  for (;;) {
    const where: RawBuilder<unknown> = after
      ? sql` WHERE (${sql.raw(keyList)}) > (${sql.join(after.map((v, i) => sql`${v}::${sql.raw(table.key[i]!.type)}`))})`
      : sql``;
    const page: QueryResult<Record<string, string>> = await sql<Record<string, string>>`
      SELECT to_jsonb(t)::text AS row, ${sql.raw(keyText)} FROM ${sql.raw(ident(table.name))} t${where}
      ORDER BY ${sql.raw(keyList)} LIMIT ${pageSize}`.execute(db);
    if (!page.rows.length) return;
    yield page.rows.map((r) => r.row!);
    const last: Record<string, string> = page.rows[page.rows.length - 1]!;
    after = table.key.map((_, i) => last[`k${i}`]!);
    if (page.rows.length < pageSize) return;
  }
}

/**
 * Inserts JSON rows into `table` (same schema version as the dump). Identity columns keep their
 * dumped values (OVERRIDING SYSTEM VALUE: audit ids are part of the hash chain's order); columns
 * that reference the table itself are filled by `loadSelfRefs` once every row exists.
 */
export async function loadRows(db: Db, table: TableInfo, rows: string[]): Promise<void> {
  if (!rows.length) return;
  const self = new Set(table.selfRefs.map((r) => r.column));
  const cols = table.columns
    .filter((c) => !self.has(c))
    .map(ident)
    .join(', ');
  await sql`INSERT INTO ${sql.raw(ident(table.name))} (${sql.raw(cols)}) OVERRIDING SYSTEM VALUE
    SELECT ${sql.raw(cols)} FROM jsonb_populate_recordset(NULL::${sql.raw(ident(table.name))}, ${`[${rows.join(',')}]`}::jsonb)`.execute(
    db,
  );
}

export async function loadSelfRefs(db: Db, table: TableInfo, rows: string[]): Promise<void> {
  if (!rows.length || !table.selfRefs.length) return;
  const t = ident(table.name);
  const match = table.key.map((k) => `t.${ident(k.name)} = d.${ident(k.name)}`).join(' AND ');
  for (const ref of table.selfRefs) {
    const c = ident(ref.column);
    await sql`UPDATE ${sql.raw(t)} t SET ${sql.raw(c)} = d.${sql.raw(c)}
      FROM jsonb_populate_recordset(NULL::${sql.raw(t)}, ${`[${rows.join(',')}]`}::jsonb) d
      WHERE ${sql.raw(match)} AND d.${sql.raw(c)} IS NOT NULL`.execute(db);
  }
}

/** Identity sequences continue after the restored ids, so new rows never collide with old ones. */
export async function resetIdentities(db: Db): Promise<void> {
  const identities = await sql<{ table: string; column: string }>`
    SELECT c.relname AS table, a.attname AS column FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND a.attidentity <> '' AND NOT a.attisdropped`.execute(db);
  for (const { table, column } of identities.rows) {
    const t = ident(table);
    const c = ident(column);
    await sql`SELECT setval(pg_get_serial_sequence(${t}, ${column}),
      coalesce((SELECT max(${sql.raw(c)}) FROM ${sql.raw(t)}), 0) + 1, false)`.execute(db);
  }
}

/** Names of the tables in the current schema (an empty database has none). */
export async function existingTables(db: Db): Promise<string[]> {
  const r = await sql<{ name: string }>`
    SELECT relname AS name FROM pg_class
    WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') ORDER BY relname`.execute(db);
  return r.rows.map((x) => x.name);
}

/** --force on PostgreSQL: drops every table and function of the current schema. */
export async function dropEverything(db: Db): Promise<void> {
  for (const name of await existingTables(db))
    await sql`DROP TABLE IF EXISTS ${sql.raw(ident(name))} CASCADE`.execute(db);
  const fns = await sql<{ sig: string }>`
    SELECT p.oid::regprocedure::text AS sig FROM pg_proc p
    WHERE p.pronamespace = current_schema()::regnamespace AND p.prokind = 'f'`.execute(db);
  for (const { sig } of fns.rows) await sql`DROP FUNCTION IF EXISTS ${sql.raw(sig)} CASCADE`.execute(db);
}

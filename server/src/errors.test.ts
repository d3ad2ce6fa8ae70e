import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/database.ts';
import { type DatabaseHandle, openDatabase } from './db/db.ts';
import { errorCode, errorMessage, errorStatus, isUniqueViolation } from './errors.ts';

describe('errorMessage', () => {
  it('reads an Error and anything else that was thrown', () => {
    expect(errorMessage(new Error('disk full'))).toBe('disk full');
    expect(errorMessage('plain text')).toBe('plain text');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage(null)).toBe('null');
  });
});

describe('errorCode', () => {
  it('reads a string code and nothing else', () => {
    expect(errorCode(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe('ENOENT');
    expect(errorCode({ code: 2 })).toBeUndefined();
    expect(errorCode(null)).toBeUndefined();
    expect(errorCode('23505')).toBeUndefined();
  });
});

describe('errorStatus', () => {
  it('reads a numeric statusCode and nothing else', () => {
    expect(errorStatus(Object.assign(new Error('too big'), { statusCode: 413 }))).toBe(413);
    expect(errorStatus({ statusCode: '413' })).toBeUndefined();
    expect(errorStatus(new Error('plain'))).toBeUndefined();
    expect(errorStatus(undefined)).toBeUndefined();
  });
});

describe('isUniqueViolation on the test database', () => {
  let handle: DatabaseHandle;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const created = await createTestDatabase();
    drop = created.drop;
    handle = await openDatabase(created.target);
  });
  afterAll(async () => {
    await handle.close();
    await drop();
  });

  it('recognises the driver’s duplicate-key error and no other', async () => {
    const db = handle.db;
    await sql`CREATE TABLE t (k text PRIMARY KEY, n int NOT NULL)`.execute(db);
    await sql`INSERT INTO t VALUES ('a', 1)`.execute(db);
    const duplicate = await sql`INSERT INTO t VALUES ('a', 2)`.execute(db).catch((err: unknown) => err);
    expect(isUniqueViolation(duplicate)).toBe(true);
    const notNull = await sql`INSERT INTO t VALUES ('b', NULL)`.execute(db).catch((err: unknown) => err);
    expect(errorCode(notNull)).toBe('23502');
    expect(isUniqueViolation(notNull)).toBe(false);
    expect(isUniqueViolation(new Error('duplicate key'))).toBe(false);
  });
});

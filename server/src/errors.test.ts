import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../test/database.ts';
import { type DatabaseHandle, openDatabase } from './db/db.ts';
import { AppError, errorCode, errorMessage, errorStatus, isUniqueViolation, refusedForCertain } from './errors.ts';

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
    // The driver's refusals are certain: nothing of the statement committed.
    expect(refusedForCertain(duplicate)).toBe(true);
    expect(refusedForCertain(notNull)).toBe(true);
  });

  it('takes as certain refusals only answers that leave no commit behind them', () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    expect(refusedForCertain(new AppError(409, 'conflict', 'taken'))).toBe(true);
    for (const code of ['23505', '53100', '40001', '22P02']) expect(refusedForCertain(coded(code)), code).toBe(true);
    // A broken connection, a shutdown or an I/O failure may have hidden a commit.
    for (const code of ['08006', '57P01', '58030', 'XX000', 'ECONNRESET', 'EPIPE'])
      expect(refusedForCertain(coded(code)), code).toBe(false);
    expect(refusedForCertain(new Error('Connection terminated unexpectedly'))).toBe(false);
  });
});

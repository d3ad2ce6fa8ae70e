import { AUDIT_MAX_WINDOW, type AuditAction } from '@medshare/contracts';
import { sql } from 'kysely';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { testDbKind } from '../../../test/database.ts';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { fixtures, uploadFile } from '../images/images.test-helpers.ts';
import { createAuditRepository } from './audit.repository.ts';
import { batchedAppender, createAuditService } from './audit.service.ts';

/** An action no service records, so these tests' queries find only their own rows. */
const testAction = (name: `test.${string}`) => name as AuditAction;

const CLI = fileURLToPath(new URL('../../cli/audit-verify.ts', import.meta.url));
const run = promisify(execFile);

type Row = {
  id: number;
  user: { id: string; username: string } | null;
  actiontype: string;
  createAt: string;
  status: string;
};

describe('GET /api/audit/logs and /api/audit/actions', () => {
  let t: TestApp;
  let admin: SignedIn;
  let provider: SignedIn;
  let patient: SignedIn;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await loginAdmin(t);
    provider = await newUser(t, 'healthProvider');
    patient = await newUser(t, 'patient');
  });
  afterAll(async () => t?.close());

  const get = (url: string, token?: string) => t.request({ method: 'GET', url, token });

  it('answers 401 to anonymous callers and 403 to patients', async () => {
    for (const url of ['/api/audit/logs', '/api/audit/actions']) {
      expect((await get(url)).statusCode).toBe(401);
      expect((await get(url, patient.token)).statusCode).toBe(403);
    }
  });

  it('shows an admin every row, newest first, 5 per page by default, with the acting user', async () => {
    const res = await get('/api/audit/logs', admin.token);
    expect(res.statusCode).toBe(200);
    const { data, pagination } = res.json() as { data: Row[]; pagination: Record<string, unknown> };
    expect(data).toHaveLength(5);
    expect(data.map((r) => r.id)).toEqual([...data.map((r) => r.id)].sort((a, b) => b - a));
    expect(pagination).toMatchObject({
      currentPage: 1,
      pageSize: 5,
      hasPrevPage: false,
      hasNextPage: true,
      totalItemsCapped: false,
    });
    const actors = new Set(
      (await get('/api/audit/logs?limit=100', admin.token)).json().data.map((r: Row) => r.user?.id),
    );
    expect(actors).toContain(provider.user.id);
    expect(actors).toContain(patient.user.id);
    const row = data[0]!;
    expect(Object.keys(row).sort()).toEqual([
      'actiontype',
      'createAt',
      'id',
      'ipaddress',
      'reason',
      'recordId',
      'status',
      'tablename',
      'user',
    ]);
    expect(new Date(row.createAt).toISOString()).toBe(row.createAt);
  });

  it('shows a provider only the rows in which they are the actor', async () => {
    const res = await get('/api/audit/logs?limit=100', provider.token);
    expect(res.statusCode).toBe(200);
    const rows = res.json().data as Row[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.user?.id === provider.user.id)).toBe(true);
    // Searching for someone else cannot widen the view.
    const other = await get(`/api/audit/logs?search=${encodeURIComponent(patient.user.email)}`, provider.token);
    expect(other.json().data).toEqual([]);
    const actions = (await get('/api/audit/actions', provider.token)).json().data as string[];
    expect(actions).not.toContain('user.approve');
  });

  it('filters by action type', async () => {
    const rows = (await get('/api/audit/logs?action=auth.register&limit=100', admin.token)).json().data as Row[];
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.actiontype === 'auth.register')).toBe(true);
  });

  it('searches by the acting user’s name, username or e-mail prefix', async () => {
    const byEmail = (
      await get(`/api/audit/logs?limit=100&search=${encodeURIComponent(patient.user.email.toUpperCase())}`, admin.token)
    ).json().data as Row[];
    expect(byEmail.length).toBeGreaterThan(0);
    expect(byEmail.every((r) => r.user?.id === patient.user.id)).toBe(true);
    const username = byEmail[0]!.user!.username;
    const byUsername = (await get(`/api/audit/logs?limit=100&search=${username.slice(0, -1)}`, admin.token)).json()
      .data as Row[];
    expect(byUsername.map((r) => r.user?.id)).toContain(patient.user.id);
  });

  it('filters by a date range: calendar dates in the display time zone or ISO instants', async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Karachi' }).format(new Date());
    const all = (await get('/api/audit/logs', admin.token)).json().pagination.totalItems as number;
    expect((await get(`/api/audit/logs?from=${today}&to=${today}`, admin.token)).json().pagination.totalItems).toBe(
      all,
    );
    expect((await get('/api/audit/logs?to=2000-01-01', admin.token)).json().pagination.totalItems).toBe(0);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await get(`/api/audit/logs?from=${encodeURIComponent(future)}`, admin.token)).json().data).toEqual([]);
  });

  it('refuses bad filters and pages past the window with 400', async () => {
    for (const q of [
      'from=yesterday',
      'to=2024-13-01',
      // Year 0000 is outside PostgreSQL's dates: refused, not a 500 from the query.
      'from=0000-01-01',
      `from=${encodeURIComponent('0000-01-01T00:00:00Z')}`,
      // An offset no time zone has: PostgreSQL refuses past ±15:59.
      `from=${encodeURIComponent('2024-01-01T00:00:00+20:00')}`,
      `to=${encodeURIComponent('2024-01-01T00:00:00-1600')}`,
      'limit=101',
      'page=0',
      `search=${'x'.repeat(101)}`,
      `page=${AUDIT_MAX_WINDOW / 5 + 1}`,
    ]) {
      const res = await get(`/api/audit/logs?${q}`, admin.token);
      expect(res.statusCode, q).toBe(400);
    }
  });

  it('lists the distinct action types for the filter', async () => {
    const actions = (await get('/api/audit/actions', admin.token)).json().data as string[];
    expect(actions).toEqual([...new Set(actions)].sort());
    for (const a of ['auth.register', 'auth.login', 'user.approve']) expect(actions).toContain(a);
  });

  it('answers a user that no longer exists as null, without failing', async () => {
    await t.app.ctx.services.audit.record({
      userId: '00000000-0000-4000-8000-000000000000',
      action: testAction('test.orphan'),
    });
    const rows = (await get('/api/audit/logs?action=test.orphan', admin.token)).json().data as Row[];
    expect(rows[0]!.user).toBeNull();
  });
});

describe('tamper detection', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    for (let i = 0; i < 6; i++)
      await t.app.ctx.services.audit.record({ userId: null, action: testAction('test.event'), reason: `event ${i}` });
  });
  afterAll(async () => t?.close());

  const db = () => t.app.ctx.database.db;
  const ids = async () => (await db().selectFrom('audit_logs').select('id').orderBy('id').execute()).map((r) => r.id);
  /** Runs SQL with the append-only trigger off, as a DBA with table rights could. */
  async function tamper(statement: ReturnType<typeof sql>) {
    await sql`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_no_update_delete`.execute(db());
    try {
      await statement.execute(db());
    } finally {
      await sql`ALTER TABLE audit_logs ENABLE TRIGGER audit_logs_no_update_delete`.execute(db());
    }
  }

  it('verifies an untouched chain', async () => {
    expect(await t.app.ctx.services.audit.verifyChain()).toMatchObject({ ok: true, brokenAt: null });
  });

  it('keeps one chain when 40 appends of one and two rows race (the database hashes onto the head it locks)', async () => {
    const before = (await ids()).length;
    // Text that JSON escapes or that is not ASCII (quotes, backslash, control characters, other
    // scripts, an emoji): the database hashes the text JavaScript escaped, and audit:verify must agree.
    const odd = 'qu"ote \\ line\nbreak \u0001 Łódź 東京 🩻';
    const event = (i: number) => ({ userId: null, action: testAction('test.race'), reason: `${odd} ${i}` });
    // Single appends and two-row appends (as an upload with its patient share writes) racing.
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? t.app.ctx.services.audit.record(event(i))
          : (({ ctes, applied }) => sql`WITH ${ctes} SELECT ${applied}`.execute(db()))(
              t.app.ctx.services.audit.inStatement([event(i), event(i + 100)]),
            ),
      ),
    );
    expect((await ids()).length).toBe(before + 60);
    const rows = await db().selectFrom('audit_logs').select(['prev_hash', 'hash']).orderBy('id').execute();
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    expect((await createAuditRepository(db()).getHead()).last_hash).toBe(rows.at(-1)!.hash);
    expect(await t.app.ctx.services.audit.verifyChain()).toMatchObject({ ok: true, brokenAt: null });
  });

  it('verifies a row whose reason held a lone UTF-16 surrogate (stored and hashed as U+FFFD)', async () => {
    await t.app.ctx.services.audit.record({
      userId: null,
      action: testAction('test.surrogate'),
      reason: 'half \ud83e of an emoji',
    });
    const row = await db()
      .selectFrom('audit_logs')
      .select('reason')
      .where('action_type', '=', 'test.surrogate')
      .executeTakeFirstOrThrow();
    expect(row.reason).toBe('half \ufffd of an emoji');
    expect(await t.app.ctx.services.audit.verifyChain()).toMatchObject({ ok: true, brokenAt: null });
  });

  it('does not mistake rows appended while it walks the chain (live servers) for tampering', async () => {
    const repo = createAuditRepository(db());
    const headBefore = await repo.getHead();
    // A row committed after verification read the head, before it finished walking.
    await t.app.ctx.services.audit.record({ userId: null, action: testAction('test.concurrent') });
    const verifier = createAuditService({
      repo: { ...repo, getHead: async () => headBefore },
      log: pino({ level: 'silent' }),
      timeZone: async () => 'UTC',
    });
    const result = await verifier.verifyChain();
    expect(result).toMatchObject({ ok: true, brokenAt: null });
  });

  it('names a row whose reason was edited', async () => {
    const [, , third] = await ids();
    const before = await db()
      .selectFrom('audit_logs')
      .select('reason')
      .where('id', '=', third!)
      .executeTakeFirstOrThrow();
    await tamper(sql`UPDATE audit_logs SET reason = 'nothing happened' WHERE id = ${third}`);
    const result = await t.app.ctx.services.audit.verifyChain();
    expect(result.ok).toBe(false);
    expect(result.brokenAt!.id).toBe(third);
    expect(result.brokenAt!.problem).toMatch(/edited/);
    await tamper(sql`UPDATE audit_logs SET reason = ${before.reason} WHERE id = ${third}`);
    expect((await t.app.ctx.services.audit.verifyChain()).ok).toBe(true);
  });

  it('names the row after a deleted middle row', async () => {
    const all = await ids();
    const middle = all[Math.floor(all.length / 2)]!;
    const next = all[all.indexOf(middle) + 1]!;
    await tamper(sql`DELETE FROM audit_logs WHERE id = ${middle}`);
    const result = await t.app.ctx.services.audit.verifyChain();
    expect(result).toMatchObject({ ok: false, brokenAt: { id: next } });
    expect(result.brokenAt!.problem).toMatch(/removed or changed/);
  });

  it('notices a deleted tail row through the head record', async () => {
    const fresh = await createTestApp();
    try {
      for (let i = 0; i < 3; i++)
        await fresh.app.ctx.services.audit.record({ userId: null, action: testAction('test.event') });
      const tail = (
        await fresh.app.ctx.database.db
          .selectFrom('audit_logs')
          .select(sql<number>`max(id)`.as('id'))
          .executeTakeFirstOrThrow()
      ).id;
      await sql`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_no_update_delete`.execute(fresh.app.ctx.database.db);
      await sql`DELETE FROM audit_logs WHERE id = ${tail}`.execute(fresh.app.ctx.database.db);
      const result = await fresh.app.ctx.services.audit.verifyChain();
      expect(result).toMatchObject({ ok: false, brokenAt: { id: tail } });
      expect(result.brokenAt!.problem).toMatch(/removed/);
    } finally {
      await fresh.close();
    }
  });
});

describe('npm run audit:verify', () => {
  /**
   * PostgreSQL: the CLI runs beside the live app on the same database. PGlite: the app uses an
   * on-disk DATA_DIR and is closed first, since a PGlite directory takes one process at a time.
   */
  it('prints OK for an intact chain and names the broken row with exit code 1', async () => {
    let dataDirDb = '';
    const t = await createTestApp((c) => {
      if (testDbKind === 'pglite') {
        dataDirDb = join(c.dataDir, 'db');
        c.database = { kind: 'pglite', dir: dataDirDb };
      }
    });
    try {
      await newUser(t, 'patient');
      const db = t.app.ctx.database.db;
      const rows = await db.selectFrom('audit_logs').select('id').orderBy('id').execute();
      const victim = rows[1]!.id;
      const env: NodeJS.ProcessEnv =
        t.config.database.kind === 'postgres'
          ? { PATH: process.env.PATH, DATABASE_URL: t.config.database.url, DATA_DIR: t.dataDir }
          : { PATH: process.env.PATH, DATA_DIR: t.dataDir };
      const verify = async () => {
        if (testDbKind === 'pglite') await t.app.ctx.database.close();
        try {
          const out = await run(process.execPath, [CLI], { env });
          return { code: 0, stdout: out.stdout };
        } catch (err) {
          const e = err as { code: number; stdout: string; stderr: string };
          return { code: e.code, stdout: e.stdout + e.stderr };
        }
      };

      const intact = await verify();
      expect(intact.stdout).toMatch(new RegExp(`^OK: ${rows.length} rows verified`));
      expect(intact.code).toBe(0);

      const target = testDbKind === 'pglite' ? await reopen(dataDirDb) : null;
      const tamperDb = target?.db ?? db;
      await sql`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_no_update_delete`.execute(tamperDb);
      await sql`UPDATE audit_logs SET ip_address = '10.9.9.9' WHERE id = ${victim}`.execute(tamperDb);
      await target?.close();

      const broken = await verify();
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(new RegExp(`^BROKEN at row ${victim}: `));
    } finally {
      await t.close();
    }
    // On PGlite: two CLI processes and a reopen, each starting PGlite on the directory (17 s on a
    // busy 2-core machine, past 30 s with CI's other workers beside it).
  }, 90_000);

  it('refuses a DATA_DIR without a database (exit code 2) instead of creating one', async () => {
    const dir = join(fileURLToPath(new URL('.', import.meta.url)), 'no-such-data-dir');
    const err = await run(process.execPath, [CLI], { env: { PATH: process.env.PATH, DATA_DIR: dir } }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((err as { code: number }).code).toBe(2);
    expect((err as { stderr: string }).stderr).toMatch(/no database/);
  });
});

describe('batched appends (group commit)', () => {
  /** A stand-in statement that takes a turn of the event loop, as a database round trip does. */
  function recorder(refuse: (reason: string | null) => boolean = () => false) {
    const calls: string[][] = [];
    const append = async (rows: Array<{ reason: string | null }>) => {
      calls.push(rows.map((r) => r.reason ?? ''));
      await new Promise((r) => setImmediate(r));
      if (rows.some((r) => refuse(r.reason))) throw new Error('refused');
    };
    return { calls, append };
  }
  const row = (reason: string) => ({
    userId: null,
    actionType: testAction('test.batch'),
    tableName: null,
    recordId: null,
    ipAddress: null,
    status: 'success' as const,
    reason,
  });

  it('writes a lone append at once, and the appends that arrive meanwhile together next, in arrival order', async () => {
    const { calls, append } = recorder();
    const appender = batchedAppender(append);
    const first = appender.append(row('a'));
    const rest = ['b', 'c', 'd'].map((r) => appender.append(row(r)));
    await Promise.all([first, ...rest]);
    expect(calls).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('caps a batch at its maximum', async () => {
    const { calls, append } = recorder();
    const appender = batchedAppender(append, 2);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((r) => appender.append(row(r))));
    expect(calls).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });

  it('retries a failed batch row by row: only the bad row fails, the others commit', async () => {
    const { calls, append } = recorder((reason) => reason === 'bad');
    const appender = batchedAppender(append);
    const first = appender.append(row('a'));
    const results = await Promise.allSettled(['b', 'bad', 'c'].map((r) => appender.append(row(r))));
    await first;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).toEqual([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });

  it('resolves a caller only after the statement holding its row has finished', async () => {
    let release!: () => void;
    const appender = batchedAppender(() => new Promise<void>((r) => (release = r)));
    let done = false;
    const pending = appender.append(row('a')).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    release();
    await pending;
    expect(done).toBe(true);
  });

  it('keeps one verifiable chain when 100 concurrent records are batched, in fewer statements than rows', async () => {
    const t = await createTestApp();
    try {
      const db = t.app.ctx.database.db;
      const before = await db
        .selectFrom('audit_logs')
        .select(sql<number>`count(*)::int`.as('n'))
        .executeTakeFirstOrThrow();
      const audit = t.app.ctx.services.audit;
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          audit.record({ userId: null, action: testAction('test.batch'), reason: `r${i}` }),
        ),
      );
      const rows = await db
        .selectFrom('audit_logs')
        .select(['reason', 'created_at'])
        .where('action_type', '=', 'test.batch')
        .orderBy('id')
        .execute();
      expect(rows.map((r) => r.reason)).toEqual(Array.from({ length: 100 }, (_, i) => `r${i}`));
      // Rows of one statement share its timestamp: fewer distinct timestamps than rows means batches.
      expect(new Set(rows.map((r) => r.created_at.getTime())).size).toBeLessThan(100);
      expect(
        (
          await db
            .selectFrom('audit_logs')
            .select(sql<number>`count(*)::int`.as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ).toBe(before.n + 100);
      expect(await audit.verifyChain()).toMatchObject({ ok: true, brokenAt: null });
    } finally {
      await t.close();
    }
  });
});

describe('audit head row missing', () => {
  it('fails appends and uploads instead of committing them unaudited', async () => {
    const t = await createTestApp();
    try {
      const provider = await newUser(t, 'healthProvider');
      const db = t.app.ctx.database.db;
      const count = async (table: 'images' | 'audit_logs') =>
        (
          await db
            .selectFrom(table)
            .select(sql<number>`count(*)::int`.as('n'))
            .executeTakeFirstOrThrow()
        ).n;
      const before = { images: await count('images'), audit: await count('audit_logs') };
      await sql`DELETE FROM audit_head`.execute(db);

      await expect(
        t.app.ctx.services.audit.record({ userId: null, action: testAction('test.headless') }),
      ).rejects.toThrow(/audit head row is missing/);
      const png = fixtures().find((f) => f.type === 'image/png')!;
      const res = await uploadFile(t, provider.token, { name: 'x.png', type: 'image/png', data: png.data });
      expect(res.statusCode).toBe(500);
      expect(JSON.stringify(res.json())).not.toMatch(/audit head/);
      expect({ images: await count('images'), audit: await count('audit_logs') }).toEqual(before);
    } finally {
      await t.close();
    }
  });

  // They committed first and appended their row after it: a failed append left the deletion standing,
  // unaudited, and a retry answered 404 (found by a review).
  it('refuses an image deletion, an account deletion, a deactivation, setting changes, a profile edit, a message, a share verification and a registration it cannot audit: each stays undone', async () => {
    const t = await createTestApp();
    try {
      const provider = await newUser(t, 'healthProvider');
      const patient = await newUser(t, 'patient');
      const colleague = await newUser(t, 'healthProvider');
      const admin = await loginAdmin(t);
      const png = fixtures().find((f) => f.type === 'image/png')!;
      const up = await uploadFile(t, provider.token, { name: 'x.png', type: 'image/png', data: png.data });
      const imageId = up.json().data.id as string;
      await t.app.ctx.services.images.idle();
      const setting = (
        await t.request({
          method: 'POST',
          url: '/api/appsetting/add',
          token: admin.token,
          payload: { setting: { name: 'clinic_name', value: 'North', description: null } },
        })
      ).json().data.id as string;
      // An image shared with the patient: its mailed code is entered while the chain cannot be written.
      const forPatient = await uploadFile(
        t,
        provider.token,
        { name: 'y.png', type: 'image/png', data: png.data },
        { caption: 'Shared scan', patientId: patient.user.id },
      );
      expect(forPatient.statusCode, forPatient.body).toBe(201);
      await t.app.ctx.services.images.idle(); // the share's mail goes out after the answer
      const shareMail = await t.smtp.lastTo(patient.user.email);
      const verifyBody = {
        sharingRequestId: /Sharing id: ([0-9a-f-]{36})/.exec(shareMail.text)![1]!,
        verificationCode: codeIn(shareMail),
      };
      const db = t.app.ctx.database.db;
      const head = (
        await sql<{ last_id: string; last_hash: string }>`SELECT last_id, last_hash FROM audit_head`.execute(db)
      ).rows[0]!;
      await sql`DELETE FROM audit_head`.execute(db);
      try {
        const asked = [
          await t.request({ method: 'DELETE', url: `/api/upload/image/${imageId}`, token: provider.token }),
          await t.request({ method: 'DELETE', url: `/api/users/${patient.user.id}`, token: admin.token }),
          await t.request({
            method: 'PUT',
            url: `/api/users/toggleUserStatus/${colleague.user.id}`,
            token: admin.token,
          }),
          await t.request({
            method: 'PUT',
            url: `/api/appsetting/edit/${setting}`,
            token: admin.token,
            payload: { name: 'clinic_name', value: 'South', description: null },
          }),
          await t.request({
            method: 'DELETE',
            url: '/api/appsetting/delete',
            token: admin.token,
            payload: { id: setting },
          }),
          await t.request({
            method: 'PUT',
            url: '/api/users/profile',
            token: colleague.token,
            payload: { firstname: 'Renamed' },
          }),
          await t.request({
            method: 'POST',
            url: '/api/message/send',
            token: provider.token,
            payload: { recipientId: colleague.user.id, content: 'unaudited?' },
          }),
          await t.request({ method: 'POST', url: '/api/sharing/verify', token: patient.token, payload: verifyBody }),
          await t.request({
            method: 'POST',
            url: '/api/auth/register',
            payload: {
              role: 'patient',
              email: 'unaudited.newcomer@example.org',
              username: 'unaudited_newcomer',
              password: 'Tr0ubadour-and-horse',
              firstname: 'New',
              lastname: 'Comer',
            },
          }),
        ];
        expect(asked.map((r) => r.statusCode)).toEqual([500, 500, 500, 500, 500, 500, 500, 500, 500]);
      } finally {
        await sql`INSERT INTO audit_head (id, last_id, last_hash) VALUES (1, ${head.last_id}, ${head.last_hash})`.execute(
          db,
        );
      }
      const image = await db
        .selectFrom('images')
        .select('deleted_at')
        .where('id', '=', imageId)
        .executeTakeFirstOrThrow();
      const users = await db
        .selectFrom('users')
        .select(['id', 'deleted_at', 'active', 'firstname'])
        .where('id', 'in', [patient.user.id, colleague.user.id])
        .execute();
      expect(image.deleted_at).toBeNull();
      expect(users.find((u) => u.id === patient.user.id)?.deleted_at).toBeNull();
      // newUser registers everyone as 'Test'.
      expect(users.find((u) => u.id === colleague.user.id)).toMatchObject({ active: true, firstname: 'Test' });
      const sent = await db.selectFrom('messages').select('id').where('sender_id', '=', provider.user.id).execute();
      expect(sent).toEqual([]);
      const stored = await db.selectFrom('app_settings').select('value').where('id', '=', setting).executeTakeFirst();
      expect(stored?.value).toBe('North');
      const share = await db
        .selectFrom('shares')
        .select('verified_at')
        .where('id', '=', verifyBody.sharingRequestId)
        .executeTakeFirstOrThrow();
      expect(share.verified_at).toBeNull();
      const newcomer = await db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'unaudited.newcomer@example.org')
        .executeTakeFirst();
      expect(newcomer).toBeUndefined();
      // Once the chain can be written again, each goes through, with its row.
      expect(
        (await t.request({ method: 'DELETE', url: `/api/upload/image/${imageId}`, token: provider.token })).statusCode,
      ).toBe(200);
      const rows = await db.selectFrom('audit_logs').select('action_type').where('record_id', '=', imageId).execute();
      expect(rows.map((r) => r.action_type)).toContain('image.delete');
    } finally {
      await t.close();
    }
  });
});

async function reopen(dir: string) {
  const { openDatabase } = await import('../../db/db.ts');
  return openDatabase({ kind: 'pglite', dir });
}

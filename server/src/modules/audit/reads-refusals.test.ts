import { AUDIT_READ_ACTIONS } from '@medshare/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser } from '../../../test/harness.ts';
import { registerRefusalAudit } from '../../http/refusal-audit.ts';
import { forbidden } from '../../errors.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';
import type { AuditEvent, AuditService } from './audit.service.ts';

let t: TestApp;
let admin: SignedIn;
let provider: SignedIn;
let patient: SignedIn;
let otherPatient: SignedIn;

beforeAll(async () => {
  t = await createTestApp();
  admin = await loginAdmin(t);
  provider = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
  otherPatient = await newUser(t, 'patient');
});
afterAll(async () => t?.close());

const get = (url: string, token?: string, headers?: Record<string, string>) =>
  t.request({ method: 'GET', url, token, ...(headers ? { headers } : {}) });
const db = () => t.app.ctx.database.db;

/** The audit rows `run` added (the chain only grows, so rows after the last id are its rows). */
async function rowsOf(run: () => Promise<unknown>) {
  const last = await db()
    .selectFrom('audit_logs')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirstOrThrow();
  await run();
  return db()
    .selectFrom('audit_logs')
    .select(['user_id', 'action_type', 'table_name', 'record_id', 'ip_address', 'status', 'reason'])
    .where('id', '>', Number(last.id ?? 0))
    .orderBy('id')
    .execute();
}

describe('reads of other people’s data', () => {
  it('audits a look at someone else’s profile with the view given, and none at one’s own', async () => {
    const rows = await rowsOf(async () => {
      expect((await get(`/api/users/${patient.user.id}`, provider.token)).statusCode).toBe(200);
      expect((await get(`/api/users/${provider.user.id}`, patient.token)).statusCode).toBe(200);
      expect((await get(`/api/users/${patient.user.id}`, admin.token)).statusCode).toBe(200);
      expect((await get(`/api/users/${patient.user.id}`, patient.token)).statusCode).toBe(200);
      expect((await get('/api/users/profile', patient.token)).statusCode).toBe(200);
    });
    expect(rows.map((r) => [r.user_id, r.action_type, r.record_id, r.status, r.reason])).toEqual([
      [provider.user.id, 'user.profile.read', patient.user.id, 'success', 'view=care role=patient'],
      [patient.user.id, 'user.profile.read', provider.user.id, 'success', 'view=public role=healthProvider'],
      [admin.user.id, 'user.profile.read', patient.user.id, 'success', 'view=full role=patient'],
    ]);
  });

  it('audits user lists, the admin summary, message threads, chat lists and recipient lists with counts only', async () => {
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/api/message/send',
          token: patient.token,
          payload: { recipientId: provider.user.id, content: 'My knee still hurts' },
        })
      ).statusCode,
    ).toBe(201);
    const search = patient.user.email.slice(0, 6);
    const rows = await rowsOf(async () => {
      expect((await get(`/api/users/?search=${search}&role=patient`, provider.token)).statusCode).toBe(200);
      expect((await get('/api/admin/summary', admin.token)).statusCode).toBe(200);
      expect((await get(`/api/message/chat/${patient.user.id}`, provider.token)).statusCode).toBe(200);
      expect((await get('/api/message/chat-list', provider.token)).statusCode).toBe(200);
      expect((await get('/api/message/users?search=a', patient.token)).statusCode).toBe(200);
    });
    expect(rows.map((r) => `${r.action_type} ${r.user_id} ${r.record_id}`)).toEqual([
      `users.list.read ${provider.user.id} null`,
      `admin.summary.read ${admin.user.id} null`,
      `message.thread.read ${provider.user.id} ${patient.user.id}`,
      `message.chats.read ${provider.user.id} null`,
      `message.recipients.read ${patient.user.id} null`,
    ]);
    expect(rows[0]!.reason).toMatch(/^listed=\d+ page=1 role=patient search$/);
    expect(rows[2]!.reason).toBe('messages=1');
    expect(rows[3]!.reason).toMatch(/^chats=\d+ page=1$/);
    // Metadata only: no search text, names, e-mails or message text.
    const text = JSON.stringify(rows);
    for (const phi of [search, patient.user.email, 'knee', 'Test' /* the harness's first name */])
      expect(text).not.toContain(phi);
  });

  it('audits a page of an image list, with its scope and count and no caption', async () => {
    await uploadFile(t, provider.token, fixture('other/photo_hopper_portrait.jpg'), {
      caption: 'Shoulder after the fall',
      patientId: patient.user.id,
    });
    const rows = await rowsOf(async () => {
      expect((await get('/api/upload/my-images?page=1&limit=5', provider.token)).statusCode).toBe(200);
      expect((await get('/api/upload/shared-images?page=1&limit=5', patient.token)).statusCode).toBe(200);
    });
    expect(rows.map((r) => [r.user_id, r.action_type, r.status])).toEqual([
      [provider.user.id, 'images.list.read', 'success'],
      [patient.user.id, 'images.list.read', 'success'],
    ]);
    expect(rows[0]!.reason).toMatch(/^scope=mine page=1 listed=[1-5]$/);
    expect(rows[1]!.reason).toMatch(/^scope=shared page=1 listed=[1-5]$/);
    expect(JSON.stringify(rows)).not.toContain('Shoulder');
  });

  it('audits the share list of an image', async () => {
    const up = await uploadFile(t, provider.token, fixture('other/photo_hopper_portrait.jpg'), {
      caption: 'Knee',
      patientId: patient.user.id,
    });
    expect(up.statusCode).toBe(201);
    const imageId = up.json().data.id as string;
    const rows = await rowsOf(async () => {
      expect((await get(`/api/sharing/image/${imageId}`, provider.token)).statusCode).toBe(200);
    });
    expect(rows.map((r) => [r.action_type, r.record_id, r.reason])).toEqual([
      ['share.list.read', imageId, `image=${imageId} listed=1`],
    ]);
  });
});

describe('refusals', () => {
  it('records every 403 and 404 of a signed-in caller with the route pattern, never the raw URL', async () => {
    const rows = await rowsOf(async () => {
      expect((await get('/api/users/?search=secret-name', patient.token)).statusCode).toBe(403);
      expect((await get(`/api/users/${otherPatient.user.id}?x=secret-query`, patient.token)).statusCode).toBe(404);
      expect((await get(`/api/message/chat/${otherPatient.user.id}`, patient.token)).statusCode).toBe(404);
    });
    expect(rows.map((r) => [r.user_id, r.action_type, r.record_id, r.status, r.reason])).toEqual([
      [patient.user.id, 'access.denied', null, 'failure', 'GET /api/users 403; code=forbidden'],
      [patient.user.id, 'access.denied', otherPatient.user.id, 'failure', 'GET /api/users/:id 404; code=not_found'],
      [
        patient.user.id,
        'access.denied',
        otherPatient.user.id,
        'failure',
        'GET /api/message/chat/:userId 404; code=not_found',
      ],
    ]);
    expect(JSON.stringify(rows)).not.toContain('secret');
  });

  it('records a refused token (no user known) with its address, and nothing for a caller without one', async () => {
    const rows = await rowsOf(async () => {
      expect((await get('/api/users/profile', 'not-a-real-token-at-all')).statusCode).toBe(401);
      expect((await get('/api/users/profile')).statusCode).toBe(401);
      expect((await get('/api/message/chat-list')).statusCode).toBe(401);
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ user_id: null, action_type: 'access.denied', status: 'failure' });
    expect(rows[0]!.reason).toMatch(/^GET \/api\/users\/profile 401; code=/);
    expect(rows[0]!.ip_address).toBeTruthy();
  });

  it('adds no second row where the service recorded its own failure (an image that is not visible)', async () => {
    const up = await uploadFile(t, provider.token, fixture('other/photo_hopper_portrait.jpg'), { caption: 'x' });
    const imageId = up.json().data.id as string;
    const rows = await rowsOf(async () => {
      expect((await get(`/api/images/${imageId}/content`, otherPatient.token)).statusCode).toBe(404);
    });
    expect(rows.map((r) => `${r.action_type}:${r.status}`)).toEqual(['image.view:failure']);
  });

  it('keeps at most 30 rows a minute for one actor, however many refusals', async () => {
    const flooder = await newUser(t, 'patient');
    const rows = await rowsOf(async () => {
      for (let i = 0; i < 40; i++) expect((await get('/api/users/', flooder.token)).statusCode).toBe(403);
    });
    expect(rows.filter((r) => r.user_id === flooder.user.id)).toHaveLength(30);
  });
});

describe('the refusal budget', () => {
  it('counts what it leaves out into the next row of the same actor, a minute later', async () => {
    const recorded: AuditEvent[] = [];
    const audit = { recordQuietly: async (e: AuditEvent) => void recorded.push(e) } as unknown as AuditService;
    const app = Fastify({ loggerInstance: pino({ level: 'silent' }) }) as unknown as FastifyInstance;
    app.decorateRequest('actor', null);
    registerRefusalAudit(app, audit, { perKeyPerMinute: 2, perMinute: 100, maxKeys: 10 });
    app.get('/api/thing/:id', async (request) => {
      request.actor = {
        userId: String(request.headers['x-user']),
        sessionId: 's',
        role: 'patient',
        permissions: new Set(),
        ip: '10.0.0.1',
      };
      throw forbidden();
    });
    const { registerErrorHandler } = await import('../../http/error-handler.ts');
    registerErrorHandler(app);
    const now = vi.spyOn(Date, 'now');
    try {
      const start = Date.now();
      now.mockReturnValue(start);
      const hit = (user: string) => app.inject({ url: '/api/thing/t1', headers: { 'x-user': user } });
      for (let i = 0; i < 5; i++) await hit('a');
      await hit('b');
      expect(recorded.map((e) => `${e.userId} ${e.reason}`)).toEqual([
        'a GET /api/thing/:id 403; code=forbidden',
        'a GET /api/thing/:id 403; code=forbidden',
        'b GET /api/thing/:id 403; code=forbidden',
      ]);
      now.mockReturnValue(start + 60_000);
      await hit('a');
      expect(recorded.at(-1)).toMatchObject({
        userId: 'a',
        recordId: 't1',
        reason: 'GET /api/thing/:id 403; code=forbidden; suppressed=3',
      });
    } finally {
      now.mockRestore();
      await app.close();
    }
  });
});

describe('the audit list by kind of row', () => {
  it('filters reads, refusals and writes, for the whole trail and for one’s own', async () => {
    await get(`/api/users/${patient.user.id}`, provider.token);
    await get('/api/users/?limit=5', patient.token);
    const kinds = async (category: string, token = admin.token) => {
      const res = await get(`/api/audit/logs?category=${category}&limit=20`, token);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as Array<{ actiontype: string; status: string; user: { id: string } | null }>;
    };
    const reads = await kinds('reads');
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) {
      expect(AUDIT_READ_ACTIONS).toContain(r.actiontype);
      expect(r.status).toBe('success');
    }
    const refusals = await kinds('refusals');
    expect(refusals.map((r) => r.actiontype)).toContain('access.denied');
    for (const r of refusals) expect(r.status).toBe('failure');
    const writes = await kinds('writes');
    expect(writes.length).toBeGreaterThan(0);
    for (const r of writes) {
      expect(AUDIT_READ_ACTIONS).not.toContain(r.actiontype);
      expect(r.status).toBe('success');
    }
    const own = await kinds('reads', provider.token);
    expect(own.map((r) => r.actiontype)).toContain('user.profile.read');
    for (const r of own) expect(r.user?.id).toBe(provider.user.id);
    expect((await get('/api/audit/logs?category=everything', admin.token)).statusCode).toBe(400);
  });
});

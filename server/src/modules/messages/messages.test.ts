import { MESSAGE_MAX_LENGTH, MessageTexts } from '@medshare/contracts';
import { type AddressInfo, connect } from 'node:net';
import { symbols } from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser, uniqueName } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { type SseConnection, openSse } from './sse-test-client.ts';

let t: TestApp;
let base: string;
let admin: SignedIn;
let doctor: SignedIn;
let patient: SignedIn;
let otherPatient: SignedIn;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  admin = await loginAdmin(t);
  doctor = await newUser(t, 'healthProvider');
  patient = await newUser(t, 'patient');
  otherPatient = await newUser(t, 'patient');
});
afterAll(async () => t?.close());

const send = (token: string, recipientId: string, content: unknown) =>
  t.request({ method: 'POST', url: '/api/message/send', token, payload: { recipientId, content } as object });
const get = (token: string, url: string) => t.request({ method: 'GET', url, token });
const chatList = async (token: string) => (await get(token, '/api/message/chat-list')).json();

async function pendingProvider(): Promise<string> {
  const username = uniqueName('pend');
  const email = `${username}@example.org`;
  const res = await t.request({
    method: 'POST',
    url: '/api/auth/register',
    payload: {
      role: 'healthProvider',
      email,
      username,
      password: 'Tr0ubadour-and-horse',
      firstname: 'Pen',
      lastname: 'Ding',
    },
  });
  expect(res.statusCode).toBe(201);
  const code = codeIn(await t.smtp.lastTo(email));
  expect(
    (await t.request({ method: 'POST', url: '/api/auth/confirm', payload: { email, code } })).json().data.pending,
  ).toBe(true);
  return res.json().data.user.id as string;
}

describe('who may write to whom', () => {
  it('lets a patient write to a provider and answers the message with "Message sent"', async () => {
    const res = await send(patient.token, doctor.user.id, '  Hello doctor, my knee hurts.  ');
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ success: true, message: MessageTexts.sent });
    expect(res.json().data).toEqual({
      id: expect.any(Number),
      senderId: patient.user.id,
      recipientId: doctor.user.id,
      content: 'Hello doctor, my knee hurts.',
      createAt: expect.any(String),
      readAt: null,
    });
  });

  it('lets a patient write to an admin, and providers and admins write to patients', async () => {
    expect((await send(patient.token, admin.user.id, 'To the admin')).statusCode).toBe(201);
    expect((await send(doctor.token, otherPatient.user.id, 'From the doctor')).statusCode).toBe(201);
    expect((await send(admin.token, otherPatient.user.id, 'From the admin')).statusCode).toBe(201);
    expect((await send(admin.token, doctor.user.id, 'Admin to doctor')).statusCode).toBe(201);
  });

  it('refuses a patient writing to another patient as if that patient did not exist', async () => {
    const res = await send(patient.token, otherPatient.user.id, 'Hi neighbour');
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe(MessageTexts.recipientNotFound);
    const unknown = await send(patient.token, '00000000-0000-4000-8000-000000000000', 'Hi');
    expect(unknown.json()).toEqual(res.json());
  });

  it('refuses writing to oneself', async () => {
    const res = await send(doctor.token, doctor.user.id, 'Note to self');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'recipientId', code: 'rejected', message: MessageTexts.selfMessage }]);
  });

  it('answers 404 for an unknown, an inactive and a pending recipient', async () => {
    expect((await send(doctor.token, '00000000-0000-4000-8000-000000000000', 'Hi')).statusCode).toBe(404);
    const leaving = await newUser(t, 'patient');
    const off = await t.request({
      method: 'PUT',
      url: `/api/users/toggleUserStatus/${leaving.user.id}`,
      token: admin.token,
    });
    expect(off.statusCode).toBe(200);
    expect(off.json().data.active).toBe(false);
    expect((await send(doctor.token, leaving.user.id, 'Hi')).statusCode).toBe(404);
    expect((await send(admin.token, await pendingProvider(), 'Hi')).statusCode).toBe(404);
  });

  it('refuses a blank message and one of 5001 characters, with errors[content]', async () => {
    for (const content of ['', '   \n\t ', 'x'.repeat(MESSAGE_MAX_LENGTH + 1)]) {
      const res = await send(patient.token, doctor.user.id, content);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toEqual(['content']);
    }
    const longest = await send(patient.token, doctor.user.id, 'y'.repeat(MESSAGE_MAX_LENGTH));
    expect(longest.statusCode).toBe(201);
    expect(longest.json().data.content).toHaveLength(MESSAGE_MAX_LENGTH);
  });

  it('answers 400, never 500, for malformed bodies, ids and queries', async () => {
    expect((await send(patient.token, 'not-a-uuid', 'Hi')).statusCode).toBe(400);
    expect((await send(patient.token, doctor.user.id, 42)).statusCode).toBe(400);
    const extra = await t.request({
      method: 'POST',
      url: '/api/message/send',
      token: patient.token,
      payload: { recipientId: doctor.user.id, content: 'Hi', senderId: admin.user.id },
    });
    expect(extra.statusCode).toBe(400);
    expect((await get(patient.token, '/api/message/chat/not-a-uuid')).statusCode).toBe(400);
    expect((await get(patient.token, `/api/message/chat/${doctor.user.id}?before=abc`)).statusCode).toBe(400);
    expect((await get(patient.token, `/api/message/chat/${doctor.user.id}?limit=100000`)).statusCode).toBe(400);
    expect((await get(patient.token, '/api/message/chat-list?page=0')).statusCode).toBe(400);
    expect((await get(patient.token, `/api/message/users?search=${'a'.repeat(101)}`)).statusCode).toBe(400);
  });

  it('limits sends per session to 120 a minute', async () => {
    const me = await newUser(t, 'healthProvider');
    const p = await newUser(t, 'patient');
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await send(me.token, p.user.id, `burst ${i}`)).statusCode);
    expect(statuses.slice(0, 120).every((s) => s === 201)).toBe(true);
    expect(statuses[120]).toBe(429);
    // Another session of someone else is not affected.
    expect((await send(p.token, me.user.id, 'still fine')).statusCode).toBe(201);
  });

  it('requires a signed-in user on every route', async () => {
    for (const [method, url] of [
      ['GET', '/api/message/chat-list'],
      ['GET', `/api/message/chat/${doctor.user.id}`],
      ['POST', '/api/message/send'],
      ['POST', `/api/message/chat/${doctor.user.id}/read`],
      ['GET', '/api/message/users'],
      ['GET', '/api/message/stream'],
    ] as const) {
      const payload = method === 'POST' ? { recipientId: doctor.user.id, content: 'Hi' } : undefined;
      expect((await t.request({ method, url, ...(payload ? { payload } : {}) })).statusCode).toBe(401);
    }
  });
});

describe('reading chats', () => {
  it('shows nobody a chat they are not in', async () => {
    const a = await newUser(t, 'patient');
    const b = await newUser(t, 'healthProvider');
    const outsider = await newUser(t, 'patient');
    await send(a.token, b.user.id, 'Private between a and b');
    // The outsider may write to b, so that chat exists for them, but it holds only their own messages.
    const theirs = await get(outsider.token, `/api/message/chat/${b.user.id}`);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().data).toEqual([]);
    // A patient has no chat with another patient: not found, whoever that patient talks to.
    expect((await get(outsider.token, `/api/message/chat/${a.user.id}`)).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'POST', url: `/api/message/chat/${a.user.id}/read`, token: outsider.token }))
        .statusCode,
    ).toBe(404);
    expect((await chatList(outsider.token)).data).toEqual([]);
    // Another provider sees their own (empty) chat with a, never a's chat with b.
    const otherDoc = await newUser(t, 'healthProvider');
    const docView = await get(otherDoc.token, `/api/message/chat/${a.user.id}`);
    expect(docView.json().data).toEqual([]);
    expect(JSON.stringify((await chatList(otherDoc.token)).data)).not.toContain('Private between');
  });

  it('lists one entry per partner, newest first, with the last message and unread counts', async () => {
    const me = await newUser(t, 'healthProvider');
    const p1 = await newUser(t, 'patient');
    const p2 = await newUser(t, 'patient');
    await send(p1.token, me.user.id, 'p1 first');
    await send(p1.token, me.user.id, 'p1 second');
    await send(p2.token, me.user.id, 'p2 only');
    await send(me.token, p1.user.id, 'reply to p1');
    const list = await chatList(me.token);
    expect(list.pagination).toMatchObject({ currentPage: 1, totalItems: 2, totalPages: 1 });
    expect(list.data).toEqual([
      {
        id: p1.user.id,
        firstname: 'Test',
        lastname: expect.any(String),
        role: 'patient',
        lastMessage: {
          id: expect.any(Number),
          content: 'reply to p1',
          createAt: expect.any(String),
          senderId: me.user.id,
        },
        unreadCount: 2,
      },
      {
        id: p2.user.id,
        firstname: 'Test',
        lastname: expect.any(String),
        role: 'patient',
        lastMessage: { id: expect.any(Number), content: 'p2 only', createAt: expect.any(String), senderId: p2.user.id },
        unreadCount: 1,
      },
    ]);
    const p1List = await chatList(p1.token);
    expect(p1List.data).toEqual([expect.objectContaining({ id: me.user.id, unreadCount: 1, role: 'healthProvider' })]);
    const page2 = await get(me.token, '/api/message/chat-list?page=2&limit=1');
    expect(page2.json().data.map((e: { id: string }) => e.id)).toEqual([p2.user.id]);
  });

  it('marks a chat read, answers the unread counts left and stamps readAt', async () => {
    const me = await newUser(t, 'healthProvider');
    const p1 = await newUser(t, 'patient');
    const p2 = await newUser(t, 'patient');
    await send(p1.token, me.user.id, 'one');
    await send(p1.token, me.user.id, 'two');
    await send(p2.token, me.user.id, 'three');
    const res = await t.request({ method: 'POST', url: `/api/message/chat/${p1.user.id}/read`, token: me.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      message: MessageTexts.markedRead,
      data: { marked: 2, unreadCount: 0, totalUnread: 1 },
    });
    const again = await t.request({ method: 'POST', url: `/api/message/chat/${p1.user.id}/read`, token: me.token });
    expect(again.json().data).toEqual({ marked: 0, unreadCount: 0, totalUnread: 1 });
    const thread = (await get(p1.token, `/api/message/chat/${me.user.id}`)).json().data;
    expect(thread.every((m: { readAt: string | null }) => m.readAt !== null)).toBe(true);
    // Reading does not touch the other side's unread count of their own sent messages.
    expect((await chatList(p1.token)).data[0].unreadCount).toBe(0);
    expect((await chatList(me.token)).data.map((e: { unreadCount: number }) => e.unreadCount)).toEqual([1, 0]);
  });

  it('pages a long thread newest first with before/limit, without gaps or overlaps', async () => {
    const me = await newUser(t, 'healthProvider');
    const p = await newUser(t, 'patient');
    const sent: number[] = [];
    for (let i = 0; i < 55; i++) {
      const res = await send(i % 2 ? me.token : p.token, i % 2 ? p.user.id : me.user.id, `message ${i}`);
      sent.push(res.json().data.id);
    }
    const seen: string[] = [];
    let before: number | null = null;
    const sizes: number[] = [];
    do {
      const res = await get(me.token, `/api/message/chat/${p.user.id}?limit=20${before ? `&before=${before}` : ''}`);
      expect(res.statusCode).toBe(200);
      const { data, cursor } = res.json();
      sizes.push(data.length);
      // Within a page: oldest to newest.
      expect(data.map((m: { id: number }) => m.id)).toEqual(
        [...data.map((m: { id: number }) => m.id)].sort((x: number, y: number) => x - y),
      );
      seen.unshift(...data.map((m: { content: string }) => m.content));
      before = cursor.hasOlder ? cursor.nextBefore : null;
    } while (before !== null);
    expect(sizes).toEqual([20, 20, 15]);
    expect(seen).toEqual(Array.from({ length: 55 }, (_, i) => `message ${i}`));
  });
});

describe('finding people to write to', () => {
  it('offers a patient only providers and admins, searchable by name', async () => {
    const doc = await newUser(t, 'healthProvider', { firstname: 'Zebulon' });
    const res = await get(patient.token, '/api/message/users?search=zebul');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual([
      { id: doc.user.id, firstname: 'Zebulon', lastname: expect.any(String), email: null, role: 'healthProvider' },
    ]);
    const all = (await get(patient.token, '/api/message/users?limit=50')).json();
    const roles = new Set(all.data.map((u: { role: string }) => u.role));
    expect(roles.has('patient')).toBe(false);
    expect(roles.has('admin')).toBe(true);
    expect(all.data.some((u: { id: string }) => u.id === patient.user.id)).toBe(false);
  });

  it('shows a patient the e-mail only of people they share a conversation or an image with, and searches by it only then', async () => {
    const me = await newUser(t, 'patient');
    // One after another: each provider's approval signs the admin in with a mailed code.
    const writer = await newUser(t, 'healthProvider');
    const uploader = await newUser(t, 'healthProvider');
    const stranger = await newUser(t, 'healthProvider');
    const emailOf = async (who: SignedIn) =>
      (await get(me.token, '/api/message/users?limit=50')).json().data.find((u: { id: string }) => u.id === who.user.id)
        ?.email;
    const byEmail = async (who: SignedIn) =>
      (await get(me.token, `/api/message/users?search=${encodeURIComponent(who.user.email.toUpperCase())}`))
        .json()
        .data.map((u: { id: string }) => u.id);
    for (const who of [writer, uploader, stranger]) {
      expect(await emailOf(who)).toBeNull();
      expect(await byEmail(who)).toEqual([]);
    }
    const list = await get(me.token, '/api/message/users?limit=50');
    for (const who of [writer, uploader, stranger, doctor]) expect(list.body).not.toContain(who.user.email);
    const admins = list.json().data.filter((u: { role: string }) => u.role === 'admin');
    expect(admins.length).toBeGreaterThan(0);
    expect(admins.every((u: { email: string | null }) => u.email === null)).toBe(true);

    expect((await send(writer.token, me.user.id, 'Your results are in')).statusCode).toBe(201);
    const upload = await uploadFile(t, uploader.token, fixture('other/photo_hopper_portrait.jpg'), {
      caption: 'Scan',
      patientId: me.user.id,
    });
    expect(upload.statusCode).toBe(201);
    expect(await emailOf(writer)).toBe(writer.user.email);
    expect(await emailOf(uploader)).toBe(uploader.user.email);
    expect(await emailOf(stranger)).toBeNull();
    expect(await byEmail(writer)).toEqual([writer.user.id]);
    expect(await byEmail(uploader)).toEqual([uploader.user.id]);
    expect(await byEmail(stranger)).toEqual([]);
  });

  it('offers a provider every active user but themself, and treats % and _ literally', async () => {
    const res = (await get(doctor.token, '/api/message/users?limit=50')).json();
    const ids = res.data.map((u: { id: string }) => u.id);
    expect(ids).toEqual(expect.arrayContaining([patient.user.id, otherPatient.user.id, admin.user.id]));
    expect(ids).not.toContain(doctor.user.id);
    expect((await get(doctor.token, '/api/message/users?search=%25')).json().data).toEqual([]);
    expect(res.pagination).toMatchObject({ currentPage: 1, pageSize: 50, totalItemsCapped: false });
  });

  it('pages only within the list window (10 000 people, 1 000 for a search): 400 past it, before any query', async () => {
    for (const [query, row] of [
      ['page=1000000&limit=50', 10_000],
      ['page=201&limit=50', 10_000],
      ['search=a&page=21&limit=50', 1_000],
    ] as const) {
      const past = await get(patient.token, `/api/message/users?${query}`);
      expect(past.statusCode, query).toBe(400);
      expect(past.json().errors).toEqual([{ field: 'page', message: `Must not go past row ${row}`, code: 'rejected' }]);
    }
    for (const query of ['page=200&limit=50', 'search=a&page=20&limit=50'])
      expect((await get(patient.token, `/api/message/users?${query}`)).statusCode, query).toBe(200);
  });
});

describe('encryption at rest and logs', () => {
  it('keeps no message text in the database or the log', async () => {
    const secret = `Biopsy result ${uniqueName('secret')} is benign`;
    const captured: string[] = [];
    const log = t.app.log as unknown as Record<symbol, unknown> & { level: string };
    const originalStream = log[symbols.streamSym];
    const originalLevel = log.level;
    log[symbols.streamSym] = { write: (line: string) => void captured.push(line) };
    log.level = 'trace';
    try {
      const res = await send(patient.token, doctor.user.id, secret);
      expect(res.statusCode).toBe(201);
      expect((await get(doctor.token, `/api/message/chat/${patient.user.id}`)).body).toContain(secret);
      expect((await send(patient.token, otherPatient.user.id, secret)).statusCode).toBe(404);
      t.app.log.info({ body: { content: secret }, message: { content: secret } }, 'a careless log line');
    } finally {
      log[symbols.streamSym] = originalStream;
      log.level = originalLevel;
    }
    expect(captured.length).toBeGreaterThan(3);
    expect(captured.join('\n')).not.toContain('Biopsy');
    expect(captured.join('\n')).toContain('[redacted]');

    const db = t.app.ctx.database.db;
    const rows = await sql<Record<string, unknown>>`select * from messages`.execute(db);
    expect(rows.rows.length).toBeGreaterThan(0);
    const needle = Buffer.from('Biopsy');
    for (const row of rows.rows) {
      for (const value of Object.values(row)) {
        const bytes = value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(String(value));
        expect(bytes.includes(needle)).toBe(false);
      }
    }
    const dump = await sql<{ t: string }>`select string_agg(m::text, '|') as t from messages m`.execute(db);
    expect(dump.rows[0]!.t).not.toContain('Biopsy');
    const audit = await sql<{
      t: string;
    }>`select coalesce(string_agg(a::text, '|'), '') as t from audit_logs a`.execute(db);
    expect(audit.rows[0]!.t).not.toContain('Biopsy');
  });

  it('audits a send with metadata only: action, table and message id', async () => {
    const res = await send(doctor.token, patient.user.id, 'Audited note');
    const id = String(res.json().data.id);
    const row = await t.app.ctx.database.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('action_type', '=', 'message.send')
      .where('record_id', '=', id)
      .executeTakeFirst();
    expect(row).toMatchObject({ user_id: doctor.user.id, table_name: 'messages', record_id: id, status: 'success' });
    expect(JSON.stringify(row)).not.toContain('Audited note');
  });

  it('refuses to open a ciphertext moved to another row', async () => {
    const a = (await send(doctor.token, patient.user.id, 'Row A text')).json().data.id as number;
    const b = (await send(doctor.token, patient.user.id, 'Row B text')).json().data.id as number;
    const db = t.app.ctx.database.db;
    const rowA = await db
      .selectFrom('messages')
      .select(['nonce', 'ciphertext'])
      .where('id', '=', a)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('messages')
      .set({ nonce: rowA.nonce, ciphertext: rowA.ciphertext })
      .where('id', '=', b)
      .execute();
    const enc = t.app.ctx.services.messages;
    await expect(enc.messagesAfter({ userId: doctor.user.id } as never, b - 1, 1)).rejects.toThrow();
    await db.deleteFrom('conversations').where('last_message_id', '=', b).execute();
    await db.deleteFrom('messages').where('id', '=', b).execute();
  });
});

describe('live delivery over Server-Sent Events', () => {
  const streams: SseConnection[] = [];
  const open = async (token: string, headers: Record<string, string> = {}, query = '') => {
    const s = await openSse(`${base}/api/message/stream${query}`, token, headers);
    streams.push(s);
    return s;
  };
  afterAll(() => streams.forEach((s) => s.close()));

  it('refuses a stream without a bearer header, even with a token in the URL', async () => {
    const res = await fetch(`${base}/api/message/stream?token=${encodeURIComponent(patient.token)}`);
    expect(res.status).toBe(401);
    await res.body?.cancel();
  });

  // It was sealed to the id as sent and opened with the stored lower-case one: both threads, the
  // recipient's chat list and their live stream answered 500 for good (docs/security.md › Input).
  it('takes an upper-case recipient id as the same user, and every view of the chat still opens', async () => {
    const me = await newUser(t, 'patient');
    const stream = await open(doctor.token);
    await stream.next((e) => e.event === 'ready');
    const res = await send(me.token, doctor.user.id.toUpperCase(), 'Shouting id');
    expect(res.statusCode).toBe(201);
    expect(res.json().data.recipientId).toBe(doctor.user.id);
    const after = (await send(otherPatient.token, doctor.user.id, 'Next one')).json().data.id as number;
    await stream.next((e) => e.event === 'message' && JSON.parse(e.data).id === after);
    expect(stream.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data).content)).toContain(
      'Shouting id',
    );
    stream.close();

    expect((await get(doctor.token, '/api/message/chat-list')).statusCode).toBe(200);
    for (const [token, partner] of [
      [doctor.token, me.user.id],
      [me.token, doctor.user.id],
      [me.token, doctor.user.id.toUpperCase()],
    ] as const) {
      const thread = await get(token, `/api/message/chat/${partner}`);
      expect(thread.statusCode).toBe(200);
      expect(thread.json().data.map((m: { content: string }) => m.content)).toEqual(['Shouting id']);
    }
  });

  it('delivers a new message to the recipient within a second', async () => {
    const me = await newUser(t, 'patient');
    const stream = await open(me.token);
    expect(stream.status).toBe(200);
    await stream.next((e) => e.event === 'ready');
    const started = performance.now();
    const res = await send(doctor.token, me.user.id, 'Your results are in');
    const event = await stream.next((e) => e.event === 'message', 1_000);
    expect(event.at - started).toBeLessThan(1_000);
    const message = JSON.parse(event.data);
    expect(message).toEqual(res.json().data);
    expect(event.id).toBe(String(message.id));
  });

  it('also tells the sender and their other tabs, and sends read receipts', async () => {
    const me = await newUser(t, 'patient');
    const senderTab = await open(doctor.token);
    await senderTab.next((e) => e.event === 'ready');
    const res = await send(doctor.token, me.user.id, 'Copy to my other tab');
    const id = res.json().data.id as number;
    await senderTab.next((e) => e.event === 'message' && JSON.parse(e.data).id === id);
    await t.request({ method: 'POST', url: `/api/message/chat/${doctor.user.id}/read`, token: me.token });
    const read = await senderTab.next((e) => e.event === 'read' && JSON.parse(e.data).readerId === me.user.id);
    expect(JSON.parse(read.data)).toEqual({
      readerId: me.user.id,
      senderId: doctor.user.id,
      upToId: id,
      readAt: expect.any(String),
    });
    expect(read.id).toBeNull();
  });

  it('replays exactly the missed messages on reconnect with Last-Event-ID, or ?since=', async () => {
    const me = await newUser(t, 'patient');
    const first = await open(me.token);
    await first.next((e) => e.event === 'ready');
    await send(doctor.token, me.user.id, 'seen live');
    const seen = await first.next((e) => e.event === 'message');
    first.close();
    const missed: number[] = [];
    for (const text of ['missed 1', 'missed 2', 'missed 3'])
      missed.push((await send(doctor.token, me.user.id, text)).json().data.id);

    const again = await open(me.token, { 'last-event-id': seen.id! });
    await again.next((e) => e.event === 'message' && JSON.parse(e.data).id === missed[2]);
    const live = (await send(doctor.token, me.user.id, 'live after reconnect')).json().data.id as number;
    await again.next((e) => e.event === 'message' && JSON.parse(e.data).id === live);
    const got = again.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data).content);
    expect(got).toEqual(['missed 1', 'missed 2', 'missed 3', 'live after reconnect']);

    const viaQuery = await open(me.token, {}, `?since=${missed[1]}`);
    await viaQuery.next((e) => e.event === 'message' && JSON.parse(e.data).id === live);
    expect(viaQuery.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data).content)).toEqual([
      'missed 3',
      'live after reconnect',
    ]);
  });

  // ?since=0 replays a user's whole history: without a row it was a bulk read nobody could see.
  it('audits what a stream delivers from others, replayed or live, and not one’s own echoes', async () => {
    const me = await newUser(t, 'patient');
    for (const text of ['first result', 'second result']) await send(doctor.token, me.user.id, text);
    await send(me.token, doctor.user.id, 'thanks');
    const rowsOf = async (userId: string) =>
      (
        await t.app.ctx.database.db
          .selectFrom('audit_logs')
          .select(['action_type', 'reason'])
          .where('user_id', '=', userId)
          .where('action_type', '=', 'message.thread.read')
          .orderBy('id')
          .execute()
      ).map((r) => r.reason);

    const replay = await open(me.token, {}, '?since=0');
    await replay.next((e) => e.event === 'message' && JSON.parse(e.data).content === 'thanks');
    expect(await rowsOf(me.user.id)).toEqual(['stream messages=2 after=0']);
    const live = (await send(doctor.token, me.user.id, 'third result')).json().data.id as number;
    await replay.next((e) => e.event === 'message' && JSON.parse(e.data).id === live);
    expect(await rowsOf(me.user.id)).toEqual(['stream messages=2 after=0', `stream messages=1 after=${live - 1}`]);
    // A sender's own tab gets their message back: no read of anyone else's words.
    const writer = await newUser(t, 'healthProvider');
    const writersTab = await open(writer.token);
    await writersTab.next((e) => e.event === 'ready');
    const own = (await send(writer.token, me.user.id, 'fourth')).json().data.id as number;
    await writersTab.next((e) => e.event === 'message' && JSON.parse(e.data).id === own);
    expect(await rowsOf(writer.user.id)).toEqual([]);
    replay.close();
    writersTab.close();
  });

  it('starts a fresh stream at the newest message and names it in the ready event', async () => {
    const me = await newUser(t, 'patient');
    const old = (await send(doctor.token, me.user.id, 'before the stream')).json().data.id as number;
    const stream = await open(me.token);
    const ready = await stream.next((e) => e.event === 'ready');
    expect(ready.id).toBe(String(old));
    expect(JSON.parse(ready.data)).toEqual({ lastEventId: old });
    await send(doctor.token, me.user.id, 'after');
    await stream.next((e) => e.event === 'message');
    expect(stream.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data).content)).toEqual([
      'after',
    ]);
  });

  // No manual recheck: revocation itself tells the hub, so the stream ends now, not at the 60 s check.
  it('ends the stream at once when its session is revoked by logout', async () => {
    const me = await newUser(t, 'patient');
    const stream = await open(me.token);
    await stream.next((e) => e.event === 'ready');
    expect((await t.request({ method: 'POST', url: '/api/auth/logout', token: me.token })).statusCode).toBe(200);
    const end = await stream.next((e) => e.event === 'end');
    expect(JSON.parse(end.data)).toEqual({ reason: 'session_revoked' });
    await stream.ended;
    expect((await open(me.token)).status).toBe(401);
  });

  it('ends the stream at once when the account is deactivated', async () => {
    const me = await newUser(t, 'patient');
    const stream = await open(me.token);
    await stream.next((e) => e.event === 'ready');
    await t.request({ method: 'PUT', url: `/api/users/toggleUserStatus/${me.user.id}`, token: admin.token });
    const end = await stream.next((e) => e.event === 'end');
    expect(['session_revoked', 'account_inactive']).toContain(JSON.parse(end.data).reason);
  });

  it('limits how many streams one account may hold open', async () => {
    const me = await newUser(t, 'patient');
    for (let i = 0; i < 10; i++) expect((await open(me.token)).status).toBe(200);
    const extra = await open(me.token);
    expect(extra.status).toBe(429);
  });

  describe('while a stream is being set up (one database read before it opens)', () => {
    /** Slows the stream's start (its read of where the client stands) by `ms`; counts the starts. */
    function slowStart(ms: number) {
      const service = t.app.ctx.services.messages;
      const original = service.streamStart;
      const slowed = { starts: 0, undo: () => void (service.streamStart = original) };
      service.streamStart = async (...args) => {
        slowed.starts += 1;
        await new Promise((r) => setTimeout(r, ms));
        return original(...args);
      };
      return slowed;
    }
    const hub = () => t.app.ctx.realtime.hub;

    it('a client that leaves before it opens leaves no stream behind, and does not use up the account', async () => {
      const me = await newUser(t, 'patient');
      const before = hub().size;
      const slowed = slowStart(200);
      try {
        const port = new URL(base).port;
        // Fewer than the cap: slots held by set-ups in flight count toward it until each one ends.
        for (let i = 0; i < 8; i++) {
          const socket = connect(Number(port), '127.0.0.1');
          socket.write(`GET /api/message/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${me.token}\r\n\r\n`);
          // Gone once its stream has started setting up (past authentication, inside the slowed read).
          while (slowed.starts <= i) await new Promise((r) => setTimeout(r, 5));
          socket.destroy();
        }
        await new Promise((r) => setTimeout(r, 600));
      } finally {
        slowed.undo();
      }
      // Every one reached the handler (and left during its start), so the check below means something.
      expect(slowed.starts).toBe(8);
      expect(hub().size).toBe(before);
      // All ten of the account's streams are still there to open.
      const fresh = await Promise.all(Array.from({ length: 10 }, () => open(me.token)));
      expect(fresh.map((s) => s.status)).toEqual(Array(10).fill(200));
      expect((await open(me.token)).status).toBe(429);
      for (const s of fresh) s.close();
    });

    it('a burst of connections never opens more than the account may hold', async () => {
      const me = await newUser(t, 'patient');
      const slowed = slowStart(100);
      const streams = await Promise.all(Array.from({ length: 25 }, () => open(me.token))).finally(slowed.undo);
      const statuses = streams.map((s) => s.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(15);
      for (const s of streams) s.close();
    });
  });
});

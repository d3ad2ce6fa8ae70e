import { UserMessages } from '@medshare/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  type SignedIn,
  type TestApp,
  createTestApp,
  holdNextHasherCall,
  loginAdmin,
  newUser,
  uniqueName,
} from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';
import { createPasswordHasher } from '../../crypto/passwords.ts';
import { type UserListFilter, createUsersRepository, prefixEnd } from './users.repository.ts';
import { type UserDeletedEvent, createUsersService } from './users.service.ts';

let t: TestApp;
let admin: SignedIn;
let provider: SignedIn;
let patient: SignedIn;
const deletedEvents: UserDeletedEvent[] = [];

beforeAll(async () => {
  t = await createTestApp();
  t.app.ctx.userEvents.onUserDeleted.push(async (event, trx) => {
    // Runs inside the deleting transaction: the row is already scrubbed there.
    const row = await trx
      .selectFrom('users')
      .select('deleted_at')
      .where('id', '=', event.userId)
      .executeTakeFirstOrThrow();
    if (row.deleted_at) deletedEvents.push(event);
  });
  admin = await loginAdmin(t);
  provider = await newUser(t, 'healthProvider', {
    licensenumber: 'LIC-1',
    taxid: 'TAX-1',
    insurancenumber: 'INS-P',
    specialization: 'Radiology',
  });
  patient = await newUser(t, 'patient', {
    bloodgroup: 'O+',
    insurancenumber: 'INS-1',
    taxid: 'TAX-PAT',
    phone: '+92 300 0000000',
  });
});
afterAll(async () => t?.close());

const req = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, token?: string, payload?: unknown) =>
  t.request({ method, url, token, ...(payload === undefined ? {} : { payload: payload as object }) });

/** A second admin: registered as a patient, promoted in the database (no API creates admins). */
async function newAdmin(): Promise<SignedIn> {
  const u = await newUser(t, 'patient');
  await sql`update users set role_id = (select id from roles where name = 'admin') where id = ${u.user.id}`.execute(
    t.app.ctx.database.db,
  );
  return u;
}

async function pendingProvider(): Promise<{ id: string; email: string }> {
  const username = uniqueName('pend');
  const email = `${username}@example.org`;
  const res = await req('POST', '/api/auth/register', undefined, {
    role: 'healthProvider',
    email,
    username,
    password: 'Pending-provider-pass',
    firstname: 'Pending',
    lastname: username,
  });
  return { id: res.json().data.user.id, email };
}

async function auditRows(action: string, recordId: string) {
  return t.app.ctx.database.db
    .selectFrom('audit_logs')
    .selectAll()
    .where('action_type', '=', action)
    .where('record_id', '=', recordId)
    .execute();
}

/** The users service on the test app's parts, with list bounds a test can make small and its own image providers. */
function usersServiceOf(
  t: TestApp,
  bounds: Pick<Parameters<typeof createUsersService>[0], 'listWindow' | 'deepOffset' | 'imageStats' | 'uploadsPerDay'>,
) {
  const ctx = t.app.ctx;
  return createUsersService({
    db: ctx.database.db,
    audit: ctx.services.audit,
    mailer: ctx.mailer,
    hasher: createPasswordHasher(t.config.argon2),
    settings: ctx.services.settings,
    publicUrl: 'http://x',
    revokeSessions: async () => undefined,
    ...bounds,
  });
}
/** Who a signed-in test user is to a service, as the auth hook would pass it. */
const actorOf = (who: SignedIn) => t.app.ctx.services.auth.authenticate(who.token, '127.0.0.1');

describe('authentication of every people route', () => {
  const routes: Array<['GET' | 'PUT' | 'DELETE', string]> = [
    ['GET', '/api/users/profile'],
    ['PUT', '/api/users/profile'],
    ['DELETE', '/api/users/profile'],
    ['GET', '/api/users'],
    ['GET', '/api/users/stats'],
    ['GET', '/api/users/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/api/users/00000000-0000-4000-8000-000000000000'],
    ['PUT', '/api/users/toggleUserStatus/00000000-0000-4000-8000-000000000000'],
    ['GET', '/api/admin/summary'],
  ];
  it('answers 401 Unauthenticated to anonymous callers on every route', async () => {
    for (const [method, url] of routes) {
      const res = await req(method, url, undefined, method === 'GET' ? undefined : {});
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json().message).toBe('Unauthenticated');
    }
  });
});

describe('PUT /api/users/profile', () => {
  it('updates the own profile, lowercases gender, clears fields sent empty and answers the updated user', async () => {
    const u = await newUser(t, 'patient', { city: 'Lahore', phone: '123' });
    const res = await req('PUT', '/api/users/profile', u.token, {
      firstname: ' Amina ',
      gender: 'Female',
      city: '',
      dob: '1991-02-28',
      bloodgroup: 'AB-',
      licensenumber: '',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('Profile updated successfully!');
    expect(res.json().data).toMatchObject({
      id: u.user.id,
      firstname: 'Amina',
      gender: 'female',
      city: null,
      phone: '123',
      dob: '1991-02-28',
      bloodgroup: 'AB-',
    });
    const me = await req('GET', '/api/users/profile', u.token);
    expect(me.json().data).toMatchObject({ firstname: 'Amina', city: null, dob: '1991-02-28' });
  });

  it('answers per-field errors for bad values and unknown fields', async () => {
    const res = await req('PUT', '/api/users/profile', patient.token, {
      firstname: '',
      dob: '31-01-1990',
      gender: 'robot',
      role: 'admin',
      email: 'x@y.z',
    });
    expect(res.statusCode).toBe(400);
    const fields = res
      .json()
      .errors.map((e: { field: string }) => e.field)
      .join(' ');
    for (const f of ['firstname', 'dob', 'gender', 'role', 'email']) expect(fields).toContain(f);
  });

  it('refuses a date of birth in the year 0000 or in the future with 400, changing nothing', async () => {
    const u = await newUser(t, 'patient');
    expect((await req('PUT', '/api/users/profile', u.token, { dob: '1991-02-28' })).statusCode).toBe(200);
    const tomorrowEverywhere = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    for (const dob of ['0000-01-01', tomorrowEverywhere]) {
      const res = await req('PUT', '/api/users/profile', u.token, { dob });
      expect(res.statusCode, `${dob}: ${res.body}`).toBe(400);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain('dob');
    }
    expect((await req('GET', '/api/users/profile', u.token)).json().data.dob).toBe('1991-02-28');
    // A future date stored before the rule (the form sends it back unchanged) does not block other edits.
    await t.app.ctx.database.db.updateTable('users').set({ dob: '2999-01-01' }).where('id', '=', u.user.id).execute();
    const other = await req('PUT', '/api/users/profile', u.token, { dob: '2999-01-01', firstname: 'Amina' });
    expect(other.statusCode, other.body).toBe(200);
    expect(other.json().data).toMatchObject({ firstname: 'Amina', dob: '2999-01-01' });
  });

  it('refuses patient-only fields from a provider and provider-only fields from a patient, but accepts them empty', async () => {
    const fromProvider = await req('PUT', '/api/users/profile', provider.token, {
      bloodgroup: 'A+',
      primphysician: 'Dr X',
    });
    expect(fromProvider.statusCode).toBe(400);
    expect(
      fromProvider
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['bloodgroup', 'primphysician']);
    const fromPatient = await req('PUT', '/api/users/profile', patient.token, {
      licensenumber: 'L',
      specialization: 'S',
    });
    expect(fromPatient.statusCode).toBe(400);
    expect(
      fromPatient
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['licensenumber', 'specialization']);
    const empty = await req('PUT', '/api/users/profile', patient.token, {
      licensenumber: '',
      specialization: null,
      bio: 'Hello',
    });
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data.bio).toBe('Hello');
  });

  it('records user.update with the changed field names and never their values', async () => {
    const u = await newUser(t, 'patient');
    await req('PUT', '/api/users/profile', u.token, { address: 'Secret Street 7', phone: '555-777' });
    const rows = await auditRows('user.update', u.user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.reason).toBe('fields=address,phone');
    expect(JSON.stringify(rows)).not.toMatch(/Secret Street|555-777/);
  });
});

describe('DELETE /api/users/profile', () => {
  it('refuses a wrong password with 400 and keeps the account', async () => {
    const u = await newUser(t, 'patient');
    const res = await req('DELETE', '/api/users/profile', u.token, { password: 'not-my-password' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('password');
    expect((await req('GET', '/api/users/profile', u.token)).statusCode).toBe(200);
    expect((await auditRows('account.delete', u.user.id))[0]).toMatchObject({
      status: 'failure',
      reason: 'wrong password',
    });
  });

  it('deletes the own account: scrubs personal data, ends every session, frees e-mail and username, audits account.delete', async () => {
    const u = await newUser(t, 'patient', { phone: '999', address: 'Home 1' });
    const before = await t.app.ctx.database.db
      .selectFrom('users')
      .select(['email', 'username'])
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    const res = await req('DELETE', '/api/users/profile', u.token, { password: u.password });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe(UserMessages.accountDeleted);
    expect((await req('GET', '/api/users/profile', u.token)).statusCode).toBe(401);

    const row = await t.app.ctx.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ firstname: 'Deleted', lastname: 'user', phone: null, address: null, active: false });
    expect(row.deleted_at).not.toBeNull();
    expect(row.email).not.toBe(before.email);
    const live = await t.app.ctx.database.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', u.user.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(live).toHaveLength(0);
    expect((await auditRows('account.delete', u.user.id)).at(-1)).toMatchObject({
      status: 'success',
      user_id: u.user.id,
    });
    expect(deletedEvents).toContainEqual({ userId: u.user.id, role: 'patient', deletedBy: u.user.id, self: true });

    const login = await req('POST', '/api/auth/login', undefined, { email: before.email, password: u.password });
    expect(login.statusCode).toBe(401);
    const again = await req('POST', '/api/auth/register', undefined, {
      role: 'patient',
      email: before.email,
      username: before.username,
      password: 'Another-long-passphrase',
      firstname: 'New',
      lastname: 'Person',
    });
    expect(again.statusCode).toBe(201);
  });

  it('refuses to delete the last active admin, even with the right password', async () => {
    const db = t.app.ctx.database.db;
    const others = await db
      .selectFrom('users')
      .innerJoin('roles', 'roles.id', 'users.role_id')
      .select('users.id')
      .where('roles.name', '=', 'admin')
      .where('users.id', '!=', admin.user.id)
      .where('users.deleted_at', 'is', null)
      .where('users.active', '=', true)
      .execute();
    expect(others).toHaveLength(0);
    const res = await req('DELETE', '/api/users/profile', admin.token, { password: ADMIN.password });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(UserMessages.lastAdmin);
  });

  it('lets an admin delete their own account while another active admin remains', async () => {
    const second = await newAdmin();
    const res = await req('DELETE', '/api/users/profile', second.token, { password: second.password });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /api/users/:id field visibility', () => {
  it('shows an admin every field of anyone, pending providers included', async () => {
    const res = await req('GET', `/api/users/${patient.user.id}`, admin.token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ view: 'full', taxid: 'TAX-PAT', insurancenumber: 'INS-1', active: true });
    const pending = await pendingProvider();
    const p = await req('GET', `/api/users/${pending.id}`, admin.token);
    expect(p.json().data).toMatchObject({ view: 'full', active: false });
  });

  it('shows a provider the care view of a patient: contact and clinical fields, no tax id', async () => {
    const res = await req('GET', `/api/users/${patient.user.id}`, provider.token);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({
      view: 'care',
      bloodgroup: 'O+',
      insurancenumber: 'INS-1',
      phone: '+92 300 0000000',
      email: patient.user.email,
    });
    expect(data).not.toHaveProperty('taxid');
    expect(data).not.toHaveProperty('active');
  });

  it('shows a provider another provider without tax id or insurance number', async () => {
    const other = await newUser(t, 'healthProvider', {
      taxid: 'TAX-2',
      insurancenumber: 'INS-2',
      licensenumber: 'LIC-2',
    });
    const data = (await req('GET', `/api/users/${other.user.id}`, provider.token)).json().data;
    expect(data).toMatchObject({ view: 'care', licensenumber: 'LIC-2', insurancenumber: null });
    expect(JSON.stringify(data)).not.toMatch(/TAX-2|INS-2/);
  });

  it('shows a patient only the public view of a provider and of an admin', async () => {
    const res = await req('GET', `/api/users/${provider.user.id}`, patient.token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      view: 'public',
      id: provider.user.id,
      firstname: 'Test',
      lastname: expect.any(String),
      role: 'healthProvider',
      specialization: 'Radiology',
    });
    const a = await req('GET', `/api/users/${admin.user.id}`, patient.token);
    expect(Object.keys(a.json().data).sort()).toEqual([
      'firstname',
      'id',
      'lastname',
      'role',
      'specialization',
      'view',
    ]);
  });

  it('shows a patient their own full profile', async () => {
    const res = await req('GET', `/api/users/${patient.user.id}`, patient.token);
    expect(res.json().data).toMatchObject({ view: 'full', taxid: 'TAX-PAT' });
  });

  it('answers 404 to a patient asking for another patient, and to anyone for an unknown id', async () => {
    const other = await newUser(t, 'patient');
    expect((await req('GET', `/api/users/${other.user.id}`, patient.token)).statusCode).toBe(404);
    expect((await req('GET', '/api/users/00000000-0000-4000-8000-000000000000', admin.token)).statusCode).toBe(404);
  });

  it('answers 404 to non-admins for pending, deactivated and deleted users', async () => {
    const pending = await pendingProvider();
    expect((await req('GET', `/api/users/${pending.id}`, provider.token)).statusCode).toBe(404);
    expect((await req('GET', `/api/users/${pending.id}`, patient.token)).statusCode).toBe(404);
    const off = await newUser(t, 'healthProvider');
    await req('PUT', `/api/users/toggleUserStatus/${off.user.id}`, admin.token);
    expect((await req('GET', `/api/users/${off.user.id}`, patient.token)).statusCode).toBe(404);
    const gone = await newUser(t, 'patient');
    await req('DELETE', `/api/users/${gone.user.id}`, admin.token);
    expect((await req('GET', `/api/users/${gone.user.id}`, admin.token)).statusCode).toBe(404);
  });

  it('answers 400 for a malformed id', async () => {
    expect((await req('GET', '/api/users/not-a-uuid', admin.token)).statusCode).toBe(400);
  });
});

describe('GET /api/users (dashboard table)', () => {
  it('refuses patients with 403', async () => {
    expect((await req('GET', '/api/users', patient.token)).statusCode).toBe(403);
  });

  it('gives admins every account with its state, 5 per page by default', async () => {
    const res = await req('GET', '/api/users', admin.token);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(5);
    expect(body.pagination).toMatchObject({ currentPage: 1, pageSize: 5, hasPrevPage: false });
    expect(body.pagination.totalItems).toBeGreaterThan(5);
    expect(Object.keys(body.data[0]).sort()).toEqual([
      'active',
      'createdAt',
      'email',
      'firstname',
      'gender',
      'id',
      'lastname',
      'pending',
      'role',
      'username',
    ]);
  });

  it('gives providers active patients and providers only, without account state', async () => {
    const pending = await pendingProvider();
    const res = await req('GET', '/api/users?limit=100', provider.token);
    expect(res.statusCode).toBe(200);
    const rows = res.json().data as Array<Record<string, unknown>>;
    expect(rows.every((r) => r.role === 'patient' || r.role === 'healthProvider')).toBe(true);
    expect(rows.map((r) => r.id)).not.toContain(pending.id);
    expect(Object.keys(rows[0]!).sort()).toEqual(['email', 'firstname', 'gender', 'id', 'lastname', 'role']);
  });

  it('searches the full name, last name, e-mail and username by prefix, case-insensitively', async () => {
    const tag = uniqueName('zq');
    const u = await newUser(t, 'patient', { firstname: 'Zubair', lastname: `${tag}Khan` });
    const byLast = await req('GET', `/api/users?search=${tag.toUpperCase()}`, admin.token);
    expect(byLast.json().data.map((r: { id: string }) => r.id)).toEqual([u.user.id]);
    const byFull = await req('GET', `/api/users?search=${encodeURIComponent(`zubair ${tag}`)}`, admin.token);
    expect(byFull.json().data.map((r: { id: string }) => r.id)).toEqual([u.user.id]);
    const byEmail = await req(
      'GET',
      `/api/users?limit=100&search=${encodeURIComponent(u.user.email.slice(0, 8).toUpperCase())}`,
      admin.token,
    );
    expect(byEmail.json().data.map((r: { id: string }) => r.id)).toContain(u.user.id);
    expect(byEmail.json().pagination.totalItems).toBe(byEmail.json().data.length);
  });

  it('takes % and _ in a search literally', async () => {
    const all = await req('GET', '/api/users?search=%25', admin.token);
    expect(all.json().data).toEqual([]);
    const underscore = await req('GET', '/api/users?search=_', admin.token);
    expect(underscore.json().data).toEqual([]);
  });

  it('sorts by name, e-mail, role and creation time in both directions', async () => {
    const get = async (sort: string, order: string) =>
      (await req('GET', `/api/users?limit=100&sort=${sort}&order=${order}`, admin.token)).json().data as Array<
        Record<string, string>
      >;
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const byName = await get('name', 'asc');
    const names = byName.map((r) => `${r.firstname} ${r.lastname}`.toLowerCase());
    expect(names).toEqual([...names].sort(cmp));
    const emails = (await get('email', 'desc')).map((r) => r.email!);
    expect(emails).toEqual([...emails].sort(cmp).reverse());
    const roles = (await get('role', 'asc')).map((r) => r.role!);
    expect(roles).toEqual([...roles].sort(cmp));
    const created = (await get('createdAt', 'asc')).map((r) => r.createdAt!);
    expect(created).toEqual([...created].sort(cmp));
  });

  it('filters by role', async () => {
    const res = await req('GET', '/api/users?role=healthProvider&limit=100', admin.token);
    expect(res.json().data.length).toBeGreaterThan(0);
    expect(res.json().data.every((r: { role: string }) => r.role === 'healthProvider')).toBe(true);
    const adminsForProvider = await req('GET', '/api/users?role=admin', provider.token);
    expect(adminsForProvider.json().data).toEqual([]);
  });

  it('lists providers awaiting approval for admins with pending=true and refuses it to providers', async () => {
    const pending = await pendingProvider();
    const res = await req('GET', '/api/users?pending=true&limit=100', admin.token);
    const rows = res.json().data as Array<{ id: string; pending: boolean }>;
    expect(rows.map((r) => r.id)).toContain(pending.id);
    expect(rows.every((r) => r.pending)).toBe(true);
    expect((await req('GET', '/api/users?pending=true', provider.token)).statusCode).toBe(403);
  });

  it('answers deep pages read from the end exactly as the same pages read from the start', async () => {
    const ctx = t.app.ctx;
    const deep = usersServiceOf(t, { deepOffset: 0 });
    const actor = await ctx.services.auth.authenticate(admin.token, null);
    for (const sort of ['name', 'email', 'role', 'createdAt'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const all = (await req('GET', `/api/users?limit=100&sort=${sort}&order=${order}`, admin.token))
          .json()
          .data.map((r: { id: string }) => r.id);
        const pages: string[] = [];
        for (let page = 1; (page - 1) * 3 < all.length; page++) {
          const { items } = await deep.listUsers(actor, { page, limit: 3, sort, order });
          pages.push(...items.map((i) => i.id));
        }
        expect(pages, `${sort} ${order}`).toEqual(all);
      }
    }
    const past = await deep.listUsers(actor, { page: 1000, limit: 5, sort: 'name', order: 'asc' });
    expect(past.items).toEqual([]);
  });

  it('pages and counts only within the list window: capped flag, 400 past it, exact below it', async () => {
    const ctx = t.app.ctx;
    const windowed = (deepOffset?: number) => usersServiceOf(t, { listWindow: 4, deepOffset });
    const actor = await ctx.services.auth.authenticate(admin.token, null);
    const q = { sort: 'createdAt', order: 'desc' } as const;
    const all = (await req('GET', '/api/users?limit=100&sort=createdAt&order=desc', admin.token)).json();
    expect(all.data.length).toBeGreaterThan(4);
    expect(all.pagination).toMatchObject({ totalItems: all.data.length, totalItemsCapped: false });
    const ids = all.data.map((r: { id: string }) => r.id);

    const first = await windowed().listUsers(actor, { ...q, page: 1, limit: 2 });
    expect(first.pagination).toEqual({
      currentPage: 1,
      pageSize: 2,
      totalPages: 2,
      totalItems: 4,
      hasPrevPage: false,
      hasNextPage: true,
      totalItemsCapped: true,
    });
    expect(first.items.map((i) => i.id)).toEqual(ids.slice(0, 2));
    // The last page inside the window, read forward and by the deep-page path alike.
    for (const deepOffset of [undefined, 0]) {
      const last = await windowed(deepOffset).listUsers(actor, { ...q, page: 2, limit: 2 });
      expect(last.items.map((i) => i.id)).toEqual(ids.slice(2, 4));
      expect(last.pagination).toMatchObject({ hasNextPage: false, totalItemsCapped: true });
    }
    await expect(windowed().listUsers(actor, { ...q, page: 3, limit: 2 })).rejects.toMatchObject({
      status: 400,
      errors: [{ field: 'page', message: 'Must not go past row 4' }],
    });
    // Below the window: the exact count and no cap.
    const one = await windowed().listUsers(actor, { ...q, page: 1, limit: 2, search: patient.user.email });
    expect(one.pagination).toMatchObject({ totalItems: 1, totalPages: 1, totalItemsCapped: false });

    // Through HTTP with the real window: a page past row 10 000 is refused before any query.
    const past = await req('GET', '/api/users?page=2001&limit=5', admin.token);
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({
      success: false,
      message: expect.stringContaining('Only the first 10000 matching users'),
      errors: [{ field: 'page', message: 'Must not go past row 10000' }],
    });
    expect((await req('GET', '/api/users?page=2000&limit=5', admin.token)).statusCode).toBe(200);
  });

  it('pages a search within the smaller search window and counts it by walking each key first', async () => {
    const past = await req('GET', '/api/users?search=a&page=201&limit=5', admin.token);
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({
      message: expect.stringContaining('refine the search'),
      errors: [{ field: 'page', message: 'Must not go past row 1000' }],
    });
    expect((await req('GET', '/api/users?search=a&page=200&limit=5', admin.token)).statusCode).toBe(200);

    // A key whose walk reaches the cap answers it; below, the count is exact over all four keys.
    const tag = uniqueName('walkcount');
    await newUser(t, 'patient', { firstname: tag });
    await newUser(t, 'patient', { firstname: tag });
    await newUser(t, 'patient', { lastname: `${tag}x` }); // matches by last name only
    const users = createUsersRepository(t.app.ctx.database.db);
    const filter: UserListFilter = { roleIds: null, usableOnly: false, pendingOnly: false, search: tag };
    expect(await users.count(filter)).toBe(3);
    expect(await users.countUpTo(filter, 2)).toBe(2); // the full-name walk alone reaches 2
    expect(await users.countUpTo(filter, 3)).toBe(3); // no key has 3: the union is counted
    expect(await users.countUpTo(filter, 10)).toBe(3);
    expect(await users.countUpTo({ ...filter, usableOnly: true, roleIds: [] }, 2)).toBe(0);
  });

  describe('a search matching more than the window', () => {
    let tag: string;
    const sorts = ['name', 'email', 'role', 'createdAt'] as const;
    const dirs = ['asc', 'desc'] as const;

    /**
     * Users the search for `tag` matches, four by each of full name, last name and e-mail with username,
     * with users it does not match among them in every sort order (the four newest match). Written to
     * the database directly: only the list reads them.
     */
    beforeAll(async () => {
      const db = t.app.ctx.database.db;
      const users = createUsersRepository(db);
      const roleIds = [await users.roleId('patient'), await users.roleId('healthProvider')];
      tag = uniqueName('wk');
      const now = Date.now();
      // Two alike (18): ties are broken by id.
      const minutesAhead = [30, 29, 28, 27, 20, 18, 18, 14, 12, 10, 8, 6];
      const matching = minutesAhead.map((minutes, i) => {
        const mailbox = i % 3 === 2 ? `${tag}.e${i}` : `m${i}.${tag}`;
        const name = [
          { firstname: `${tag}${i}`, lastname: 'Ortiz' },
          { firstname: 'Nia', lastname: `${tag}Lee${i}` },
          { firstname: 'Omar', lastname: `Diaz${i}` },
        ][i % 3]!;
        return { ...name, mailbox, minutes, role_id: roleIds[i % 2]! };
      });
      const others = ['Aaron', 'Bea', 'Ilse', 'Kofi', 'Lena', 'Sami', 'Yuki', 'Zora'].map((firstname, j) => ({
        firstname,
        lastname: `Fill${j}`,
        mailbox: `${firstname.toLowerCase()}.${tag}`,
        minutes: 19 - 2 * j,
        role_id: roleIds[j % 2]!,
      }));
      await db
        .insertInto('users')
        .values(
          [...matching, ...others].map(({ mailbox, minutes, ...u }) => ({
            ...u,
            email: `${mailbox}@example.org`,
            username: mailbox.replace('.', '_'),
            password_hash: '!test',
            active: true,
            email_verified_at: new Date(),
            approved_at: new Date(),
            created_at: new Date(now + minutes * 60_000),
          })),
        )
        .execute();
    });

    it('walks the sort order or reads the range of the sort key to exactly the page that sorting every match gives', async () => {
      const users = createUsersRepository(t.app.ctx.database.db);
      const patients = [await users.roleId('patient')];
      const filters: UserListFilter[] = [
        { roleIds: null, usableOnly: false, pendingOnly: false, search: tag },
        { roleIds: patients, usableOnly: true, pendingOnly: false, search: tag },
      ];
      for (const filter of filters)
        for (const key of sorts)
          for (const dir of dirs) {
            const sort = { key, dir };
            const what = `${key} ${dir}${filter.roleIds ? ', patients' : ''}`;
            const order = (await users.list({ ...filter, search: null }, sort, 0, 1000)).map((r) => r.id);
            const matches = await users.list(filter, sort, 0, 1000);
            expect(matches.length, what).toBeGreaterThan(4);
            // Matches come in the order of the whole list: why the first rows of it hold the first matches.
            const matchIds = new Set(matches.map((m) => m.id));
            expect(
              matches.map((m) => m.id),
              what,
            ).toEqual(order.filter((id) => matchIds.has(id)));
            for (const offset of [0, matches.length - 2]) {
              const page = matches.slice(offset, offset + 2);
              // A walk reaching the page's last match answers it; one row short, it cannot.
              const reach = order.indexOf(page[1]!.id) + 1;
              if (key === 'role') expect(await users.walkedPage(filter, sort, offset, 2, order.length)).toBeNull();
              else {
                expect(await users.walkedPage(filter, sort, offset, 2, reach), `${what} @${offset}`).toEqual(page);
                expect(await users.walkedPage(filter, sort, offset, 2, reach - 1), `${what} @${offset}`).toBeNull();
              }
              const split = await users.splitPage(filter, sort, offset, 2);
              expect(split, `${what} @${offset}`).toEqual(key === 'name' || key === 'email' ? page : null);
              expect(await users.listDense(filter, sort, offset, 2, 4), `${what} @${offset}`).toEqual(page);
            }
          }
    });

    it('pages every sort exactly as below the window, first and last page, capped', async () => {
      const ctx = t.app.ctx;
      const windowed = usersServiceOf(t, { listWindow: 4 });
      const actor = await ctx.services.auth.authenticate(admin.token, null);
      for (const sort of sorts)
        for (const order of dirs) {
          // The real window: 12 matches are counted exactly and sorted.
          const all = (await req('GET', `/api/users?limit=100&search=${tag}&sort=${sort}&order=${order}`, admin.token))
            .json()
            .data.map((r: { id: string }) => r.id);
          expect(all, `${sort} ${order}`).toHaveLength(12);
          for (const page of [1, 2]) {
            const { items, pagination } = await windowed.listUsers(actor, { page, limit: 2, sort, order, search: tag });
            expect(
              items.map((i) => i.id),
              `${sort} ${order} page ${page}`,
            ).toEqual(all.slice((page - 1) * 2, page * 2));
            expect(pagination).toMatchObject({ totalItems: 4, totalItemsCapped: true });
          }
        }
    });
  });

  it('finds every page by the deferred join exactly as sorting the full rows: each sort, direction and filter, with ties and deleted users', async () => {
    const db = t.app.ctx.database.db;
    const users = createUsersRepository(db);
    const [patientRole, providerRole, adminRole] = [
      await users.roleId('patient'),
      await users.roleId('healthProvider'),
      await users.roleId('admin'),
    ];
    const tag = uniqueName('dj');
    const at = new Date(Date.now() - 3_600_000);
    // Eighteen users at one instant with two names between them (ties of every sort but e-mail, which is
    // unique): six of each role, more than a page, one of them deleted (scrubbed, as `scrub` leaves it), the
    // others usable, deactivated or awaiting approval.
    const states = [
      { active: true, approved: true },
      { active: false, approved: true },
      { active: true, approved: false },
    ];
    const rows = Array.from({ length: 18 }, (_, i) => {
      const state = states[i % 3]!;
      const deleted = i % 6 === 5;
      return {
        email: deleted ? `deleted-${tag}-${i}@deleted.invalid` : `${tag}.${i}@example.org`,
        username: `${tag}_${i}`,
        password_hash: '!test',
        role_id: [patientRole, providerRole, adminRole][Math.floor(i / 6)]!,
        firstname: deleted ? 'Deleted' : ['Ana', 'Ana', 'Bo'][i % 3]!,
        lastname: deleted ? 'user' : 'Tie',
        active: state.active && !deleted,
        email_verified_at: at,
        approved_at: state.approved ? at : null,
        deleted_at: deleted ? at : null,
        created_at: at,
      };
    });
    const inserted = await db.insertInto('users').values(rows).returning(['id', 'deleted_at']).execute();
    const deletedIds = new Set(inserted.filter((r) => r.deleted_at).map((r) => r.id));

    const none = { roleIds: null, usableOnly: false, pendingOnly: false, search: null };
    const filters: Array<[string, UserListFilter]> = [
      ['every account (admin)', none],
      ['care view (provider)', { ...none, roleIds: [patientRole, providerRole], usableOnly: true }],
      ['public view (patient)', { ...none, roleIds: [providerRole, adminRole], usableOnly: true }],
      ['one role', { ...none, roleIds: [providerRole] }],
      ['no role', { ...none, roleIds: [] }],
      ['pending providers', { ...none, pendingOnly: true }],
    ];
    for (const [name, filter] of filters)
      for (const key of ['name', 'email', 'role', 'createdAt'] as const)
        for (const dir of ['asc', 'desc'] as const) {
          const sort = { key, dir };
          const what = `${name}, ${key} ${dir}`;
          const all = await users.sortedPage(filter, sort, 0, 10_000);
          expect(await users.list(filter, sort, 0, 10_000), what).toEqual(all);
          expect(
            all.some((r) => deletedIds.has(r.id)),
            what,
          ).toBe(false);
          if (name !== 'no role')
            expect(all.filter((r) => r.created_at.getTime() === at.getTime()).length).toBeGreaterThan(1);
          // Every page of 3 at every offset, the empty page past the end included.
          for (let offset = 0; offset <= all.length; offset++)
            expect(await users.list(filter, sort, offset, 3), `${what} @${offset}`).toEqual(
              all.slice(offset, offset + 3),
            );
        }
  });

  it('bounds a prefix range by the least string above it, in code point order', () => {
    expect(prefixEnd('ayesha kh')).toBe('ayesha ki');
    expect(prefixEnd('a\u{10FFFF}')).toBe('b');
    expect(prefixEnd('\u{10FFFF}\u{10FFFF}')).toBeNull();
    expect(prefixEnd('a\uD7FF')).toBe('a\uE000');
    expect(prefixEnd('a\u{1F600}')).toBe('a\u{1F601}');
    // A lone surrogate reaches the database as U+FFFD.
    expect(prefixEnd('a\uD800')).toBe('a\uFFFE');
  });

  it('refuses bad paging and sorting input with 400', async () => {
    for (const q of [
      'limit=101',
      'limit=0',
      'page=0',
      'sort=password',
      'order=up',
      'role=root',
      'pending=maybe',
      `search=${'x'.repeat(101)}`,
    ]) {
      expect((await req('GET', `/api/users?${q}`, admin.token)).statusCode, q).toBe(400);
    }
  });
});

describe('GET /api/users/stats', () => {
  it('counts the users each viewer may see and reports image counts as unavailable until wired', async () => {
    const unwired = usersServiceOf(t, {});
    const forAdmin = await unwired.stats(await actorOf(admin));
    const forProvider = await unwired.stats(await actorOf(provider));
    const forPatient = await unwired.stats(await actorOf(patient));
    expect(forAdmin).toMatchObject({ totalImages: 0, sharedImages: 0, imageStatsAvailable: false });
    expect(forAdmin.totalUsers).toBeGreaterThan(forProvider.totalUsers);
    expect(forPatient.totalUsers).toBeGreaterThan(0);
    const list = (await req('GET', '/api/users', provider.token)).json();
    expect(forProvider.totalUsers).toBe(list.pagination.totalItems);
  });

  it('takes image counts from the provider the images module injects', async () => {
    const wired = usersServiceOf(t, {
      imageStats: async (actor) => ({ totalImages: actor.userId === admin.user.id ? 7 : 1, sharedImages: 2 }),
    });
    expect(await wired.stats(await actorOf(admin))).toMatchObject({
      totalImages: 7,
      sharedImages: 2,
      imageStatsAvailable: true,
    });
  });
});

describe('GET /api/admin/summary', () => {
  it('is for users:manage only', async () => {
    expect((await req('GET', '/api/admin/summary', provider.token)).statusCode).toBe(403);
    expect((await req('GET', '/api/admin/summary', patient.token)).statusCode).toBe(403);
  });

  it('answers pending approvals, users by role and 14 days of uploads (zeros while images are not wired)', async () => {
    const pending = await pendingProvider();
    const data = await usersServiceOf(t, {}).adminSummary(await actorOf(admin));
    expect(data.pendingProviders.count).toBeGreaterThan(0);
    expect(data.pendingProviders.items.length).toBeLessThanOrEqual(5);
    expect(data.pendingProviders.items.every((i: { pending: boolean }) => i.pending)).toBe(true);
    expect(data.usersByRole.admin).toBeGreaterThanOrEqual(1);
    expect(data.usersByRole.patient).toBeGreaterThan(0);
    expect(data.uploadsPerDay).toHaveLength(14);
    expect(data.uploadsAvailable).toBe(false);
    expect(pending.id).toBeTruthy();
  });

  it('fills the upload chart from the injected provider, in the display time zone', async () => {
    let asked: { from: string; to: string; timeZone: string } | null = null;
    const wired = usersServiceOf(t, {
      uploadsPerDay: async (q) => {
        asked = q;
        return [{ date: q.to, count: 3 }];
      },
    });
    const data = await wired.adminSummary(await actorOf(admin));
    expect(asked).toMatchObject({ timeZone: 'Asia/Karachi' });
    expect(data.uploadsPerDay.at(-1)).toEqual({ date: asked!.to, count: 3 });
    expect(data.uploadsPerDay[0]!.date).toBe(asked!.from);
    expect(data.uploadsAvailable).toBe(true);
  });
});

describe('DELETE /api/users/:id (admin)', () => {
  it('refuses patients and providers with 403', async () => {
    const victim = await newUser(t, 'patient');
    expect((await req('DELETE', `/api/users/${victim.user.id}`, patient.token)).statusCode).toBe(403);
    expect((await req('DELETE', `/api/users/${victim.user.id}`, provider.token)).statusCode).toBe(403);
  });

  it('deletes a user, ends their sessions at once and audits user.delete', async () => {
    const victim = await newUser(t, 'healthProvider');
    const res = await req('DELETE', `/api/users/${victim.user.id}`, admin.token);
    expect(res.statusCode).toBe(200);
    expect((await req('GET', '/api/users/profile', victim.token)).statusCode).toBe(401);
    expect((await auditRows('user.delete', victim.user.id))[0]).toMatchObject({
      user_id: admin.user.id,
      status: 'success',
    });
    expect(deletedEvents).toContainEqual({
      userId: victim.user.id,
      role: 'healthProvider',
      deletedBy: admin.user.id,
      self: false,
    });
    expect((await req('DELETE', `/api/users/${victim.user.id}`, admin.token)).statusCode).toBe(404);
  });

  it('refuses to delete oneself here (409) and answers 404 for unknown ids', async () => {
    expect((await req('DELETE', `/api/users/${admin.user.id}`, admin.token)).statusCode).toBe(409);
    expect((await req('DELETE', '/api/users/00000000-0000-4000-8000-000000000000', admin.token)).statusCode).toBe(404);
  });

  it('keeps exactly one active admin when the last two admins delete each other at once', async () => {
    const db = t.app.ctx.database.db;
    const a = await newAdmin();
    const b = await newAdmin();
    // For the race, a and b are the only admins: the seeded admin is briefly not one.
    const others = await db
      .selectFrom('users')
      .innerJoin('roles', 'roles.id', 'users.role_id')
      .select('users.id')
      .where('roles.name', '=', 'admin')
      .where('users.id', 'not in', [a.user.id, b.user.id])
      .execute();
    const ids = others.map((o) => o.id);
    await sql`update users set role_id = (select id from roles where name = 'healthProvider') where id in (${sql.join(ids)})`.execute(
      db,
    );
    try {
      const results = await Promise.all([
        req('DELETE', `/api/users/${b.user.id}`, a.token),
        req('DELETE', `/api/users/${a.user.id}`, b.token),
      ]);
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
      const active = await db
        .selectFrom('users')
        .innerJoin('roles', 'roles.id', 'users.role_id')
        .select('users.id')
        .where('roles.name', '=', 'admin')
        .where('users.active', '=', true)
        .where('users.deleted_at', 'is', null)
        .execute();
      expect(active).toHaveLength(1);
    } finally {
      await sql`update users set role_id = (select id from roles where name = 'admin') where id in (${sql.join(ids)})`.execute(
        db,
      );
    }
  });
});

describe('deactivation and the last active admin', () => {
  it('revokes every session of a deactivated user at once, not just the current one', async () => {
    const u = await newUser(t, 'patient');
    // A second session of the same user.
    await req('POST', '/api/auth/login', undefined, { email: u.user.email, password: u.password });
    const code = codeIn(await t.smtp.lastTo(u.user.email));
    const second = (await req('POST', '/api/auth/confirm', undefined, { email: u.user.email, code })).json().data
      .token as string;
    const off = await req('PUT', `/api/users/toggleUserStatus/${u.user.id}`, admin.token);
    expect(off.json().data.active).toBe(false);
    for (const token of [u.token, second]) expect((await req('GET', '/api/users/profile', token)).statusCode).toBe(401);
    const live = await t.app.ctx.database.db
      .selectFrom('sessions')
      .select('revoked_reason')
      .where('user_id', '=', u.user.id)
      .execute();
    expect(live.every((s) => s.revoked_reason === 'deactivated')).toBe(true);
    expect(await auditRows('user.deactivate', u.user.id)).toHaveLength(1);
    const on = await req('PUT', `/api/users/toggleUserStatus/${u.user.id}`, admin.token);
    expect(on.json().data.active).toBe(true);
    expect(await auditRows('user.activate', u.user.id)).toHaveLength(1);
  });

  it('refuses to deactivate oneself, but deactivates another admin while an active admin remains', async () => {
    const second = await newAdmin();
    expect((await req('PUT', `/api/users/toggleUserStatus/${second.user.id}`, second.token)).statusCode).toBe(409);
    expect((await req('PUT', `/api/users/toggleUserStatus/${second.user.id}`, admin.token)).statusCode).toBe(200);
  });
});

describe('changes racing the account deletion', () => {
  const rowOf = (id: string) =>
    t.app.ctx.database.db
      .selectFrom('users')
      .select(['active', 'deleted_at', 'firstname', 'phone', 'address'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const actionsOn = async (id: string) =>
    (
      await t.app.ctx.database.db
        .selectFrom('audit_logs')
        .select('action_type')
        .where('record_id', '=', id)
        .where((eb) => eb.or([eb('action_type', 'like', 'user.%'), eb('action_type', 'like', 'account.%')]))
        .orderBy('id')
        .execute()
    ).map((r) => r.action_type);

  it('a status toggle sent with the deletion answers 404 once the account is gone, never 500, and never reactivates it', async () => {
    for (let i = 0; i < 5; i++) {
      const u = await newUser(t, 'patient');
      expect((await req('PUT', `/api/users/toggleUserStatus/${u.user.id}`, admin.token)).statusCode).toBe(200);
      const [deleted, toggled] = await Promise.all([
        req('DELETE', `/api/users/${u.user.id}`, admin.token),
        req('PUT', `/api/users/toggleUserStatus/${u.user.id}`, admin.token),
      ]);
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect([200, 404], toggled.body).toContain(toggled.statusCode);
      const row = await rowOf(u.user.id);
      expect(row.deleted_at).not.toBeNull();
      expect(row.active).toBe(false);
      // Nothing is recorded as done to the account after its deletion.
      expect((await actionsOn(u.user.id)).at(-1)).toBe('user.delete');
    }
  });

  it('a password reset held while the account is deleted answers 400 and writes nothing onto the scrubbed account', async () => {
    const u = await newUser(t, 'patient');
    await req('POST', '/api/auth/forgot-password', undefined, { email: u.user.email });
    await t.app.ctx.services.auth.settled();
    const otp = codeIn(await t.smtp.lastTo(u.user.email));
    // The deletion commits while the new password is being hashed.
    const held = holdNextHasherCall(t, 'hash');
    const resetting = req('POST', '/api/auth/reset-password', undefined, {
      email: u.user.email,
      otp,
      newPassword: 'Brand-new-passphrase-9',
    });
    await held.reached;
    expect((await req('DELETE', `/api/users/${u.user.id}`, admin.token)).statusCode).toBe(200);
    held.release();
    const reset = await resetting;
    expect(reset.statusCode, reset.body).toBe(400);
    const row = await t.app.ctx.database.db
      .selectFrom('users')
      .select(['password_hash', 'deleted_at'])
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ password_hash: '!deleted', deleted_at: expect.any(Date) });
    const resets = await t.app.ctx.database.db
      .selectFrom('audit_logs')
      .select(['status', 'reason'])
      .where('action_type', '=', 'auth.password.reset')
      .where('record_id', '=', u.user.id)
      .execute();
    expect(resets).toEqual([{ status: 'failure', reason: 'account deleted meanwhile' }]);
  });

  it('a status change is written only while the account is as its request read it', async () => {
    const repo = createUsersRepository(t.app.ctx.database.db);
    const u = await newUser(t, 'patient');
    const read = { active: true, approved: true };
    expect(await repo.updateStatus(u.user.id, read, { active: false })).toBe('changed');
    // The second of two deactivations that both read the account active: it would redo the first.
    expect(await repo.updateStatus(u.user.id, read, { active: false })).toBe('moved');
    // A reactivation that read it active would undo the first's deactivation: nothing changes.
    expect(await repo.updateStatus(u.user.id, read, { active: true })).toBe('moved');
    expect((await rowOf(u.user.id)).active).toBe(false);
    expect((await req('DELETE', `/api/users/${u.user.id}`, admin.token)).statusCode).toBe(200);
    expect(await repo.updateStatus(u.user.id, { active: false, approved: true }, { active: true })).toBe('gone');
  });

  it('approvals sent at once, each asking for an active account, approve once: one audit row, one mail, never a deactivation', async () => {
    const pending = await pendingProvider();
    const mails = t.smtp.countTo(pending.email);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        req('PUT', `/api/users/toggleUserStatus/${pending.id}`, admin.token, { active: true }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(200));
    expect(answers.map((a) => a.json().data.active)).toEqual(Array(6).fill(true));
    await new Promise((r) => setTimeout(r, 200));
    expect(await actionsOn(pending.id)).toEqual(['user.approve']);
    expect(t.smtp.countTo(pending.email) - mails).toBe(1);
    // A second click later: the account is as asked, nothing is written.
    const again = await req('PUT', `/api/users/toggleUserStatus/${pending.id}`, admin.token, { active: true });
    expect(again.json().data.active).toBe(true);
    expect(await actionsOn(pending.id)).toEqual(['user.approve']);
  });

  it('deactivations asked for at once deactivate once; without a body the route still toggles', async () => {
    const u = await newUser(t, 'patient');
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        req('PUT', `/api/users/toggleUserStatus/${u.user.id}`, admin.token, { active: false }),
      ),
    );
    expect(answers.map((a) => a.json().data.active)).toEqual(Array(4).fill(false));
    expect(await actionsOn(u.user.id)).toEqual(['user.deactivate']);
    const toggled = await req('PUT', `/api/users/toggleUserStatus/${u.user.id}`, admin.token);
    expect(toggled.json().data.active).toBe(true);
    expect(await actionsOn(u.user.id)).toEqual(['user.deactivate', 'user.activate']);
    expect(
      (await req('PUT', `/api/users/toggleUserStatus/${u.user.id}`, admin.token, { active: 'yes' })).statusCode,
    ).toBe(400);
  });

  it("an admin's deactivation waiting on another admin's row does not deadlock with an upload by an admin", async () => {
    const second = await newAdmin();
    const third = await newAdmin();
    // A reset mail to the third admin, held: its transaction holds that admin's row.
    const mail = t.smtp.holdNext();
    await req('POST', '/api/auth/forgot-password', undefined, { email: third.user.email });
    await mail.reached;
    // The deactivation locks the active admins' rows (the acting admin's first) and waits at the third's.
    const deactivating = req('PUT', `/api/users/toggleUserStatus/${second.user.id}`, admin.token, { active: false });
    await new Promise((r) => setTimeout(r, 200));
    // An upload by the acting admin points at that admin's row while holding the audit head.
    const uploading = uploadFile(t, admin.token, fixture('other/photo_hopper_portrait.jpg'), { caption: 'Held' });
    await new Promise((r) => setTimeout(r, 200));
    mail.release();
    const [deactivated, uploaded] = await Promise.all([deactivating, uploading]);
    expect(deactivated.statusCode, deactivated.body).toBe(200);
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    await t.app.ctx.services.auth.settled();
  });

  it('two deletions at once: one answers 200, the other 404, and one deletion is recorded', async () => {
    const u = await newUser(t, 'patient');
    const answers = await Promise.all([
      req('DELETE', '/api/users/profile', u.token, { password: u.password }),
      req('DELETE', '/api/users/profile', u.token, { password: u.password }),
    ]);
    const [first, second] = answers.map((a) => a.statusCode).sort();
    expect(first).toBe(200);
    // 401 when the second request came after the first had ended the session.
    expect([401, 404]).toContain(second);
    expect(await actionsOn(u.user.id)).toEqual(['account.delete']);
  });

  it("the account's own deletion, held at its password check while an admin deletes the account, answers 404 and records nothing", async () => {
    const u = await newUser(t, 'patient');
    const held = holdNextHasherCall(t, 'verify');
    const own = req('DELETE', '/api/users/profile', u.token, { password: u.password });
    await held.reached;
    expect((await req('DELETE', `/api/users/${u.user.id}`, admin.token)).statusCode).toBe(200);
    held.release();
    expect((await own).statusCode).toBe(404);
    expect(await actionsOn(u.user.id)).toEqual(['user.delete']);
  });

  it('a profile edit sent with the deletion never writes personal data back onto the scrubbed account', async () => {
    for (let i = 0; i < 5; i++) {
      const u = await newUser(t, 'patient');
      const [deleted, edited] = await Promise.all([
        req('DELETE', '/api/users/profile', u.token, { password: u.password }),
        req('PUT', '/api/users/profile', u.token, {
          firstname: 'Resurrected',
          phone: '+1 555 0100',
          address: '1 Secret St',
        }),
      ]);
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect([200, 401, 404], edited.body).toContain(edited.statusCode);
      expect(await rowOf(u.user.id)).toMatchObject({ firstname: 'Deleted', phone: null, address: null });
      expect((await actionsOn(u.user.id)).at(-1)).toBe('account.delete');
    }
  });
});

describe("the account deletion's password tries", () => {
  const wrong = (u: SignedIn, i: number) =>
    req('DELETE', '/api/users/profile', u.token, { password: `Wrong-guess-${i}` });

  it('lock the deletion after five wrong passwords: 429 with Retry-After, the right password refused too', async () => {
    const u = await newUser(t, 'patient');
    for (let i = 0; i < 5; i++) expect((await wrong(u, i)).statusCode).toBe(400);
    const locked = await req('DELETE', '/api/users/profile', u.token, { password: u.password });
    expect(locked.statusCode).toBe(429);
    // 15 minutes.
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
    const row = await t.app.ctx.database.db
      .selectFrom('users')
      .select('deleted_at')
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeNull();
  });

  it('are counted before the check: forty wrong passwords sent at once get five checks, the rest 429', async () => {
    const u = await newUser(t, 'patient');
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => wrong(u, i)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    const failures = await t.app.ctx.database.db
      .selectFrom('audit_logs')
      .select('id')
      .where('action_type', '=', 'account.delete')
      .where('record_id', '=', u.user.id)
      .where('status', '=', 'failure')
      .execute();
    expect(failures).toHaveLength(5);
  });
});

describe('bad input never answers 5xx', () => {
  it('answers 4xx with the envelope for junk bodies on the people routes', async () => {
    const bodies = [
      '{not json',
      '[]',
      'null',
      '"x"',
      JSON.stringify({ password: { $gt: '' } }),
      JSON.stringify({ firstname: 'x'.repeat(5000) }),
    ];
    for (const [method, url] of [
      ['PUT', '/api/users/profile'],
      ['DELETE', '/api/users/profile'],
    ] as const) {
      for (const payload of bodies) {
        const res = await t.request({
          method,
          url,
          payload,
          token: patient.token,
          headers: { 'content-type': 'application/json' },
        });
        expect(res.statusCode, `${method} ${url} ${payload.slice(0, 20)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode).toBeLessThan(500);
      }
    }
  });
});

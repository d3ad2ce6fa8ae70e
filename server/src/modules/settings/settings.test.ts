import { KnownSettings, SettingMessages } from '@medshare/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser, uniqueName } from '../../../test/harness.ts';

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

type Setting = {
  id: string;
  name: string;
  value: string;
  description: string | null;
  createdAt: string;
  updatedAt: string;
};

const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, token?: string, payload?: unknown) =>
  t.request({ method, url, token, ...(payload === undefined ? {} : { payload: payload as object }) });
const list = async (): Promise<Setting[]> => (await req('GET', '/api/appsetting/', admin.token)).json().data;
const byName = async (name: string) => (await list()).find((s) => s.name === name)!;
const add = (setting: Record<string, unknown>, token = admin.token) =>
  req('POST', '/api/appsetting/add', token, { setting });
const auditOf = (id: string) =>
  t.app.ctx.database.db
    .selectFrom('audit_logs')
    .selectAll()
    .where('table_name', '=', 'app_settings')
    .where('record_id', '=', id)
    .orderBy('id')
    .execute();

describe('who may manage settings', () => {
  it('answers 401 to anonymous callers and 403 to patients and providers on every managing route', async () => {
    const id = (await byName('max_upload_mb')).id;
    const calls: Array<['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown]> = [
      ['GET', '/api/appsetting/', undefined],
      ['POST', '/api/appsetting/add', { setting: { name: 'x', value: 'y' } }],
      ['PUT', `/api/appsetting/edit/${id}`, { name: 'max_upload_mb', value: '20' }],
      ['DELETE', '/api/appsetting/delete', { id }],
    ];
    for (const [method, url, body] of calls) {
      expect((await req(method, url, undefined, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await req(method, url, patient.token, body)).statusCode, `${method} ${url}`).toBe(403);
      expect((await req(method, url, provider.token, body)).statusCode, `${method} ${url}`).toBe(403);
    }
  });

  it('lists every seeded setting for admins, also without the trailing slash', async () => {
    const res = await req('GET', '/api/appsetting', admin.token);
    expect(res.statusCode).toBe(200);
    const names = (res.json().data as Setting[]).map((s) => s.name);
    for (const known of Object.keys(KnownSettings)) expect(names).toContain(known);
  });

  it('answers the public settings without sign-in', async () => {
    const res = await req('GET', '/api/appsetting/public');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      displayLocale: 'en-PK',
      displayTimeZone: 'Asia/Karachi',
      maxUploadMb: 10,
      maxImportFiles: 2000,
      maxImportMb: 2048,
    });
  });
});

describe('POST /api/appsetting/add', () => {
  it('adds a setting with a trimmed name and audits settings.create without its value', async () => {
    const name = uniqueName('site_banner_');
    const res = await add({ name: `  ${name} `, value: 'super-secret-value', description: 'Banner text' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ name, value: 'super-secret-value', description: 'Banner text' });
    const rows = await auditOf(res.json().data.id);
    expect(rows[0]).toMatchObject({ action_type: 'settings.create', user_id: admin.user.id, reason: `name=${name}` });
    expect(JSON.stringify(rows)).not.toContain('super-secret-value');
  });

  it('requires a name (400 with a per-field error)', async () => {
    for (const setting of [{ name: '', value: 'x' }, { name: '   ', value: 'x' }, { value: 'x' }]) {
      const res = await add(setting);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].field).toMatch(/name/);
    }
  });

  it('refuses a name already taken, case-insensitively, with 409', async () => {
    const name = uniqueName('dup_');
    expect((await add({ name, value: '1' })).statusCode).toBe(201);
    const again = await add({ name: name.toUpperCase(), value: '2' });
    expect(again.statusCode).toBe(409);
    expect(again.json().errors[0]).toMatchObject({ field: 'name', message: SettingMessages.nameTaken });
    expect((await add({ name: 'MAX_UPLOAD_MB', value: '5' })).statusCode).toBe(409);
  });

  it('refuses unknown fields in the body', async () => {
    const res = await req('POST', '/api/appsetting/add', admin.token, {
      setting: { name: 'a', value: 'b', admin: true },
    });
    expect(res.statusCode).toBe(400);
  });
});

describe('PUT /api/appsetting/edit/:id', () => {
  it('validates a known setting’s value: a non-number max_upload_mb is 400 with errors[value]', async () => {
    const s = await byName('max_upload_mb');
    for (const value of ['ten', '0', '101', '1.5', '']) {
      const res = await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, {
        name: s.name,
        value,
        description: s.description,
      });
      expect(res.statusCode, value).toBe(400);
      expect(res.json().errors[0].field).toBe('value');
    }
  });

  it('applies a valid value at once (cache invalidated) and audits the change of a known setting with its values', async () => {
    const s = await byName('max_upload_mb');
    const res = await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { ...s, value: ' 25 ' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: s.id, value: '25' });
    expect((await req('GET', '/api/appsetting/public')).json().data.maxUploadMb).toBe(25);
    const rows = await auditOf(s.id);
    expect(rows.at(-1)).toMatchObject({ action_type: 'settings.update', reason: 'name=max_upload_mb; from=10; to=25' });
    await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: s.name, value: '10' });
  });

  it('edits sent at once are each audited with the value they replaced: one chain from the first value to the last', async () => {
    const s = await byName('max_upload_mb');
    const before = (await auditOf(s.id)).length;
    const values = ['21', '22', '23', '24', '26', '27'];
    const answers = await Promise.all(
      values.map((value) => req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: s.name, value })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(values.map(() => 200));
    const changes = (await auditOf(s.id))
      .slice(before)
      .map((r) => /from=(\d+); to=(\d+)/.exec(r.reason ?? '')!.slice(1));
    expect(changes).toHaveLength(values.length);
    // Each edit replaced what the one before it wrote, in the order they committed.
    expect(changes[0]![0]).toBe(s.value);
    for (let i = 1; i < changes.length; i++) expect(changes[i]![0], JSON.stringify(changes)).toBe(changes[i - 1]![1]);
    expect((await byName('max_upload_mb')).value).toBe(changes.at(-1)![1]);
    await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: s.name, value: s.value });
  });

  it('study import limits: max_import_files and max_import_mb take whole numbers in range and reach the public settings at once', async () => {
    for (const [name, bad, good, field] of [
      ['max_import_files', ['0', '100001', 'many', '2.5'], '500', 'maxImportFiles'],
      ['max_import_mb', ['0', '102401', '1e3'], '300', 'maxImportMb'],
    ] as const) {
      const s = await byName(name);
      for (const value of bad) {
        const res = await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: s.name, value });
        expect(res.statusCode, `${name}=${value}`).toBe(400);
        expect(res.json().errors[0].field).toBe('value');
      }
      const res = await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: s.name, value: good });
      expect(res.statusCode).toBe(200);
      expect((await req('GET', '/api/appsetting/public')).json().data[field]).toBe(Number(good));
      await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: s.name, value: s.value });
      expect((await req('GET', '/api/appsetting/public')).json().data[field]).toBe(Number(s.value));
    }
  });

  it('refuses a default share expiry above the maximum', async () => {
    const s = await byName('share_expiry_hours');
    const res = await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: s.name, value: '9000' });
    expect(res.statusCode).toBe(400);
    const ok = await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: s.name, value: '48' });
    expect(ok.statusCode).toBe(200);
  });

  it('checks the expiry pair against the values as committed, not this instance’s cached ones', async () => {
    const hours = await byName('share_expiry_hours');
    const max = await byName('share_expiry_max_hours');
    const db = t.app.ctx.database.db;
    try {
      // This instance has read the settings (cached 5 s); another instance then lowers the maximum.
      await t.app.ctx.services.settings.effective();
      await db.updateTable('app_settings').set({ value: '60' }).where('id', '=', max.id).execute();
      const above = await req('PUT', `/api/appsetting/edit/${hours.id}`, admin.token, {
        name: hours.name,
        value: '100',
      });
      expect(above.statusCode, above.body).toBe(400);
      expect(above.json().errors).toMatchObject([
        { field: 'value', message: 'Must not exceed share_expiry_max_hours (60)' },
      ]);
      expect((await byName('share_expiry_hours')).value).toBe(hours.value);
      // And the other way: the default raised elsewhere, the maximum may not go below it.
      await db.updateTable('app_settings').set({ value: '168' }).where('id', '=', max.id).execute();
      await t.app.ctx.services.settings.effective();
      await db.updateTable('app_settings').set({ value: '120' }).where('id', '=', hours.id).execute();
      const below = await req('PUT', `/api/appsetting/edit/${max.id}`, admin.token, { name: max.name, value: '100' });
      expect(below.statusCode, below.body).toBe(400);
      expect(below.json().errors).toMatchObject([
        { field: 'value', message: 'Must not be below share_expiry_hours (120)' },
      ]);
    } finally {
      await db.updateTable('app_settings').set({ value: hours.value }).where('id', '=', hours.id).execute();
      await db.updateTable('app_settings').set({ value: max.value }).where('id', '=', max.id).execute();
      t.app.ctx.services.settings.invalidate();
    }
  });

  it('validates locale and time zone settings', async () => {
    const tz = await byName('display_time_zone');
    expect(
      (await req('PUT', `/api/appsetting/edit/${tz.id}`, admin.token, { name: tz.name, value: 'Mars/Olympus' }))
        .statusCode,
    ).toBe(400);
    expect(
      (await req('PUT', `/api/appsetting/edit/${tz.id}`, admin.token, { name: tz.name, value: 'Europe/Berlin' }))
        .statusCode,
    ).toBe(200);
    expect((await req('GET', '/api/appsetting/public')).json().data.displayTimeZone).toBe('Europe/Berlin');
    await req('PUT', `/api/appsetting/edit/${tz.id}`, admin.token, { name: tz.name, value: 'Asia/Karachi' });
  });

  it('refuses to rename a known setting away (409)', async () => {
    const s = await byName('otp_ttl_minutes');
    const res = await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, { name: 'otp_minutes', value: '10' });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(SettingMessages.knownRename);
  });

  it('renames and edits a custom setting, refusing a name taken by another', async () => {
    const a = (await add({ name: uniqueName('a_'), value: '1' })).json().data as Setting;
    const b = (await add({ name: uniqueName('b_'), value: '2' })).json().data as Setting;
    expect(
      (await req('PUT', `/api/appsetting/edit/${a.id}`, admin.token, { name: b.name.toUpperCase(), value: '1' }))
        .statusCode,
    ).toBe(409);
    const renamed = await req('PUT', `/api/appsetting/edit/${a.id}`, admin.token, {
      name: `${a.name}_x`,
      value: 'new',
      description: '',
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().data).toMatchObject({ name: `${a.name}_x`, value: 'new', description: null });
    expect((await auditOf(a.id)).at(-1)!.reason).toBe(`name=${a.name}_x; renamed from ${a.name}`);
  });

  it('answers 404 for an unknown id and 400 for a body id that is not the path’s', async () => {
    expect(
      (
        await req('PUT', '/api/appsetting/edit/00000000-0000-4000-8000-000000000000', admin.token, {
          name: 'n',
          value: 'v',
        })
      ).statusCode,
    ).toBe(404);
    const s = await byName('max_upload_mb');
    expect(
      (
        await req('PUT', `/api/appsetting/edit/${s.id}`, admin.token, {
          id: '00000000-0000-4000-8000-000000000000',
          name: s.name,
          value: '10',
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (await req('PUT', '/api/appsetting/edit/not-a-uuid', admin.token, { name: 'n', value: 'v' })).statusCode,
    ).toBe(400);
  });
});

describe('DELETE /api/appsetting/delete', () => {
  it('deletes a custom setting, accepting and ignoring authUser, and audits settings.delete', async () => {
    const s = (await add({ name: uniqueName('gone_'), value: 'v' })).json().data as Setting;
    const res = await req('DELETE', '/api/appsetting/delete', admin.token, {
      id: s.id,
      authUser: { id: 'whoever', role: 'patient' },
    });
    expect(res.statusCode).toBe(200);
    expect((await list()).map((x) => x.id)).not.toContain(s.id);
    expect((await auditOf(s.id)).at(-1)).toMatchObject({ action_type: 'settings.delete', user_id: admin.user.id });
    expect((await req('DELETE', '/api/appsetting/delete', admin.token, { id: s.id })).statusCode).toBe(404);
  });

  it('refuses to delete a known setting (409)', async () => {
    const s = await byName('session_idle_minutes');
    const res = await req('DELETE', '/api/appsetting/delete', admin.token, { id: s.id });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(SettingMessages.knownUndeletable);
  });

  it('answers 400 without an id', async () => {
    expect((await req('DELETE', '/api/appsetting/delete', admin.token, {})).statusCode).toBe(400);
  });
});

import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, uploadFile } from '../src/modules/images/images.test-helpers.ts';
import { type SignedIn, type TestApp, createTestApp, loginAdmin, newUser } from './harness.ts';
import { codeIn } from './smtp.ts';

// Injection payloads in every search, filter, sort and paging parameter of every list route:
// never a 5xx, never more rows than the caller sees without the parameter, wildcards taken
// literally (QIDO documents exact matching too, `*` alone being universal), and the users table intact afterwards.

const PAYLOADS = [
  "' OR 1=1--",
  '%',
  '_',
  '\\%',
  '"; DROP TABLE users;--',
  '1; SELECT pg_sleep(3)',
  'ünïcødé 🩻 ИМЯ 名前 \u202e\ufeff',
  'a'.repeat(5_000),
  'x\u0000y',
  '*',
  '{"$gt":""}',
  '*)(uid=*))(|(uid=*',
  '-1',
  '1000000',
];

let t: TestApp;
let admin: SignedIn;
let patientA: SignedIn;
let patientB: SignedIn;
let providerA: SignedIn;
let providerB: SignedIn;
let tag: string;
let named: { one: string; xone: string; pct: string };
let dicom: { id: string; study: string; series: string; sop: string };
let usersBefore: number;

const countUsers = async () =>
  Number((await sql<{ n: string }>`select count(*)::text as n from users`.execute(t.app.ctx.database.db)).rows[0]!.n);

async function get(url: string, token: string, query: Record<string, string> = {}) {
  const res = await t.request({ method: 'GET', url, query, token });
  return { status: res.statusCode, body: res.body, json: () => res.json() };
}

/** Rows an answer carries: paged envelopes count totalItems, QIDO answers are arrays. */
function rowsOf(body: { data?: unknown; pagination?: { totalItems: number } } | unknown[]): number {
  if (Array.isArray(body)) return body.length;
  if (body.pagination) return body.pagination.totalItems;
  if (Array.isArray(body.data)) return body.data.length;
  const thread = body.data as { messages?: unknown[] } | undefined;
  if (Array.isArray(thread?.messages)) return thread.messages.length;
  throw new Error('an answer without rows');
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await loginAdmin(t);
  [patientA, patientB, providerA, providerB] = [
    await newUser(t, 'patient'),
    await newUser(t, 'patient'),
    await newUser(t, 'healthProvider'),
    await newUser(t, 'healthProvider'),
  ];
  // Names whose prefixes differ only where a LIKE wildcard would blur them.
  tag = `inj${randomUUID()
    .replace(/[^a-f]/g, '')
    .slice(0, 6)}q`;
  const one = await newUser(t, 'patient', { lastname: `${tag}_one` });
  const xone = await newUser(t, 'patient', { lastname: `${tag}xone` });
  const pct = await newUser(t, 'patient', { lastname: `${tag}%pct` });
  named = { one: one.user.id, xone: xone.user.id, pct: pct.user.id };

  const up = await uploadFile(t, providerA.token, fixture('dicom/ct_explicit_le_16bit_signed_small.dcm'), {
    caption: 'DICOM A',
    patientId: patientA.user.id,
  });
  expect(up.statusCode, up.body).toBe(201);
  const d = up.json().data;
  dicom = { id: d.id, study: d.dicom.studyInstanceUid, series: d.dicom.seriesInstanceUid, sop: d.dicom.sopInstanceUid };
  const sent = await t.request({
    method: 'POST',
    url: '/api/message/send',
    payload: { recipientId: providerA.user.id, content: 'hello doctor' },
    token: patientA.token,
  });
  expect(sent.statusCode).toBe(201);
  await t.app.ctx.services.images.idle();
  expect(codeIn(await t.smtp.lastTo(patientA.user.email))).toMatch(/^\d{6}$/);
  usersBefore = await countUsers();
}, 120_000);
afterAll(async () => t?.close());

interface Target {
  caller: () => SignedIn;
  who: string;
  url: () => string;
  /** The path for the test name, where url() needs the fixtures. */
  show?: string;
  params: string[];
  /** Strings this caller must never receive (objects of others). */
  hidden?: () => string[];
}

const qidoNamed = [
  'StudyInstanceUID',
  'SeriesInstanceUID',
  'SOPInstanceUID',
  'PatientID',
  'Modality',
  'ModalitiesInStudy',
  'limit',
  'offset',
  'includefield',
  'fuzzymatching',
];
const qidoParams = [
  'StudyInstanceUID',
  '0020000D',
  'SeriesInstanceUID',
  '0020000E',
  'SOPInstanceUID',
  '00080018',
  'PatientID',
  '00100020',
  'Modality',
  '00080060',
  'ModalitiesInStudy',
  '00080061',
  'limit',
  'offset',
  'includefield',
  'fuzzymatching',
];
const paging = ['page', 'limit'];
const hiddenDicom = () => [dicom.id, dicom.study, dicom.series, dicom.sop];

const TARGETS: Target[] = [
  {
    who: 'admin',
    caller: () => admin,
    url: () => '/api/users/',
    params: ['search', 'role', 'sort', 'order', 'pending', ...paging],
  },
  {
    who: 'provider B',
    caller: () => providerB,
    url: () => '/api/users/',
    params: ['search', 'role', 'sort', 'order', 'pending', ...paging],
  },
  {
    who: 'admin',
    caller: () => admin,
    url: () => '/api/audit/logs',
    params: ['search', 'action', 'from', 'to', ...paging],
  },
  {
    who: 'provider B',
    caller: () => providerB,
    url: () => '/api/audit/logs',
    params: ['search', 'action', 'from', 'to', ...paging],
    hidden: hiddenDicom,
  },
  {
    who: 'patient B',
    caller: () => patientB,
    url: () => '/api/message/users',
    params: ['search', ...paging],
  },
  {
    who: 'provider B',
    caller: () => providerB,
    url: () => '/api/message/users',
    params: ['search', ...paging],
  },
  {
    who: 'patient B',
    caller: () => patientB,
    url: () => '/api/message/chat-list',
    params: paging,
    hidden: () => ['hello doctor'],
  },
  {
    who: 'patient A',
    caller: () => patientA,
    url: () => `/api/message/chat/${providerA.user.id}`,
    show: '/api/message/chat/{provider A}',
    params: ['before', 'limit'],
  },
  {
    who: 'patient B',
    caller: () => patientB,
    url: () => `/api/message/chat/${providerA.user.id}`,
    show: '/api/message/chat/{provider A}',
    params: ['before', 'limit'],
    hidden: () => ['hello doctor'],
  },
  {
    who: 'patient B',
    caller: () => patientB,
    url: () => '/api/upload/shared-images',
    params: paging,
    hidden: hiddenDicom,
  },
  {
    who: 'provider B',
    caller: () => providerB,
    url: () => '/api/upload/my-images',
    params: paging,
    hidden: hiddenDicom,
  },
  { who: 'admin', caller: () => admin, url: () => '/api/upload/images', params: paging },
  {
    who: 'provider A',
    caller: () => providerA,
    url: () => `/api/analysis/${dicom.id}/history`,
    show: '/api/analysis/{DICOM A}/history',
    params: paging,
  },
  // Every QIDO key (tag aliases too) at study level; the same code serves the other levels.
  {
    who: 'patient B',
    caller: () => patientB,
    url: () => '/api/dicomweb/studies',
    params: qidoParams,
    hidden: hiddenDicom,
  },
  { who: 'provider A', caller: () => providerA, url: () => '/api/dicomweb/studies', params: qidoNamed },
  {
    who: 'patient B',
    caller: () => patientB,
    url: () => '/api/dicomweb/series',
    params: qidoNamed,
    hidden: hiddenDicom,
  },
  { who: 'provider A', caller: () => providerA, url: () => '/api/dicomweb/instances', params: qidoNamed },
  {
    who: 'provider B',
    caller: () => providerB,
    url: () => `/api/dicomweb/studies/${dicom.study}/series/${dicom.series}/instances`,
    show: '/api/dicomweb/studies/{A}/series/{A}/instances',
    params: qidoNamed,
    hidden: hiddenDicom,
  },
];

describe('injection payloads in list parameters', () => {
  const cases = TARGETS.flatMap((target) =>
    target.params.map(
      (param) => [`${target.who}: GET ${target.show ?? target.url()} ?${param}=…`, target, param] as const,
    ),
  );
  it.each(cases)('%s', async (_name, target, param) => {
    const token = target.caller().token;
    const baseline = await get(target.url(), token);
    expect(baseline.status).toBe(200);
    const visible = rowsOf(baseline.json());
    for (const payload of PAYLOADS) {
      const res = await get(target.url(), token, { [param]: payload });
      const label = `${param}=${JSON.stringify(payload.slice(0, 40))}`;
      expect(res.status, `${label}: ${res.body.slice(0, 200)}`).toBeLessThan(500);
      if (res.status === 200) {
        expect(rowsOf(res.json()), `${label} shows more rows than the caller sees`).toBeLessThanOrEqual(
          // Paging parameters only pick a window of the same rows.
          visible,
        );
      } else {
        expect(res.status, label).toBe(400);
        expect(res.json().success).toBe(false);
      }
      for (const secret of target.hidden?.() ?? []) expect(res.body, label).not.toContain(secret);
    }
  });
});

describe('injection payloads in path parameters', () => {
  const paths = [
    (p: string) => `/api/users/${p}`,
    (p: string) => `/api/message/chat/${p}`,
    (p: string) => `/api/images/${p}/content`,
    (p: string) => `/api/images/${p}/dicom/metadata`,
    (p: string) => `/api/analysis/${p}/history`,
    (p: string) => `/api/sharing/image/${p}`,
    (p: string) => `/api/dicomweb/studies/${p}/series`,
    (p: string) => `/api/dicomweb/studies/${p}/series/${p}/instances/${p}/metadata`,
  ];
  it.each(paths.map((p) => [p('{x}'), p] as const))('%s never answers 5xx', async (_name, path) => {
    for (const payload of PAYLOADS) {
      const res = await get(path(encodeURIComponent(payload)), admin.token);
      const label = `${JSON.stringify(payload.slice(0, 40))}: ${res.body.slice(0, 200)}`;
      expect(res.status, label).toBeLessThan(500);
      // A QIDO search under a study that cannot exist is an empty search, not an error.
      if (res.status === 200) expect(res.json(), label).toEqual([]);
    }
  });
});

describe('NUL characters', () => {
  it('are refused with 400 in JSON bodies too, before they reach the database', async () => {
    const bodies: Array<[string, string, object, () => string | undefined]> = [
      ['PUT', '/api/users/profile', { city: 'La\u0000hore' }, () => patientB.token],
      ['POST', '/api/message/send', { recipientId: providerA.user.id, content: 'hi\u0000' }, () => patientB.token],
      ['POST', '/api/appsetting/add', { setting: { name: 'nul_test', value: 'a\u0000b' } }, () => admin.token],
      ['POST', '/api/auth/login', { email: 'a\u0000b@example.org', password: 'whatever-long' }, () => undefined],
      ['POST', '/api/auth/forgot-password', { email: 'x\u0000@example.org' }, () => undefined],
    ];
    for (const [method, url, payload, token] of bodies) {
      const res = await t.request({ method: method as 'POST', url, payload, token: token() });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({
        success: false,
        errors: [expect.objectContaining({ field: expect.any(String) })],
      });
    }
  });
});

describe('multipart fields', () => {
  it('refuse NUL characters and injection text in the caption and file name without a 5xx', async () => {
    for (const text of ['Scan\u0000', "x' OR 1=1--", '"; DROP TABLE images;--', 'ünïcødé 🩻']) {
      const file = { ...fixture('other/photo_hopper_portrait.jpg') };
      const asCaption = await uploadFile(t, providerB.token, file, { caption: text });
      const asName = await uploadFile(t, providerB.token, { ...file, name: `${text}.jpg` }, { caption: 'ok' });
      for (const res of [asCaption, asName]) {
        expect(res.statusCode, `${JSON.stringify(text)}: ${res.body}`).toBeLessThan(500);
        if (text.includes('\u0000')) expect(res.statusCode, res.body).toBe(400);
        else expect(res.statusCode, res.body).toBe(201);
      }
    }
  });
});

describe('wildcards are taken literally', () => {
  const lastnames = async (url: string, token: string, search: string, field = 'lastname') =>
    ((await get(url, token, { search, limit: '50' })).json().data as Array<Record<string, string>>)
      .map((u) => u[field]!)
      .sort();

  it('in the users table search (prefix)', async () => {
    expect(await lastnames('/api/users/', admin.token, tag)).toEqual([`${tag}%pct`, `${tag}_one`, `${tag}xone`].sort());
    expect(await lastnames('/api/users/', admin.token, `${tag}_`)).toEqual([`${tag}_one`]);
    expect(await lastnames('/api/users/', admin.token, `${tag}%`)).toEqual([`${tag}%pct`]);
    expect(await lastnames('/api/users/', providerB.token, `${tag}_`)).toEqual([`${tag}_one`]);
    expect(await lastnames('/api/users/', admin.token, `${tag}\\`)).toEqual([]);
    expect(await lastnames('/api/users/', admin.token, '%')).toEqual([]);
    expect(await lastnames('/api/users/', admin.token, '_')).toEqual([]);
  });

  it('in the message recipients search (part of a name or e-mail)', async () => {
    expect(await lastnames('/api/message/users', providerB.token, `${tag}_`)).toEqual([`${tag}_one`]);
    expect(await lastnames('/api/message/users', providerB.token, `${tag}%`)).toEqual([`${tag}%pct`]);
    // As a wildcard '_' would also match the 'qxo' of the second name.
    expect(await lastnames('/api/message/users', providerB.token, 'q_o')).toEqual([`${tag}_one`]);
    // Patients only reach the care team: the patients above are not theirs to find.
    expect(await lastnames('/api/message/users', patientB.token, tag)).toEqual([]);
  });

  it('in the audit trail search (prefix of the acting user)', async () => {
    const actors = async (search: string) =>
      new Set(
        (
          (await get('/api/audit/logs', admin.token, { search, limit: '50' })).json().data as Array<{
            user: { id: string };
          }>
        ).map((r) => r.user.id),
      );
    expect(await actors(`${tag}_`)).toEqual(new Set([named.one]));
    expect(await actors(`${tag}%`)).toEqual(new Set([named.pct]));
    expect(await actors(`${tag}`)).toEqual(new Set([named.one, named.xone, named.pct]));
  });

  it('in DICOMweb matching, which is exact (no QIDO wildcards but `*` alone, universal matching)', async () => {
    const count = async (query: Record<string, string>, token = providerA.token) =>
      ((await get('/api/dicomweb/instances', token, query)).json() as unknown[]).length;
    expect(await count({})).toBe(1);
    expect(await count({ Modality: 'CT' })).toBe(1);
    for (const wildcard of ['C*', 'C?', '%', '_T', 'C%']) expect(await count({ Modality: wildcard }), wildcard).toBe(0);
    for (const wildcard of ['?', '%', '_', '1*']) expect(await count({ PatientID: wildcard }), wildcard).toBe(0);
    // PS3.4 C.2.2.2.4: `*` alone matches every value, as an empty value does; never more than without it.
    for (const key of ['Modality', 'PatientID', 'StudyInstanceUID']) expect(await count({ [key]: '*' }), key).toBe(1);
    expect(await count({ Modality: '*' }, providerB.token)).toBe(0);
    expect(await count({ StudyInstanceUID: `${dicom.study.slice(0, -1)}*` })).toBe(0);
    expect(await count({}, providerB.token)).toBe(0);
  });
});

describe('afterwards', () => {
  it('still has every user and a sound audit chain, and the admin still signs in', async () => {
    expect(await countUsers()).toBe(usersBefore);
    expect((await get('/api/users/', admin.token, { limit: '100' })).json().pagination.totalItems).toBe(usersBefore);
    expect((await t.app.ctx.services.audit.verifyChain()).ok).toBe(true);
    expect((await loginAdmin(t)).token).toBeTruthy();
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthRepository } from '../src/modules/auth/auth.repository.ts';
import { createTokenSigner } from '../src/modules/auth/tokens.ts';
import { fixture, multipartBody, uploadFile } from '../src/modules/images/images.test-helpers.ts';
import { generateStudy } from '../src/modules/studies/studies.test-helpers.ts';
import {
  type CellRequest,
  type Fixtures,
  IDENTITIES,
  type Identity,
  MATRIX,
  type MatrixRow,
  withToken,
} from './authz-matrix.ts';
import {
  type SignedIn,
  type TestApp,
  createTestApp,
  login,
  loginAdmin,
  newUser,
  shareImage,
  uniqueName,
} from './harness.ts';
import { codeIn } from './smtp.ts';

let t: TestApp;
let f: Fixtures;
let base: string;
/** What each identity may ever see in an answer; everyone else must never find it in any body. */
let secrets: Array<{ what: string; value: string; seenBy: Identity[] }>;

const jpg = () => fixture('other/photo_hopper_portrait.jpg');
/** Per-cell uploads are PDFs: no thumbnail to render, so hundreds of cells stay cheap. */
const pdf = () => fixture('other/minimal_document_1page.pdf');

async function shareMail(email: string) {
  await t.app.ctx.services.images.idle();
  const deadline = Date.now() + 5_000;
  while (!(await t.smtp.lastTo(email)).text.includes('Sharing id') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
  const mail = await t.smtp.lastTo(email);
  return { id: /Sharing id: ([0-9a-f-]{36})/.exec(mail.text)![1]!, code: codeIn(mail) };
}

async function call(req: CellRequest) {
  if (req.stream) {
    // An event stream never ends by itself: read the status line over a socket, then hang up.
    const controller = new AbortController();
    const res = await fetch(base + req.url, {
      headers: { accept: 'text/event-stream', ...(req.token ? { authorization: `Bearer ${req.token}` } : {}) },
      signal: controller.signal,
    });
    const body = res.status === 200 ? '' : await res.text();
    controller.abort();
    return { status: res.status, body };
  }
  const res = await t.request({
    method: req.method,
    url: req.url,
    ...(req.payload !== undefined ? { payload: req.payload as Buffer } : {}),
    ...(req.headers ? { headers: req.headers } : {}),
    ...(req.token ? { token: req.token } : {}),
  });
  return { status: res.statusCode, body: res.body };
}

/** A token for a provider who registered but was never approved: the API never issues one, so it is minted. */
async function pendingToken(userId: string): Promise<string> {
  const sid = randomUUID();
  const expiresAt = new Date(Date.now() + 3_600_000);
  await createAuthRepository(t.app.ctx.database.db).createSession({
    id: sid,
    userId,
    expiresAt,
    ip: null,
    userAgent: null,
  });
  return createTokenSigner(t.config.jwtSecret).sign({ sub: userId, sid }, expiresAt);
}

beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const admin = await loginAdmin(t);
  const [patientA, patientB, providerA, providerB, deactivated] = [
    await newUser(t, 'patient'),
    await newUser(t, 'patient'),
    await newUser(t, 'healthProvider'),
    await newUser(t, 'healthProvider'),
    await newUser(t, 'healthProvider'),
  ];
  const toggle = (id: string) =>
    t.request({ method: 'PUT', url: `/api/users/toggleUserStatus/${id}`, token: admin.token });
  expect((await toggle(deactivated.user.id)).json().data.active).toBe(false);

  // A provider who confirmed the e-mail and waits for approval.
  const pendingName = uniqueName('pending');
  const pendingEmail = `${pendingName}@example.org`;
  const reg = await t.request({
    method: 'POST',
    url: '/api/auth/register',
    payload: {
      role: 'healthProvider',
      email: pendingEmail,
      username: pendingName,
      password: 'Tr0ubadour-and-horse',
      firstname: 'Pending',
      lastname: pendingName,
    },
  });
  expect(reg.statusCode).toBe(201);
  const pendingId = reg.json().data.user.id as string;
  const confirm = await t.request({
    method: 'POST',
    url: '/api/auth/confirm',
    payload: { email: pendingEmail, code: codeIn(await t.smtp.lastTo(pendingEmail)) },
  });
  expect(confirm.json().data).toMatchObject({ pending: true });
  const pending: SignedIn = {
    token: await pendingToken(pendingId),
    user: { id: pendingId, email: pendingEmail, role: 'healthProvider' },
    password: 'Tr0ubadour-and-horse',
  };

  // Provider A's image and DICOM for patient A; patient A unlocks both with the mailed codes.
  const up = await uploadFile(t, providerA.token, jpg(), { caption: 'Image A', patientId: patientA.user.id });
  expect(up.statusCode, up.body).toBe(201);
  const imageA = up.json().data.id as string;
  const shareA = await shareMail(patientA.user.email);
  const verify = (s: { id: string; code: string }) =>
    t.request({
      method: 'POST',
      url: '/api/sharing/verify',
      payload: { sharingRequestId: s.id, verificationCode: s.code },
      token: patientA.token,
    });
  expect((await verify(shareA)).statusCode).toBe(200);
  const dcm = await uploadFile(t, providerA.token, fixture('dicom/ct_explicit_le_16bit_signed_small.dcm'), {
    caption: 'DICOM A',
    patientId: patientA.user.id,
  });
  expect(dcm.statusCode, dcm.body).toBe(201);
  const dicomItem = dcm.json().data;
  const dicomShare = await shareMail(patientA.user.email);
  expect((await verify(dicomShare)).statusCode).toBe(200);
  await t.app.ctx.services.images.idle();

  // A message from patient A to provider A, an analysis of image A, settings to edit and delete.
  const messageText = `private note ${randomUUID()}`;
  const sent = await t.request({
    method: 'POST',
    url: '/api/message/send',
    payload: { recipientId: providerA.user.id, content: messageText },
    token: patientA.token,
  });
  expect(sent.statusCode).toBe(201);
  expect((await t.request({ method: 'GET', url: `/api/analysis/${imageA}`, token: providerA.token })).statusCode).toBe(
    200,
  );
  const addSetting = async (name: string) => {
    const res = await t.request({
      method: 'POST',
      url: '/api/appsetting/add',
      payload: { setting: { name, value: '1', description: 'authorization matrix' } },
      token: admin.token,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.id as string;
  };
  const victim = async () => (await newUser(t, 'patient')).user.id;
  const loginTarget = await newUser(t, 'patient');

  /** Provider A shares an image with a user, who unlocks it with the mailed code when asked to. */
  const shareWith = (imageId: string, to: SignedIn, unlock: boolean) =>
    shareImage(t, imageId, providerA, to, { unlock });

  // Provider A shares a JPEG (no patient) by link; the link holder enters the code.
  const linkTo = async (imageId: string) => {
    const email = `${uniqueName('ext')}@elsewhere.example`;
    const res = await t.request({
      method: 'POST',
      url: '/api/external-shares/',
      payload: { imageId, recipientEmail: email },
      token: providerA.token,
    });
    expect(res.statusCode, res.body).toBe(201);
    const token = /\/x#([A-Za-z0-9_-]{43})/.exec((await t.smtp.lastTo(email)).text)![1]!;
    return { shareId: res.json().data.share.id as string, token, code: res.json().data.code as string };
  };
  const linkUpload = await uploadFile(t, providerA.token, jpg(), { caption: 'Shared by link' });
  const linkImage = linkUpload.json().data.id as string;
  await t.app.ctx.services.images.idle();
  const linkShare = await linkTo(linkImage);
  const redeemed = await t.request({
    method: 'POST',
    url: '/api/external/session',
    payload: { token: linkShare.token, code: linkShare.code },
  });
  expect(redeemed.statusCode, redeemed.body).toBe(200);
  const link = {
    imageId: linkImage,
    shareId: linkShare.shareId,
    token: linkShare.token,
    cookie: String(redeemed.headers['set-cookie']).split(';')[0]!,
  };

  const who = { patientA, patientB, providerA, providerB, pending, deactivated, admin };
  f = {
    who,
    imageA,
    dicomA: {
      id: dicomItem.id,
      study: dicomItem.dicom.studyInstanceUid,
      series: dicomItem.dicom.seriesInstanceUid,
      sop: dicomItem.dicom.sopInstanceUid,
    },
    shareA,
    link,
    freshLink: () => linkTo(linkImage),
    sharedWithB: { verified: '', unverified: '' },
    loginTarget: { email: loginTarget.user.email, password: loginTarget.password },
    messageText,
    settingEditable: await addSetting('authz_editable'),
    settingDeletable: await addSetting('authz_deletable'),
    victimToggle: await victim(),
    victimDelete: await victim(),
    async freshImage() {
      const res = await uploadFile(t, providerA.token, pdf(), { caption: 'Per-cell image' });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id;
    },
    async freshShare() {
      const id = await this.freshImage();
      const res = await t.request({
        method: 'POST',
        url: '/api/sharing/request',
        payload: { imagemetadataId: id, createdfor: patientB.user.id },
        token: providerA.token,
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data.id;
    },
    async freshImageSharedWithB() {
      const id = await this.freshImage();
      // Unverified is enough: the share alone makes the image known to provider B.
      await shareWith(id, providerB, false);
      return id;
    },
    async freshStudy() {
      const study = generateStudy([1]);
      const res = await uploadFile(t, providerA.token, study.series[0]!.instances[0]!.file, {
        caption: 'Per-cell study',
      });
      expect(res.statusCode, res.body).toBe(201);
      return study.studyUid;
    },
    async freshStudyShare() {
      const study = await this.freshStudy();
      const before = t.smtp.countTo(patientB.user.email);
      const res = await t.request({
        method: 'POST',
        url: `/api/studies/${study}/share`,
        payload: { createdfor: patientB.user.id },
        token: providerA.token,
      });
      expect(res.statusCode, res.body).toBe(201);
      while (t.smtp.countTo(patientB.user.email) === before) await new Promise((r) => setTimeout(r, 10));
      return { study, id: res.json().data.id, code: codeIn(await t.smtp.lastTo(patientB.user.email)) };
    },
    freshUser: (role) => newUser(t, role),
    async freshToken(identity) {
      if (identity === 'anonymous' || identity === 'linkHolder') return undefined;
      if (identity === 'pending') return pendingToken(pendingId);
      if (identity === 'deactivated') return deactivated.token;
      const u = who[identity];
      return (await login(t, u.user.email, u.password)).token;
    },
    async uploadBody() {
      const file = pdf();
      return multipartBody([
        ['caption', 'Matrix upload'],
        ['file', file],
      ]);
    },
    stowBody() {
      const study = generateStudy([1]);
      const boundary = `matrix-${uniqueName('b')}`;
      const payload = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`),
        study.series[0]!.instances[0]!.file.data,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const headers = { 'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}` };
      return { study: study.studyUid, payload, headers };
    },
    unique: uniqueName,
  };
  // JPEGs, since the analysis cells run on them.
  const jpegOfA = async () => {
    const res = await uploadFile(t, providerA.token, jpg(), { caption: 'Shared with B' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.id as string;
  };
  f.sharedWithB.verified = await jpegOfA();
  await shareWith(f.sharedWithB.verified, providerB, true);
  f.sharedWithB.unverified = await jpegOfA();
  await shareWith(f.sharedWithB.unverified, providerB, false);

  const owners: Identity[] = ['patientA', 'providerA', 'admin'];
  secrets = [
    { what: 'image A id', value: imageA, seenBy: owners },
    { what: 'DICOM A id', value: f.dicomA.id, seenBy: owners },
    { what: "DICOM A's study UID", value: f.dicomA.study, seenBy: owners },
    { what: "A's message text", value: messageText, seenBy: ['patientA', 'providerA'] },
    // Accounts that cannot act are in nobody's directory or recipient list but the admin's.
    { what: "the pending provider's id", value: pendingId, seenBy: ['admin', 'pending'] },
    { what: "the deactivated user's id", value: deactivated.user.id, seenBy: ['admin', 'deactivated'] },
    // Patients see the care team by name and role; an e-mail only of someone they already deal with
    // (patient A has a conversation with provider A, nobody has one with provider B or the admin).
    { what: "provider B's e-mail", value: providerB.user.email, seenBy: ['providerA', 'providerB', 'admin'] },
    { what: "the admin's e-mail", value: f.who.admin.user.email, seenBy: ['providerA', 'providerB', 'admin'] },
  ];
}, 120_000);
afterAll(async () => t?.close());

describe('the matrix covers the API', () => {
  it('has a row for every route of the OpenAPI document and no row for a route that does not exist', () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => ['get', 'post', 'put', 'delete', 'patch', 'options'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(new Set(MATRIX.map((r) => r.route))).toEqual(new Set(documented));
  });
});

const cells = MATRIX.flatMap((row) => IDENTITIES.map((who) => ({ row, who })));

describe('authorization matrix', () => {
  it.each(cells.map((c) => [`${c.row.route} [${c.row.variant}] as ${c.who}`, c] as const))(
    '%s',
    async (_name, { row, who }: { row: MatrixRow; who: Identity }) => {
      const req = withToken(await row.request(f, who), f, who);
      const res = await call(req);
      expect(res.status, res.body.slice(0, 300)).toBe(row.expect[who]);
      if (!row.mayNameObjects)
        for (const s of secrets)
          if (!s.seenBy.includes(who)) expect(res.body, `${who} must not learn ${s.what}`).not.toContain(s.value);
      row.check?.(res.body, f, who);
    },
  );
});

describe('the leak checks look for values that are really there', () => {
  it('finds each secret in an answer to someone allowed to see it', async () => {
    const as = async (who: 'patientA' | 'providerA', url: string) =>
      (await t.request({ method: 'GET', url, token: f.who[who].token })).body;
    const mine = await as('providerA', '/api/upload/my-images?limit=100');
    expect(mine).toContain(f.imageA);
    expect(mine).toContain(f.dicomA.id);
    expect(await as('patientA', '/api/dicomweb/studies')).toContain(f.dicomA.study);
    expect(await as('patientA', '/api/studies/?limit=100')).toContain(f.dicomA.study);
    expect(await as('patientA', `/api/message/chat/${f.who.providerA.user.id}`)).toContain(f.messageText);
    const recipients = await as('providerA', '/api/message/users?limit=50');
    expect(recipients).toContain(f.who.providerB.user.email);
    expect(recipients).toContain(f.who.admin.user.email);
    // A patient's contact: the e-mail is there for the provider they write with.
    expect(await as('patientA', '/api/message/users?limit=50')).toContain(f.who.providerA.user.email);
    const directory = (await t.request({ method: 'GET', url: '/api/users/?limit=100', token: f.who.admin.token })).body;
    expect(directory).toContain(f.who.pending.user.id);
    expect(directory).toContain(f.who.deactivated.user.id);
  });
});

describe('deactivation', () => {
  it('refuses the token a deactivated user held, even on routes that would otherwise answer 200', async () => {
    const res = await t.request({ method: 'GET', url: '/api/users/profile', token: f.who.deactivated.token });
    expect(res.statusCode).toBe(401);
    const email = f.who.deactivated.user.email;
    const mailed = t.smtp.countTo(email);
    // The password step answers as for an active account (no oracle); the refusal comes after the code.
    const relogin = await t.request({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: f.who.deactivated.password },
    });
    expect(relogin.statusCode).toBe(200);
    while (t.smtp.countTo(email) === mailed) await new Promise((r) => setTimeout(r, 10));
    const code = codeIn(await t.smtp.lastTo(email));
    const confirm = await t.request({ method: 'POST', url: '/api/auth/confirm', payload: { email, code } });
    expect(confirm.statusCode).toBe(403);
    expect(confirm.json().data?.token).toBeUndefined();
  });
});

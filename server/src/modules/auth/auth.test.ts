import { AuthMessages } from '@medshare/contracts';
import { SignJWT, UnsecuredJWT } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  type SignedIn,
  type TestApp,
  createTestApp,
  login,
  loginAdmin,
  newUser,
  uniqueName,
} from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { fixture, uploadFile } from '../images/images.test-helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const post = (url: string, payload: unknown, token?: string) =>
  t.request({ method: 'POST', url, payload: payload as object, token });
const profile = (token: string) => t.request({ method: 'GET', url: '/api/users/profile', token });

/**
 * The answers to `requests` sent while `mail` is held in the middle of its sending, then the mail
 * released. A request still waiting after 10 s waited for the mail: it is released then, and the
 * request's answer stands in as 'waited'.
 */
async function whileHeld(
  mail: { release: () => void },
  requests: Promise<{ statusCode: number }>[],
): Promise<{ statusCode: number | 'waited' }[]> {
  const waited = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 10_000));
  const answers = await Promise.all(
    requests.map((r) =>
      Promise.race([
        r.then((a) => ({ statusCode: a.statusCode })),
        waited.then(() => ({ statusCode: 'waited' as const })),
      ]),
    ),
  );
  mail.release();
  await Promise.allSettled(requests);
  return answers;
}

function registration(role: 'patient' | 'healthProvider', extra: Record<string, unknown> = {}) {
  const username = uniqueName('u');
  return {
    role,
    email: `${username}@Example.org`,
    username,
    password: 'A-long-enough-passphrase',
    firstname: 'Ada',
    lastname: 'Lovelace',
    active: true,
    ...extra,
  };
}

describe('registration', () => {
  it('holds no transaction while the registration mail is sent: others are served, then the account works', async () => {
    const other = await newUser(t, 'patient');
    const body = registration('patient');
    const mail = t.smtp.holdNext();
    const registering = post('/api/auth/register', body);
    await mail.reached;
    const [read] = await whileHeld(mail, [profile(other.token)]);
    expect(read!.statusCode).toBe(200);
    expect((await registering).statusCode).toBe(201);
    const confirm = await post('/api/auth/confirm', {
      email: body.email,
      code: codeIn(await t.smtp.lastTo(body.email)),
    });
    expect(confirm.statusCode, confirm.body).toBe(200);
  });

  it('checks a sign-in code against the one in hand while a re-sent one is being mailed', async () => {
    const u = await newUser(t, 'patient');
    expect((await post('/api/auth/login', { email: u.user.email, password: u.password })).statusCode).toBe(200);
    const inHand = codeIn(await t.smtp.lastTo(u.user.email));
    await sql`update one_time_codes set created_at = created_at - interval '2 minutes' where user_id = ${u.user.id}`.execute(
      t.app.ctx.database.db,
    );
    const mail = t.smtp.holdNext();
    await post('/api/auth/resend-code', { email: u.user.email });
    await mail.reached;
    const [confirmed] = await whileHeld(mail, [post('/api/auth/confirm', { email: u.user.email, code: inHand })]);
    expect(confirmed!.statusCode).toBe(200);
    await t.app.ctx.services.auth.settled();
    // The sign-in is over: the code mailed meanwhile opens no second session.
    const mailed = codeIn(await t.smtp.lastTo(u.user.email));
    expect(mailed).not.toBe(inHand);
    expect((await post('/api/auth/confirm', { email: u.user.email, code: mailed })).statusCode).toBe(400);
  });

  it('re-sends one code to resends sent at once', async () => {
    const u = await newUser(t, 'patient');
    expect((await post('/api/auth/login', { email: u.user.email, password: u.password })).statusCode).toBe(200);
    await t.smtp.lastTo(u.user.email);
    const before = t.smtp.countTo(u.user.email);
    await sql`update one_time_codes set created_at = created_at - interval '2 minutes' where user_id = ${u.user.id}`.execute(
      t.app.ctx.database.db,
    );
    await Promise.all(Array.from({ length: 4 }, () => post('/api/auth/resend-code', { email: u.user.email })));
    await t.app.ctx.services.auth.settled();
    expect(t.smtp.countTo(u.user.email)).toBe(before + 1);
    const open = await sql<{ n: number }>`select count(*)::int as n from one_time_codes
      where user_id = ${u.user.id} and purpose = 'verify' and consumed_at is null`.execute(t.app.ctx.database.db);
    expect(open.rows[0]!.n).toBe(1);
  });

  it('holds no transaction while a re-sent code is mailed, and the re-sent code then works', async () => {
    const u = await newUser(t, 'patient');
    const db = t.app.ctx.database.db;
    expect((await post('/api/auth/login', { email: u.user.email, password: u.password })).statusCode).toBe(200);
    const first = codeIn(await t.smtp.lastTo(u.user.email));
    await sql`update one_time_codes set created_at = created_at - interval '2 minutes' where user_id = ${u.user.id}`.execute(
      db,
    );
    const other = await newUser(t, 'patient');
    const mail = t.smtp.holdNext();
    await post('/api/auth/resend-code', { email: u.user.email });
    await mail.reached;
    const [read] = await whileHeld(mail, [profile(other.token)]);
    expect(read!.statusCode).toBe(200);
    await t.app.ctx.services.auth.settled();
    const second = codeIn(await t.smtp.lastTo(u.user.email));
    if (second !== first)
      expect((await post('/api/auth/confirm', { email: u.user.email, code: first })).statusCode).toBe(400);
    expect((await post('/api/auth/confirm', { email: u.user.email, code: second })).statusCode).toBe(200);
  });

  it('registers a patient, mails a 6-digit code and signs in on confirmation', async () => {
    const body = registration('patient', { dob: '1990-01-31', gender: 'Female', bloodgroup: 'A+' });
    const res = await post('/api/auth/register', body);
    expect(res.statusCode).toBe(201);
    const { user, pending } = res.json().data;
    expect(pending).toBe(false);
    expect(user).toMatchObject({
      role: 'patient',
      email: body.email.toLowerCase(),
      dob: '1990-01-31',
      gender: 'female',
      bloodgroup: 'A+',
      emailVerified: false,
    });
    expect(JSON.stringify(res.json())).not.toMatch(/password|hash/i);

    const code = codeIn(await t.smtp.lastTo(body.email));
    const confirm = await post('/api/auth/confirm', { email: body.email, code });
    expect(confirm.statusCode).toBe(200);
    const { token } = confirm.json().data;
    const me = await profile(token);
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toMatchObject({ id: user.id, emailVerified: true, dob: '1990-01-31' });
  });

  it('refuses self-registration as admin', async () => {
    const res = await post('/api/auth/register', registration('patient', { role: 'admin' }));
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(expect.objectContaining({ field: 'role' }));
  });

  it('ignores the active flag sent by the wizard: a provider stays pending', async () => {
    const body = registration('healthProvider', { active: true, licensenumber: 'LIC-1' });
    const res = await post('/api/auth/register', body);
    expect(res.statusCode).toBe(201);
    expect(res.json().data.pending).toBe(true);
    expect(res.json().message).toBe(AuthMessages.providerUnderReview);
    const code = codeIn(await t.smtp.lastTo(body.email));
    const confirm = await post('/api/auth/confirm', { email: body.email, code });
    expect(confirm.json()).toMatchObject({ data: { pending: true }, message: AuthMessages.providerUnderReview });
    expect(confirm.json().data.token).toBeUndefined();
  });

  it('answers per-field errors for bad input and unknown fields', async () => {
    const res = await post('/api/auth/register', {
      role: 'patient',
      email: 'nope',
      username: 'a',
      password: 'short',
      firstname: '',
      lastname: 'x',
      isAdmin: true,
    });
    expect(res.statusCode).toBe(400);
    const fields = res.json().errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['email', 'username', 'password', 'firstname', 'isAdmin']));
  });

  it('refuses common passwords and passwords containing the username', async () => {
    const common = await post('/api/auth/register', registration('patient', { password: 'password1234' }));
    expect(common.statusCode).toBe(400);
    expect(common.json().errors[0]).toMatchObject({ field: 'password', message: expect.stringMatching(/common/) });
    const body = registration('patient');
    const own = await post('/api/auth/register', { ...body, password: `${body.username}-secret-1` });
    expect(own.statusCode).toBe(400);
  });

  it('refuses a taken username, case-insensitively, with 409 naming only the username', async () => {
    const body = registration('patient');
    expect((await post('/api/auth/register', body)).statusCode).toBe(201);
    // With the e-mail taken too, the answer is the one a new e-mail gets: the username alone.
    for (const email of [body.email.toUpperCase(), `${uniqueName('free')}@example.org`]) {
      const again = await post('/api/auth/register', { ...body, email, username: body.username.toUpperCase() });
      expect(again.statusCode).toBe(409);
      expect(again.json().errors.map((e: { field: string }) => e.field)).toEqual(['username']);
    }
  });
});

describe('login with a second factor', () => {
  it('mails a code instead of a token, then signs in with it', async () => {
    const u = await newUser(t, 'patient');
    const res = await post('/api/auth/login', { email: u.user.email, password: u.password });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ otpRequired: true, email: u.user.email });
    expect(res.body).not.toMatch(/token/);
    const signedIn = await login(t, u.user.email, u.password);
    expect((await profile(signedIn.token)).statusCode).toBe(200);
  });

  it('gives the same answer for an unknown e-mail and a wrong password', async () => {
    const u = await newUser(t, 'patient');
    const wrong = await post('/api/auth/login', { email: u.user.email, password: 'not-the-password' });
    const unknown = await post('/api/auth/login', { email: 'nobody-here@example.org', password: 'not-the-password' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().message).toBe(unknown.json().message);
  });

  it('locks an e-mail for the address that sent five wrong passwords', async () => {
    const u = await newUser(t, 'patient');
    for (let i = 0; i < 5; i++)
      expect((await post('/api/auth/login', { email: u.user.email, password: `wrong-${i}-password` })).statusCode).toBe(
        401,
      );
    const locked = await post('/api/auth/login', { email: u.user.email, password: u.password });
    expect(locked.statusCode).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
  });

  it('locks the code after five wrong tries, even the right code afterwards', async () => {
    const u = await newUser(t, 'patient');
    await post('/api/auth/login', { email: u.user.email, password: u.password });
    const right = codeIn(await t.smtp.lastTo(u.user.email));
    const wrong = right === '000000' ? '111111' : '000000';
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await post('/api/auth/confirm', { email: u.user.email, code: wrong })).statusCode);
    expect(statuses).toEqual([400, 400, 400, 400, 429]);
    const late = await post('/api/auth/confirm', { email: u.user.email, code: right });
    expect(late.statusCode).toBe(429);
    expect(late.json().message).toBe(AuthMessages.signInCodeLocked);
  });

  it('takes each code once and only the newest', async () => {
    const u = await newUser(t, 'patient');
    await post('/api/auth/login', { email: u.user.email, password: u.password });
    const first = codeIn(await t.smtp.lastTo(u.user.email));
    const count = t.smtp.countTo(u.user.email);
    await post('/api/auth/login', { email: u.user.email, password: u.password });
    while (t.smtp.countTo(u.user.email) === count) await new Promise((r) => setTimeout(r, 10));
    const second = codeIn(await t.smtp.lastTo(u.user.email));
    if (first !== second)
      expect((await post('/api/auth/confirm', { email: u.user.email, code: first })).statusCode).toBe(400);
    expect((await post('/api/auth/confirm', { email: u.user.email, code: second })).statusCode).toBe(200);
    expect((await post('/api/auth/confirm', { email: u.user.email, code: second })).statusCode).toBe(400);
  });

  it('keeps a pending provider out until an admin approves, saying so only after the code', async () => {
    const body = registration('healthProvider');
    const reg = await post('/api/auth/register', body);
    const code = codeIn(await t.smtp.lastTo(body.email));
    await post('/api/auth/confirm', { email: body.email, code });
    // The password step answers as for any account; a wrong password as for any wrong password.
    const wrong = await post('/api/auth/login', { email: body.email, password: 'not-the-password' });
    expect(wrong.statusCode).toBe(401);
    const count = t.smtp.countTo(body.email);
    const right = await post('/api/auth/login', { email: body.email, password: body.password });
    expect(right.statusCode).toBe(200);
    expect(right.json()).toMatchObject({ data: { otpRequired: true }, message: AuthMessages.codeSent });
    while (t.smtp.countTo(body.email) === count) await new Promise((r) => setTimeout(r, 10));
    const pending = await post('/api/auth/confirm', {
      email: body.email,
      code: codeIn(await t.smtp.lastTo(body.email)),
    });
    expect(pending.json()).toMatchObject({ data: { pending: true }, message: AuthMessages.providerUnderReview });
    expect(pending.json().data.token).toBeUndefined();

    const admin = await loginAdmin(t);
    const approve = await t.request({
      method: 'PUT',
      url: `/api/users/toggleUserStatus/${reg.json().data.user.id}`,
      token: admin.token,
    });
    expect(approve.statusCode).toBe(200);
    expect((await t.smtp.lastTo(body.email)).subject).toMatch(/active/);
    const provider = await login(t, body.email, body.password);
    expect(provider.user.role).toBe('healthProvider');
  });

  it('refuses the approval endpoint to anyone without users:manage', async () => {
    const patient = await newUser(t, 'patient');
    const res = await t.request({
      method: 'PUT',
      url: `/api/users/toggleUserStatus/${patient.user.id}`,
      token: patient.token,
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('sessions', () => {
  it('logout revokes the token on the server, though the session was just served from memory', async () => {
    const u = await newUser(t, 'patient');
    expect((await profile(u.token)).statusCode).toBe(200);
    expect(t.app.ctx.sessionCache.size).toBeGreaterThan(0);
    expect((await post('/api/auth/logout', undefined, u.token)).statusCode).toBe(200);
    const after = await profile(u.token);
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toMatch(/Authentication failed/);
  });

  it('ends a session that has been idle longer than the setting', async () => {
    const u = await newUser(t, 'patient');
    await sql`update sessions set last_seen_at = now() - interval '31 minutes' where user_id = ${u.user.id}`.execute(
      t.app.ctx.database.db,
    );
    // Time passed in the database only: what this process read of the session a moment ago goes too.
    t.app.ctx.sessionCache.forget(null);
    const res = await profile(u.token);
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toMatch(/Token expired/);
  });

  it("tells the client its session's idle limit and end, and the question keeps the session alive", async () => {
    const admin = await loginAdmin(t);
    const settings = (await t.request({ method: 'GET', url: '/api/appsetting/', token: admin.token })).json()
      .data as Array<{
      id: string;
      name: string;
      value: string;
    }>;
    const idle = settings.find((s) => s.name === 'session_idle_minutes')!;
    const set = (value: string) =>
      t.request({
        method: 'PUT',
        url: `/api/appsetting/edit/${idle.id}`,
        token: admin.token,
        payload: { name: 'session_idle_minutes', value },
      });
    expect((await set('12')).statusCode).toBe(200);
    try {
      const u = await newUser(t, 'patient');
      const status = (token?: string) => t.request({ method: 'GET', url: '/api/auth/session', token });
      const res = await status(u.token);
      expect(res.statusCode).toBe(200);
      const { idleMinutes, expiresAt } = res.json().data;
      expect(idleMinutes).toBe(12);
      const { rows } = await sql<{
        expires_at: Date;
      }>`select expires_at from sessions where user_id = ${u.user.id}`.execute(t.app.ctx.database.db);
      expect(new Date(expiresAt).getTime()).toBe(rows[0]!.expires_at.getTime());
      const { expiresInMs } = res.json().data;
      expect(Math.abs(Date.now() + expiresInMs - rows[0]!.expires_at.getTime())).toBeLessThan(5_000);

      /** The session's idle time after asking, when its last use was `ago` before (a PostgreSQL interval). */
      const idleAfterAsking = async (ago: string) => {
        await sql`update sessions set last_seen_at = now() - ${ago}::interval where user_id = ${u.user.id}`.execute(
          t.app.ctx.database.db,
        );
        // Time passed in the database only: what this process read of the session goes too.
        t.app.ctx.sessionCache.forget(null);
        expect((await status(u.token)).statusCode).toBe(200);
        const seen = await sql<{ idle_s: number }>`
          select extract(epoch from now() - last_seen_at)::int as idle_s from sessions where user_id = ${u.user.id}`.execute(
          t.app.ctx.database.db,
        );
        return seen.rows[0]!.idle_s;
      };
      // Eleven minutes without a request: asking is activity, so the session lives on from now.
      expect(await idleAfterAsking('11 minutes')).toBeLessThan(60);
      // Noted at once, not up to a minute late as other requests are (the client counts on it).
      expect(await idleAfterAsking('40 seconds')).toBeLessThan(5);

      expect((await status()).statusCode).toBe(401);
      expect((await post('/api/auth/logout', undefined, u.token)).statusCode).toBe(200);
      expect((await status(u.token)).statusCode).toBe(401);
    } finally {
      expect((await set(idle.value)).statusCode).toBe(200);
    }
  });

  it('ends a session past its absolute lifetime', async () => {
    const u = await newUser(t, 'patient');
    await sql`update sessions set expires_at = now() - interval '1 second' where user_id = ${u.user.id}`.execute(
      t.app.ctx.database.db,
    );
    t.app.ctx.sessionCache.forget(null);
    expect((await profile(u.token)).statusCode).toBe(401);
  });

  it('throws a deactivated user out on the next request', async () => {
    const u = await newUser(t, 'patient');
    expect((await profile(u.token)).statusCode).toBe(200);
    const admin = await loginAdmin(t);
    const off = await t.request({ method: 'PUT', url: `/api/users/toggleUserStatus/${u.user.id}`, token: admin.token });
    expect(off.json().data.active).toBe(false);
    expect((await profile(u.token)).statusCode).toBe(401);
    // The password step answers as for an active account; the reason comes after the code.
    const wrong = await post('/api/auth/login', { email: u.user.email, password: 'not-the-password' });
    expect(wrong.statusCode).toBe(401);
    const count = t.smtp.countTo(u.user.email);
    const relog = await post('/api/auth/login', { email: u.user.email, password: u.password });
    expect(relog.statusCode).toBe(200);
    expect(relog.json().data).toEqual({ otpRequired: true, email: u.user.email });
    while (t.smtp.countTo(u.user.email) === count) await new Promise((r) => setTimeout(r, 10));
    const code = codeIn(await t.smtp.lastTo(u.user.email));
    const refused = await post('/api/auth/confirm', { email: u.user.email, code });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe(AuthMessages.accountDeactivated);
    expect(refused.json().data?.token).toBeUndefined();
  });

  it('refuses to deactivate the last active admin or oneself', async () => {
    const admin = await loginAdmin(t);
    const res = await t.request({
      method: 'PUT',
      url: `/api/users/toggleUserStatus/${admin.user.id}`,
      token: admin.token,
    });
    expect(res.statusCode).toBe(409);
  });

  it('refuses tampered, foreign, unsigned and malformed tokens', async () => {
    const u = await newUser(t, 'patient');
    const [h, p, s] = u.token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: '00000000-0000-0000-0000-000000000000' })).toString(
      'base64url',
    );
    const tampered = `${h}.${forged}.${s}`;
    const foreign = await new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(Buffer.from('x'.repeat(40)));
    const none = new UnsecuredJWT(payload).encode();
    for (const token of [tampered, foreign, none, 'garbage-token-value', `${u.token}x`]) {
      const res = await profile(token);
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toMatch(/Invalid token|Authentication failed/);
    }
    const noHeader = await t.request({ method: 'GET', url: '/api/users/profile' });
    expect(noHeader.json().message).toBe('Unauthenticated');
    const expired = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(t.config.jwtSecret);
    expect((await profile(expired)).json().message).toBe('Token expired');
  });
});

describe('password reset', () => {
  it('resets with the mailed code, ends every session and accepts the new password', async () => {
    const u = await newUser(t, 'patient');
    const forgot = await post('/api/auth/forgot-password', { email: u.user.email });
    expect(forgot.statusCode).toBe(200);
    await t.app.ctx.services.auth.settled();
    const mail = await t.smtp.lastTo(u.user.email);
    expect(mail.text).toMatch(/http:\/\/medshare\.test\/reset-password\?token=/);
    const res = await post('/api/auth/reset-password', {
      email: u.user.email,
      otp: codeIn(mail),
      newPassword: 'Brand-new-passphrase-9',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe(AuthMessages.passwordReset);
    expect((await profile(u.token)).statusCode).toBe(401);
    expect((await post('/api/auth/login', { email: u.user.email, password: u.password })).statusCode).toBe(401);
    await login(t, u.user.email, 'Brand-new-passphrase-9');
  });

  it('resets with the mailed link token, once', async () => {
    const u = await newUser(t, 'patient');
    await post('/api/auth/forgot-password', { email: u.user.email });
    await t.app.ctx.services.auth.settled();
    const token = decodeURIComponent(/token=([^\s]+)/.exec((await t.smtp.lastTo(u.user.email)).text)![1]!);
    expect((await post('/api/auth/reset-password', { token, password: 'Link-reset-passphrase-1' })).statusCode).toBe(
      200,
    );
    expect((await post('/api/auth/reset-password', { token, password: 'Link-reset-passphrase-2' })).statusCode).toBe(
      400,
    );
    expect((await profile(u.token)).statusCode).toBe(401);
  });

  it('answers forgot-password the same for unknown e-mails and sends nothing', async () => {
    const before = t.smtp.mails.length;
    const res = await post('/api/auth/forgot-password', { email: 'nobody-at-all@example.org' });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe(AuthMessages.forgotAnswer);
    await t.app.ctx.services.auth.settled();
    expect(t.smtp.mails.length).toBe(before);
  });

  it('answers forgot-password during an SMTP outage exactly as for an unknown e-mail, leaving no code', async () => {
    const u = await newUser(t, 'patient');
    t.smtp.setFailing(true);
    try {
      const known = await post('/api/auth/forgot-password', { email: u.user.email });
      const unknown = await post('/api/auth/forgot-password', { email: 'nobody-either@example.org' });
      await t.app.ctx.services.auth.settled();
      expect(known.statusCode).toBe(200);
      expect(known.body).toBe(unknown.body);
      const codes = await t.app.ctx.database.db
        .selectFrom('one_time_codes')
        .select('id')
        .where('user_id', '=', u.user.id)
        .where('purpose', '=', 'reset')
        .execute();
      expect(codes).toHaveLength(0);
    } finally {
      t.smtp.setFailing(false);
    }
  });

  it('spends about the same time on forgot-password for known and unknown e-mails', async () => {
    const u = await newUser(t, 'patient');
    const time = async (email: string) => {
      const start = process.hrtime.bigint();
      await post('/api/auth/forgot-password', { email });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      // The known address's reset mail is sent after the answer: let it finish outside the next
      // timing (it landed in the unknown address's and failed a CI run at load 6).
      await t.app.ctx.services.auth.settled();
      return ms;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 11; i++) {
      known.push(await time(u.user.email));
      unknown.push(await time(`nobody-${i}@example.org`));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // The leak this guards against is work done for one side only (a code hashed for a known
    // address, nothing for an unknown one: tens of ms against ~2). On a loaded machine both sides
    // slow down alike, so the bound grows with them instead of failing on scheduler noise.
    const [k, u2] = [median(known), median(unknown)];
    expect(Math.abs(k - u2)).toBeLessThan(Math.max(25, 0.5 * Math.max(k, u2)));
  });

  it('issues at most three reset codes per account per hour, answering the same each time', async () => {
    const u = await newUser(t, 'patient');
    const db = t.app.ctx.database.db;
    for (let i = 0; i < 5; i++) {
      const res = await post('/api/auth/forgot-password', { email: u.user.email });
      expect(res.json().message).toBe(AuthMessages.forgotAnswer);
      await t.app.ctx.services.auth.settled();
      // Age the newest code past the one-a-minute rule so only the hourly cap applies.
      await sql`update one_time_codes set created_at = now() - interval '2 minutes' where user_id = ${u.user.id} and purpose = 'reset'`.execute(
        db,
      );
    }
    const mails = t.smtp.mails.filter((m) => m.to.includes(u.user.email) && /Reset/.test(m.subject));
    expect(mails).toHaveLength(3);
  });

  it('issues one code and one mail to requests sent at once (the limits read under the account’s lock)', async () => {
    const u = await newUser(t, 'patient');
    const mails = () => t.smtp.mails.filter((m) => m.to.includes(u.user.email) && /Reset/.test(m.subject)).length;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post('/api/auth/forgot-password', { email: u.user.email })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
    await t.app.ctx.services.auth.settled();
    expect(mails()).toBe(1);
    const open = await sql<{ n: number }>`select count(*)::int as n from one_time_codes
      where user_id = ${u.user.id} and purpose = 'reset' and consumed_at is null`.execute(t.app.ctx.database.db);
    expect(open.rows[0]!.n).toBe(1);
  });

  it('holds no transaction while a reset mail is sent: the account signs in and is shared with, others are served', async () => {
    const u = await newUser(t, 'patient');
    const other = await newUser(t, 'patient');
    const provider = await newUser(t, 'healthProvider');
    const image = await uploadFile(t, provider.token, fixture('other/photo_hopper_portrait.jpg'), { caption: 'Held' });
    expect(image.statusCode).toBe(201);
    const mail = t.smtp.holdNext();
    await post('/api/auth/forgot-password', { email: u.user.email });
    await mail.reached;
    // Each of these waited for the mail while it was sent inside the reset's transaction (on PGlite,
    // every query of the server did).
    const answered = await whileHeld(mail, [
      profile(other.token),
      t.request({
        method: 'POST',
        url: '/api/sharing/request',
        token: provider.token,
        payload: { imagemetadataId: image.json().data.id, createdfor: u.user.id },
      }),
      post('/api/auth/login', { email: u.user.email, password: u.password }),
    ]);
    expect(answered.map((a) => a.statusCode)).toEqual([200, 201, 200]);
    await t.app.ctx.services.auth.settled();
    const resetMails = t.smtp.mails.filter((m) => m.to.includes(u.user.email) && /Reset/.test(m.subject));
    expect(resetMails).toHaveLength(1);
    // Once mailed, the code works.
    const reset = await post('/api/auth/reset-password', {
      email: u.user.email,
      otp: codeIn(resetMails[0]!),
      newPassword: 'Mailed-after-the-hold-passphrase-5',
    });
    expect(reset.statusCode, reset.body).toBe(200);
  });

  it('keeps the earlier reset link while the next mail cannot go out, and ends it once one does', async () => {
    const db = t.app.ctx.database.db;
    const linkIn = (mail: { text: string }) => decodeURIComponent(/token=([^\s]+)/.exec(mail.text)![1]!);
    const forgot = async (u: SignedIn) => {
      // Past the one-a-minute rule each time.
      await sql`update one_time_codes set created_at = now() - interval '2 minutes' where user_id = ${u.user.id} and purpose = 'reset'`.execute(
        db,
      );
      await post('/api/auth/forgot-password', { email: u.user.email });
      await t.app.ctx.services.auth.settled();
    };
    const resetCodes = async (u: SignedIn) =>
      (
        await sql<{ open: boolean }>`select consumed_at is null as open from one_time_codes
          where user_id = ${u.user.id} and purpose = 'reset' order by created_at`.execute(db)
      ).rows.map((r) => r.open);

    // The next mail fails: its code is gone (it counts toward no limit), and the first link works.
    const failed = await newUser(t, 'patient');
    await forgot(failed);
    const kept = linkIn(await t.smtp.lastTo(failed.user.email));
    t.smtp.setFailing(true);
    try {
      await forgot(failed);
    } finally {
      t.smtp.setFailing(false);
    }
    expect(await resetCodes(failed)).toEqual([true]);
    const reset = await post('/api/auth/reset-password', { token: kept, password: 'The-first-link-still-works-6' });
    expect(reset.statusCode, reset.body).toBe(200);

    // The next mail goes out: the first link ends, the second works.
    const mailed = await newUser(t, 'patient');
    await forgot(mailed);
    const first = linkIn(await t.smtp.lastTo(mailed.user.email));
    await forgot(mailed);
    const second = linkIn(await t.smtp.lastTo(mailed.user.email));
    expect(second).not.toBe(first);
    expect(await resetCodes(mailed)).toEqual([false, true]);
    expect(
      (await post('/api/auth/reset-password', { token: first, password: 'The-first-link-has-ended-7' })).statusCode,
    ).toBe(400);
    expect(
      (await post('/api/auth/reset-password', { token: second, password: 'The-second-link-works-8' })).statusCode,
    ).toBe(200);
  });

  it('checks a reset code against the one in hand while the next is being mailed', async () => {
    const u = await newUser(t, 'patient');
    await post('/api/auth/forgot-password', { email: u.user.email });
    await t.app.ctx.services.auth.settled();
    const inHand = codeIn(await t.smtp.lastTo(u.user.email));
    await sql`update one_time_codes set created_at = now() - interval '2 minutes' where user_id = ${u.user.id} and purpose = 'reset'`.execute(
      t.app.ctx.database.db,
    );
    const mail = t.smtp.holdNext();
    await post('/api/auth/forgot-password', { email: u.user.email });
    await mail.reached;
    const [reset] = await whileHeld(mail, [
      post('/api/auth/reset-password', { email: u.user.email, otp: inHand, newPassword: 'Typed-while-mailing-pass-9' }),
    ]);
    expect(reset!.statusCode).toBe(200);
    await t.app.ctx.services.auth.settled();
  });

  it('ends every code issued before a reset: a sign-in code asked for with the old password no longer works', async () => {
    const u = await newUser(t, 'patient');
    expect((await post('/api/auth/login', { email: u.user.email, password: u.password })).statusCode).toBe(200);
    const signInCode = codeIn(await t.smtp.lastTo(u.user.email));
    await post('/api/auth/forgot-password', { email: u.user.email });
    await t.app.ctx.services.auth.settled();
    const otp = codeIn(await t.smtp.lastTo(u.user.email));
    const reset = await post('/api/auth/reset-password', {
      email: u.user.email,
      otp,
      newPassword: 'After-the-reset-passphrase-4',
    });
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await post('/api/auth/confirm', { email: u.user.email, code: signInCode })).statusCode).toBe(400);
  });

  it('does not let a weak new password through', async () => {
    const u = await newUser(t, 'patient');
    await post('/api/auth/forgot-password', { email: u.user.email });
    await t.app.ctx.services.auth.settled();
    const code = codeIn(await t.smtp.lastTo(u.user.email));
    const res = await post('/api/auth/reset-password', { email: u.user.email, otp: code, newPassword: 'qwertyuiop' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('newPassword');
  });
});

describe('bad input never answers 5xx', () => {
  const routes = [
    '/api/auth/register',
    '/api/auth/login',
    '/api/auth/confirm',
    '/api/auth/resend-code',
    '/api/auth/forgot-password',
    '/api/auth/reset-password',
  ];
  const bodies: Array<{ payload: string; type?: string }> = [
    { payload: '{not json' },
    { payload: '[]' },
    { payload: 'null' },
    { payload: '"string"' },
    { payload: '{"email": 5, "password": {"$gt": ""}, "code": [1]}' },
    { payload: JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(5000), extra: true }) },
    { payload: 'email=a&password=b', type: 'application/x-www-form-urlencoded' },
    { payload: '', type: 'application/json' },
    { payload: JSON.stringify({ email: 'x'.repeat(2 * 1024 * 1024) }) },
  ];
  for (const route of routes) {
    it(`answers 4xx with the envelope on ${route}`, async () => {
      for (const b of bodies) {
        const res = await t.request({
          method: 'POST',
          url: route,
          payload: b.payload,
          headers: { 'content-type': b.type ?? 'application/json' },
        });
        expect(res.statusCode, `${route} ${b.payload.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode).toBeLessThan(500);
        expect(res.json()).toMatchObject({ success: false, message: expect.any(String) });
      }
    });
  }
});

describe('audit trail', () => {
  it('records auth events in a chain that verifies', async () => {
    await newUser(t, 'patient');
    const rows = await t.app.ctx.database.db.selectFrom('audit_logs').select('action_type').execute();
    const actions = new Set(rows.map((r) => r.action_type));
    for (const a of ['auth.register', 'auth.confirm', 'auth.login']) expect(actions).toContain(a);
    expect((await t.app.ctx.services.audit.verifyChain()).ok).toBe(true);
  });

  it('refuses UPDATE and DELETE on audit rows in the database itself', async () => {
    const db = t.app.ctx.database.db;
    await expect(sql`update audit_logs set reason = 'x'`.execute(db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_logs`.execute(db)).rejects.toThrow(/append-only/);
  });

  it('never writes a password or a code into the audit trail', async () => {
    const rows = await t.app.ctx.database.db.selectFrom('audit_logs').selectAll().execute();
    const text = JSON.stringify(rows);
    expect(text).not.toContain(ADMIN.password);
    expect(text).not.toMatch(/Tr0ubadour/);
  });
});

import { AuthMessages } from '@medshare/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp, login, newUser, uniqueName } from '../../../test/harness.ts';
import { codeIn } from '../../../test/smtp.ts';
import { type PasswordHasher, createPasswordHasher } from '../../crypto/passwords.ts';
import { userAccounts } from '../users/accounts.ts';
import { createAuthService } from './auth.service.ts';
import { createTokenSigner } from './tokens.ts';
import { DEFAULT_THROTTLE_LIMITS, THROTTLED_MESSAGE, keyOf } from './auth-throttle.ts';
import { createAuthThrottleRepository } from './auth-throttle.repository.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const post = (url: string, payload: unknown, remoteAddress = '127.0.0.1') =>
  t.request({ method: 'POST', url, payload: payload as object, remoteAddress });
const signIn = (email: string, password: string, remoteAddress?: string) =>
  post('/api/auth/login', { email, password }, remoteAddress);
const db = () => t.app.ctx.database.db;
const settle = () => t.app.ctx.services.auth.settled();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function timed<T>(work: () => Promise<T>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}
/** Ages the account's sign-in codes past the once-a-minute rule. */
const ageCodes = (userId: string) =>
  sql`update one_time_codes set created_at = created_at - interval '2 minutes' where user_id = ${userId} and purpose = 'verify'`.execute(
    db(),
  );
const codeMails = (email: string) =>
  t.smtp.mails.filter((m) => m.to.includes(email) && /code|Confirm/i.test(m.subject));
async function nextMailTo(email: string, count: number) {
  while (t.smtp.countTo(email) === count) await new Promise((r) => setTimeout(r, 10));
  return t.smtp.lastTo(email);
}

describe('password tries are throttled per (e-mail, address) and per address, not per account', () => {
  it('a pair locked by five wrong passwords leaves the owner free to sign in from another address', async () => {
    const u = await newUser(t, 'patient');
    for (let i = 0; i < 5; i++)
      expect((await signIn(u.user.email, `wrong-${i}-password`, '10.1.0.1')).statusCode).toBe(401);
    const locked = await signIn(u.user.email, u.password, '10.1.0.1');
    expect(locked.statusCode).toBe(429);
    expect(locked.json().message).toBe(THROTTLED_MESSAGE);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(14 * 60);
    // The attacker's address is locked; the owner's is not.
    expect((await signIn(u.user.email, u.password, '10.1.0.2')).statusCode).toBe(200);
  });

  it('counts an IPv6 /64 as one address: its other addresses find the pair locked, another /64 does not', async () => {
    const u = await newUser(t, 'patient');
    for (let i = 0; i < 5; i++)
      expect((await signIn(u.user.email, `wrong-${i}-password`, `2001:db8:7:1::${i + 1}`)).statusCode).toBe(401);
    for (const address of ['2001:db8:7:1::99', '2001:db8:7:1:ffff:ffff:ffff:ffff'])
      expect((await signIn(u.user.email, `wrong-password-${address}`, address)).statusCode).toBe(429);
    expect((await signIn(u.user.email, u.password, '2001:db8:7:2::1')).statusCode).toBe(200);
  });

  it('answers an unknown e-mail exactly like a known one, before and after the lock (the admin too)', async () => {
    const u = await newUser(t, 'patient');
    const run = async (email: string, address: string) => {
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await signIn(email, `wrong-${i}-password`, address));
      return answers;
    };
    const known = await run(u.user.email, '10.1.1.1');
    const unknown = await run(`nobody-${uniqueName('x')}@example.org`, '10.1.1.2');
    const admin = await run('admin@test.medshare', '10.1.1.3');
    for (const answers of [known, unknown, admin]) {
      expect(answers.map((r) => r.statusCode)).toEqual([401, 401, 401, 401, 401, 429]);
      expect(answers.map((r) => r.body)).toEqual(known.map((r) => r.body));
      expect(
        Math.abs(Number(answers[5]!.headers['retry-after']) - Number(known[5]!.headers['retry-after'])),
      ).toBeLessThan(3);
    }
    // The admin signs in from its own address meanwhile.
    expect((await signIn('admin@test.medshare', 'Admin-password-for-tests-1', '10.1.1.4')).statusCode).toBe(200);
  });

  it('doubles each lock of a pair from 15 min to at most 24 h: 15 guesses in the first hour, 35 in a day', async () => {
    const repo = createAuthThrottleRepository(db());
    const rule = { every: 5, baseMinutes: 15, maxMinutes: 24 * 60, forgetMinutes: 24 * 60 };
    expect(DEFAULT_THROTTLE_LIMITS).toMatchObject({ pairEvery: 5, pairLockMinutes: 15, pairLockMaxMinutes: 1440 });
    const key = `test-pair-${uniqueName('k')}`;
    const locks: number[] = [];
    for (let lock = 0; lock < 10; lock++) {
      for (let i = 0; i < 5; i++) expect(await repo.takeLockedTry(key, rule)).not.toBeNull();
      expect(await repo.takeLockedTry(key, rule)).toBeNull();
      const until = (await repo.lockedUntil(key))!;
      locks.push(Math.round((until.getTime() - Date.now()) / 60_000));
      // The lock has passed.
      await sql`update auth_throttles set locked_until = now() - interval '1 second' where key = ${key}`.execute(db());
    }
    expect(locks).toEqual([15, 30, 60, 120, 240, 480, 960, 1440, 1440, 1440]);
    // Guesses an attacker gets on one e-mail from one address: 5 at once, 5 more after each lock.
    const guessesWithin = (minutes: number) => {
      let at = 0;
      let guesses = 0;
      for (const lock of locks) {
        if (at > minutes) break;
        guesses += 5;
        at += lock;
      }
      return guesses;
    };
    expect(guessesWithin(59)).toBe(15);
    expect(guessesWithin(24 * 60 - 1)).toBe(35);
  });

  it('throttles an address after 100 wrong passwords in an hour, whatever the e-mails, known or not', async () => {
    const u = await newUser(t, 'patient');
    const address = '10.1.2.1';
    expect(DEFAULT_THROTTLE_LIMITS.addressPerHour).toBe(100);
    // A right password gives its try back: the budget counts wrong passwords only.
    expect((await signIn(u.user.email, u.password, address)).statusCode).toBe(200);
    const statuses = new Set<number>();
    for (let i = 0; i < 100; i++)
      statuses.add((await signIn(`spray-${i}-${uniqueName('s')}@example.org`, 'Wrong-password-1', address)).statusCode);
    expect([...statuses]).toEqual([401]);
    const spent = await signIn(u.user.email, u.password, address);
    expect(spent.statusCode).toBe(429);
    expect(spent.json().message).toBe(THROTTLED_MESSAGE);
    expect(Number(spent.headers['retry-after'])).toBeGreaterThan(50 * 60);
    expect((await signIn(u.user.email, u.password, '10.1.2.2')).statusCode).toBe(200);
  });

  it('counts parallel wrong passwords before checking them: no more than five get through', async () => {
    const u = await newUser(t, 'patient');
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => signIn(u.user.email, `parallel-${i}-password`, '10.1.3.1')),
    );
    expect(answers.filter((r) => r.statusCode === 401)).toHaveLength(5);
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(7);
  });

  it('a password reset through the mailbox lifts the lock of the device that did it', async () => {
    const u = await newUser(t, 'patient');
    for (let i = 0; i < 5; i++) await signIn(u.user.email, `wrong-${i}-password`, '10.1.4.1');
    expect((await signIn(u.user.email, u.password, '10.1.4.1')).statusCode).toBe(429);
    await post('/api/auth/forgot-password', { email: u.user.email }, '10.1.4.1');
    await settle();
    const reset = await post(
      '/api/auth/reset-password',
      {
        email: u.user.email,
        otp: codeIn(await t.smtp.lastTo(u.user.email)),
        newPassword: 'Fresh-passphrase-after-lock',
      },
      '10.1.4.1',
    );
    expect(reset.statusCode).toBe(200);
    expect((await signIn(u.user.email, 'Fresh-passphrase-after-lock', '10.1.4.1')).statusCode).toBe(200);
  });

  it('forgets expired counters (the table stays bounded)', async () => {
    await sql`insert into auth_throttles (key, hits, window_ends_at, expires_at) values ('old', 3, now(), now() - interval '1 minute')`.execute(
      db(),
    );
    await createAuthThrottleRepository(db()).prune();
    const left = await db().selectFrom('auth_throttles').select('key').where('key', '=', 'old').execute();
    expect(left).toHaveLength(0);
  });
});

describe('resend-code only within a sign-in that passed the password', () => {
  it('sends nothing when no sign-in is open, answering the same', async () => {
    const u = await newUser(t, 'patient');
    await ageCodes(u.user.id);
    const before = t.smtp.countTo(u.user.email);
    const known = await post('/api/auth/resend-code', { email: u.user.email });
    const unknown = await post('/api/auth/resend-code', { email: 'nobody-resend@example.org' });
    // A wrong password opens nothing either.
    await signIn(u.user.email, 'not-the-password');
    const afterWrong = await post('/api/auth/resend-code', { email: u.user.email });
    await settle();
    expect(known.statusCode).toBe(200);
    expect(known.body).toBe(unknown.body);
    expect(afterWrong.body).toBe(unknown.body);
    expect(t.smtp.countTo(u.user.email)).toBe(before);
  });

  it('re-sends an open sign-in code once it is a minute old; the new one works', async () => {
    const u = await newUser(t, 'patient');
    const count = t.smtp.countTo(u.user.email);
    await signIn(u.user.email, u.password);
    const first = codeIn(await nextMailTo(u.user.email, count));
    await ageCodes(u.user.id);
    await post('/api/auth/resend-code', { email: u.user.email });
    await settle();
    const second = codeIn(await nextMailTo(u.user.email, count + 1));
    if (first !== second)
      expect((await post('/api/auth/confirm', { email: u.user.email, code: first })).statusCode).toBe(400);
    expect((await post('/api/auth/confirm', { email: u.user.email, code: second })).statusCode).toBe(200);
  });

  it('re-sends only within an hour of the password check, however often it re-sent meanwhile', async () => {
    const u = await newUser(t, 'patient');
    const count = t.smtp.countTo(u.user.email);
    await signIn(u.user.email, u.password);
    await nextMailTo(u.user.email, count);
    await ageCodes(u.user.id);
    // An hour after the password: the code chain could be kept alive by resends alone, so it ends.
    await sql`update auth_throttles set window_ends_at = now() - interval '1 second' where key = ${keyOf('signin', u.user.id)}`.execute(
      db(),
    );
    await post('/api/auth/resend-code', { email: u.user.email });
    await settle();
    expect(t.smtp.countTo(u.user.email)).toBe(count + 1);
  });

  it('a locked code ends the sign-in: no resend, the right code stays refused, the password starts anew', async () => {
    const u = await newUser(t, 'patient');
    const count = t.smtp.countTo(u.user.email);
    await signIn(u.user.email, u.password);
    const right = codeIn(await nextMailTo(u.user.email, count));
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await post('/api/auth/confirm', { email: u.user.email, code: wrong });
    await ageCodes(u.user.id);
    const resend = await post('/api/auth/resend-code', { email: u.user.email });
    await settle();
    expect(resend.statusCode).toBe(200);
    expect(t.smtp.countTo(u.user.email)).toBe(count + 1);
    const late = await post('/api/auth/confirm', { email: u.user.email, code: right });
    expect(late.statusCode).toBe(429);
    expect(late.json().message).toBe(AuthMessages.signInCodeLocked);
    expect((await login(t, u.user.email, u.password)).token).toBeTruthy();
  });

  it('re-sends at most three codes per account an hour; a lock does not give any back', async () => {
    const u = await newUser(t, 'patient');
    const before = codeMails(u.user.email).length;
    await signIn(u.user.email, u.password);
    await nextMailTo(u.user.email, t.smtp.countTo(u.user.email) - 1);
    for (let i = 0; i < 5; i++) {
      await ageCodes(u.user.id);
      await post('/api/auth/resend-code', { email: u.user.email });
      await settle();
    }
    expect(codeMails(u.user.email).length - before).toBe(1 + 3);
    // Lock the newest code, sign in again with the password: the resend budget is still spent.
    const code = codeIn(await t.smtp.lastTo(u.user.email));
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await post('/api/auth/confirm', { email: u.user.email, code: wrong });
    const count = t.smtp.countTo(u.user.email);
    await signIn(u.user.email, u.password);
    await nextMailTo(u.user.email, count);
    await ageCodes(u.user.id);
    await post('/api/auth/resend-code', { email: u.user.email });
    await settle();
    expect(t.smtp.countTo(u.user.email)).toBe(count + 1);
    const audit = await db()
      .selectFrom('audit_logs')
      .select('reason')
      .where('user_id', '=', u.user.id)
      .where('action_type', '=', 'auth.code.resend')
      .where('status', '=', 'failure')
      .execute();
    expect(audit.length).toBeGreaterThanOrEqual(1);
  });

  it('does the same work before answering with an open code, without one and for an unknown e-mail', async () => {
    const { database, mailer, services, log } = t.app.ctx;
    const real = createPasswordHasher(t.config.argon2);
    const work: string[] = [];
    const hasher: PasswordHasher = {
      hash: async (value) => (work.push('hash'), real.hash(value)),
      verify: async (hash, value) => (work.push('verify'), real.verify(hash, value)),
    };
    const auth = createAuthService({
      db: database.db,
      hasher,
      mailer,
      audit: services.audit,
      settings: services.settings,
      tokens: createTokenSigner(t.config.jwtSecret),
      accounts: userAccounts,
      log,
      publicUrl: 'http://medshare.test',
    });
    const open = await newUser(t, 'patient');
    const count = t.smtp.countTo(open.user.email);
    await signIn(open.user.email, open.password);
    await nextMailTo(open.user.email, count);
    await ageCodes(open.user.id);
    const closed = await newUser(t, 'patient');
    const answered = async (email: string) => {
      work.length = 0;
      const before = t.smtp.mails.length;
      await auth.resendCode(email, { ip: '127.0.0.1', userAgent: null });
      const seen = { work: [...work], mailsBeforeAnswer: t.smtp.mails.length - before };
      await auth.settled();
      return seen;
    };
    const withCode = await answered(open.user.email);
    const withoutCode = await answered(closed.user.email);
    const unknown = await answered('nobody-counted@example.org');
    expect(withCode).toEqual({ work: ['hash'], mailsBeforeAnswer: 0 });
    expect(withoutCode).toEqual(withCode);
    expect(unknown).toEqual(withCode);
    // The code did go out, after the answer.
    await nextMailTo(open.user.email, count + 1);
  });

  it('spends about the same time with an open code as without one', async () => {
    const open: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < 7; i++) {
      const u = await newUser(t, 'patient');
      const count = t.smtp.countTo(u.user.email);
      await signIn(u.user.email, u.password);
      await nextMailTo(u.user.email, count);
      await ageCodes(u.user.id);
      await settle();
      open.push(await timed(() => post('/api/auth/resend-code', { email: u.user.email })));
      await settle();
      none.push(await timed(() => post('/api/auth/resend-code', { email: `nobody-${i}-resend@example.org` })));
      await settle();
    }
    // Each answer hashes one code; the mail goes out after answering. Loose, like forgot-password's: a shared machine.
    expect(Math.abs(median(open) - median(none))).toBeLessThan(25);
  });
});

describe('registration with an e-mail that already has an account', () => {
  const body = (email: string, role: 'patient' | 'healthProvider' = 'patient') => {
    const username = uniqueName('reg');
    return {
      role,
      email,
      username,
      password: 'Tr0ubadour-and-horse',
      firstname: 'Grace',
      lastname: 'Hopper',
      dob: '1906-12-09',
      bloodgroup: 'O+',
    };
  };

  it('answers as for a new account, creates nothing and mails the owner instead of a code', async () => {
    const owner = await newUser(t, 'patient');
    const fresh = await post('/api/auth/register', body(`${uniqueName('new')}@example.org`));
    const before = t.smtp.countTo(owner.user.email);
    const taken = await post('/api/auth/register', body(owner.user.email.toUpperCase()));
    expect(taken.statusCode).toBe(201);
    expect(fresh.statusCode).toBe(201);
    expect(taken.json().message).toBe(fresh.json().message);
    expect(Object.keys(taken.json().data.user).sort()).toEqual(Object.keys(fresh.json().data.user).sort());
    expect(taken.json().data).toMatchObject({
      pending: false,
      user: { email: owner.user.email, emailVerified: false, active: true, dob: '1906-12-09', bloodgroup: 'O+' },
    });
    expect(taken.json().data.user.id).not.toBe(owner.user.id);
    const accounts = await db().selectFrom('users').select('id').where('email', '=', owner.user.email).execute();
    expect(accounts).toHaveLength(1);
    const mail = await nextMailTo(owner.user.email, before);
    expect(t.smtp.countTo(owner.user.email)).toBe(before + 1);
    expect(mail.subject).toMatch(/tried to register/);
    expect(mail.text).toMatch(/http:\/\/medshare\.test\/forgot-password/);
    expect(mail.text).not.toMatch(/\b\d{6}\b/);
    // The owner's account is untouched.
    expect((await login(t, owner.user.email, owner.password)).token).toBeTruthy();

    const provider = await post('/api/auth/register', body(owner.user.email, 'healthProvider'));
    expect(provider.statusCode).toBe(201);
    expect(provider.json()).toMatchObject({ data: { pending: true }, message: AuthMessages.providerUnderReview });
  });

  it('mails the owner at most three times an hour, however many attempts, and audits every one', async () => {
    const owner = await newUser(t, 'patient');
    const before = t.smtp.countTo(owner.user.email);
    for (let i = 0; i < 8; i++) {
      const answer = await post('/api/auth/register', body(owner.user.email), `10.7.0.${i + 1}`);
      expect(answer.statusCode).toBe(201);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(t.smtp.countTo(owner.user.email) - before).toBe(3);
    const rows = await db()
      .selectFrom('audit_logs')
      .select('reason')
      .where('action_type', '=', 'auth.register')
      .where('record_id', '=', owner.user.id)
      .where('status', '=', 'failure')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.reason)).toEqual([
      ...Array(3).fill('e-mail already registered; owner told by mail'),
      ...Array(5).fill("e-mail already registered; owner not told again (this hour's mails sent)"),
    ]);
  });

  it('refuses an impossible date of birth alike (400) for a new and a taken e-mail', async () => {
    const owner = await newUser(t, 'patient');
    for (const dob of ['0000-01-01', '9999-12-31']) {
      const fresh = await post('/api/auth/register', { ...body(`${uniqueName('new')}@example.org`), dob });
      const taken = await post('/api/auth/register', { ...body(owner.user.email), dob });
      expect(fresh.statusCode, `${dob}: ${fresh.body}`).toBe(400);
      expect(taken.json()).toEqual(fresh.json());
    }
  });

  it('fails alike during an SMTP outage, also past the hour’s mails to the owner', async () => {
    const owner = await newUser(t, 'patient');
    const other = await newUser(t, 'patient');
    t.smtp.setFailing(true);
    try {
      const fresh = await post('/api/auth/register', body(`${uniqueName('new')}@example.org`));
      const taken = await post('/api/auth/register', body(owner.user.email));
      expect(fresh.statusCode).toBeGreaterThanOrEqual(500);
      expect(taken.statusCode).toBe(fresh.statusCode);
      expect(taken.json()).toEqual(fresh.json());
      // The owner's mails for the hour sent, then the outage: no mail would be sent, yet it fails alike.
      t.smtp.setFailing(false);
      for (let i = 0; i < 3; i++) await post('/api/auth/register', body(owner.user.email));
      t.smtp.setFailing(true);
      // Any mail of the process failing tells (here a reset mail, sent after its answer).
      await post('/api/auth/forgot-password', { email: other.user.email });
      await settle();
      const takenAgain = await post('/api/auth/register', body(owner.user.email));
      const freshAgain = await post('/api/auth/register', body(`${uniqueName('new')}@example.org`));
      expect(takenAgain.statusCode).toBe(freshAgain.statusCode);
      expect(takenAgain.json()).toEqual(freshAgain.json());
    } finally {
      t.smtp.setFailing(false);
    }
  });

  it('spends about the same time as a new registration', async () => {
    const owner = await newUser(t, 'patient');
    // Interleaved samples; a busy CI machine can push one round's medians apart, while a path that
    // skips work (a hash, a mail) is apart in every round: up to three rounds, one must be close.
    const gaps: number[] = [];
    for (let round = 0; round < 3; round++) {
      const fresh: number[] = [];
      const taken: number[] = [];
      for (let i = 0; i < 7; i++) {
        fresh.push(await timed(() => post('/api/auth/register', body(`${uniqueName('new')}@example.org`))));
        taken.push(await timed(() => post('/api/auth/register', body(owner.user.email))));
      }
      gaps.push(Math.abs(median(fresh) - median(taken)));
      if (gaps.at(-1)! < 30) break;
    }
    expect(Math.min(...gaps), `median gaps (ms): ${gaps.join(', ')}`).toBeLessThan(30);
  });
});

describe('reset link', () => {
  it('is not used up by a password the policy refuses', async () => {
    const u = await newUser(t, 'patient');
    await post('/api/auth/forgot-password', { email: u.user.email });
    await settle();
    const token = decodeURIComponent(/token=([^\s]+)/.exec((await t.smtp.lastTo(u.user.email)).text)![1]!);
    const weak = await post('/api/auth/reset-password', { token, password: 'qwertyuiop' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().errors[0]).toMatchObject({ field: 'password', message: expect.stringMatching(/common/) });
    expect((await post('/api/auth/reset-password', { token, password: 'Link-reset-after-refusal' })).statusCode).toBe(
      200,
    );
  });
});

describe('reset by e-mail and code', () => {
  it('answers a code locked by five wrong tries like a wrong one, after the same work as for an e-mail without an account', async () => {
    const u = await newUser(t, 'patient');
    await post('/api/auth/forgot-password', { email: u.user.email });
    await settle();
    const otp = codeIn(await t.smtp.lastTo(u.user.email));
    const wrong = otp === '000000' ? '111111' : '000000';
    const reset = (email: string, code: string) =>
      post('/api/auth/reset-password', { email, otp: code, newPassword: 'Locked-code-passphrase-5' });
    for (let i = 0; i < 5; i++) expect((await reset(u.user.email, wrong)).statusCode).toBe(400);
    // Counted password checks (argon2 verifies) of one request each.
    const hasher = t.app.ctx.hasher as { verify: (...args: never[]) => Promise<boolean> };
    const original = hasher.verify;
    let verifies = 0;
    hasher.verify = (...args) => {
      verifies++;
      return original(...args);
    };
    try {
      const locked = await reset(u.user.email, otp);
      const lockedVerifies = verifies;
      verifies = 0;
      const unknown = await reset(`nobody-${uniqueName('x')}@example.org`, otp);
      expect(locked.statusCode).toBe(400);
      expect(locked.json()).toEqual(unknown.json());
      expect(lockedVerifies).toBe(verifies);
      expect(lockedVerifies).toBe(1);
    } finally {
      hasher.verify = original;
    }
  });

  const reset = (email: string, otp: string, newPassword: string) =>
    post('/api/auth/reset-password', { email, otp, newPassword });
  /** An account whose username is not its e-mail's local part. */
  const withHandle = async () => {
    const handle = uniqueName('handle');
    return { u: await newUser(t, 'patient', { username: handle }), handle };
  };

  it('answers a password the rules refuse the same for an e-mail with an account and one without', async () => {
    const { u, handle } = await withHandle();
    const unknown = `nobody-${uniqueName('x')}@example.org`;
    const local = (email: string) => email.split('@')[0]!;
    for (const password of [
      () => 'qwertyuiop',
      () => 'short',
      () => `${handle}-xyz-123`,
      (email: string) => `${local(email)}-xyz-123`,
    ]) {
      const known = await reset(u.user.email, '123456', password(u.user.email));
      const none = await reset(unknown, '123456', password(unknown));
      expect(known.statusCode, password(u.user.email)).toBe(none.statusCode);
      expect(known.json().errors, password(u.user.email)).toEqual(none.json().errors);
    }
  });

  it('holds the new password to the account’s username only once the code is right, and keeps the code open', async () => {
    const { u, handle } = await withHandle();
    await post('/api/auth/forgot-password', { email: u.user.email });
    await settle();
    const otp = codeIn(await t.smtp.lastTo(u.user.email));
    // A wrong code: told only that the code is wrong, not that the password holds the username.
    const wrong = await reset(u.user.email, otp === '000000' ? '111111' : '000000', `${handle}-xyz-123`);
    expect(wrong.json().errors[0]).toMatchObject({ field: 'otp' });
    const named = await reset(u.user.email, otp, `${handle}-xyz-123`);
    expect(named.statusCode).toBe(400);
    expect(named.json().errors[0]).toMatchObject({ field: 'newPassword', message: expect.stringMatching(/username/) });
    expect((await reset(u.user.email, otp, 'Code-reset-after-refusal')).statusCode).toBe(200);
  });
});

describe('sign-in codes: tries from other addresses', () => {
  const confirm = (email: string, code: string, address: string) => post('/api/auth/confirm', { email, code }, address);
  /** The owner passes the password from `address`; the code mailed for it. */
  async function ownerSignsIn(address: string) {
    const u = await newUser(t, 'patient');
    const before = t.smtp.countTo(u.user.email);
    expect((await signIn(u.user.email, u.password, address)).statusCode).toBe(200);
    return { u, code: codeIn(await nextMailTo(u.user.email, before)) };
  }
  const wrongFor = (code: string, i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');

  it("never lock the owner's code: a stranger's wrong codes get 400, and the owner signs in", async () => {
    const { u, code } = await ownerSignsIn('10.9.0.1');
    for (let i = 0; i < 7; i++)
      expect((await confirm(u.user.email, wrongFor(code, i), '203.0.113.7')).statusCode).toBe(400);
    const own = await confirm(u.user.email, code, '10.9.0.1');
    expect(own.statusCode, own.body).toBe(200);
  });

  it('answer an e-mail in the middle of a sign-in exactly like one without an account', async () => {
    const { u, code } = await ownerSignsIn('10.9.1.1');
    const unknown = `nobody-${uniqueName('x')}@example.org`;
    const known: { status: number; body: string }[] = [];
    const none: { status: number; body: string }[] = [];
    for (let i = 0; i < 8; i++) {
      const a = await confirm(u.user.email, wrongFor(code, i), '203.0.113.8');
      const b = await confirm(unknown, wrongFor(code, i), '203.0.113.9');
      known.push({ status: a.statusCode, body: a.body });
      none.push({ status: b.statusCode, body: b.body });
    }
    expect(known).toEqual(none);
  });

  it('have two of their own: the owner on another address signs in, and past them the code works only where it went', async () => {
    // The owner's network changed between the password and the code: a right code from elsewhere works.
    const moved = await ownerSignsIn('10.9.2.1');
    expect((await confirm(moved.u.user.email, moved.code, '10.77.0.1')).statusCode).toBe(200);

    const { u, code } = await ownerSignsIn('10.9.3.1');
    for (let i = 0; i < 2; i++)
      expect((await confirm(u.user.email, wrongFor(code, i), `198.51.100.${i + 1}`)).statusCode).toBe(400);
    // Elsewhere the tries are spent: even the right code is refused there, as a wrong one.
    expect((await confirm(u.user.email, code, '198.51.100.99')).statusCode).toBe(400);
    expect((await confirm(u.user.email, code, '10.9.3.1')).statusCode).toBe(200);
  });

  it('check a code no more than seven times in all: four from its address, then from elsewhere only while within five', async () => {
    const { u, code } = await ownerSignsIn('10.9.5.1');
    for (let i = 0; i < 4; i++)
      expect((await confirm(u.user.email, wrongFor(code, i), '10.9.5.1')).statusCode).toBe(400);
    // Four of five spent where it went: one more from elsewhere is checked (wrong), the next is not.
    expect((await confirm(u.user.email, wrongFor(code, 4), '198.51.101.1')).statusCode).toBe(400);
    expect((await confirm(u.user.email, code, '198.51.101.2')).statusCode).toBe(400);
    expect((await confirm(u.user.email, code, '10.9.5.1')).statusCode).toBe(200);
  });

  it("a resend keeps the code's address: a stranger who asks for it gets no tries of the owner's", async () => {
    const { u } = await ownerSignsIn('10.9.4.1');
    await ageCodes(u.user.id);
    const before = t.smtp.countTo(u.user.email);
    expect((await post('/api/auth/resend-code', { email: u.user.email }, '203.0.113.10')).statusCode).toBe(200);
    const resent = codeIn(await nextMailTo(u.user.email, before));
    for (let i = 0; i < 6; i++)
      expect((await confirm(u.user.email, wrongFor(resent, i), '203.0.113.10')).statusCode).toBe(400);
    expect((await confirm(u.user.email, resent, '10.9.4.1')).statusCode).toBe(200);
  });
});

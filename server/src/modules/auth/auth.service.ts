import {
  AuthFailure,
  AuthMessages,
  type ConfirmBody,
  type ConfirmResponseData,
  type LoginBody,
  type PermissionName,
  type RegisterBody,
  type ResetPasswordBody,
  type RoleName,
  type SessionStatus,
  type User,
} from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { PasswordHasher } from '../../crypto/passwords.ts';
import { generateCode, generateLinkToken, sha256Hex } from '../../crypto/passwords.ts';
import type { Db } from '../../db/db.ts';
import type { CodePurpose, CodeRow } from '../../db/schema.ts';
import {
  type AppError,
  badRequest,
  conflict,
  forbidden,
  isUniqueViolation,
  loggedMessage,
  tooManyRequests,
  unauthenticated,
  validationFailed,
} from '../../errors.ts';
import { addressBlock } from '../../http/client-address.ts';
import { type Mailer, mailUnavailable } from '../../mail/mailer.ts';
import { passwordResetMail, registrationAttemptMail, verificationCodeMail } from '../../mail/templates.ts';
import type { AuditEvent, AuditService } from '../audit/audit.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import type { AccountRow, UserAccounts } from '../users/accounts.ts';
import type { Actor } from './actor.ts';
import { type ThrottleLimits, createAuthThrottle, keyOf } from './auth-throttle.ts';
import { type SessionForAuth, createAuthRepository } from './auth.repository.ts';
import { checkPassword } from './password-policy.ts';
import type { SessionCache } from './session-cache.ts';
import type { TokenSigner } from './tokens.ts';

export const MAX_CODE_ATTEMPTS = 5;
/**
 * Tries of a code from addresses other than the one it was issued to, all together: enough for an
 * owner whose network changed between the password and the code, few enough that a holder of the
 * password gains little (at most 7 checks of one code, against 5 from one address).
 */
export const MAX_FOREIGN_CODE_ATTEMPTS = 2;

/** The address block a code goes to, as a hash (`one_time_codes.issued_to`). */
const codeAddress = (ip: string | null) => keyOf('code-address', addressBlock(ip) ?? '-');
export const SESSION_ABSOLUTE_HOURS = 12;
const RESEND_INTERVAL_MS = 60_000;
/** A sign-in code is re-sent only this long after the password was checked, however often; later, sign in again. */
const RESEND_WITHIN_S = 3_600;
/** Reset codes per account per hour: with 5 tries each, at most 15 guesses an hour at a 1-in-10^6 code. */
export const MAX_RESET_CODES_PER_HOUR = 3;
const TOUCH_INTERVAL_MS = 60_000;

export interface RequestContext {
  ip: string | null;
  userAgent: string | null;
}

/** An audit event about an account (the users row is the record), from this request. */
function aboutAccount(
  userId: string | null | undefined,
  ctx: RequestContext,
  event: Pick<AuditEvent, 'action' | 'status' | 'reason'>,
): AuditEvent {
  return { userId: userId ?? null, table: 'users', recordId: userId ?? null, ip: ctx.ip, ...event };
}

interface Deps {
  db: Db;
  hasher: PasswordHasher;
  mailer: Mailer;
  audit: AuditService;
  settings: SettingsService;
  tokens: TokenSigner;
  /** Accounts, through the users module's port (never its repository). */
  accounts: UserAccounts;
  log: Logger;
  publicUrl: string;
  /** Called after sessions of a user were revoked (live streams end at once rather than at their next check). */
  onSessionsRevoked?: Array<(userId: string) => void>;
  /** Sign-in throttles; the defaults are the figures of docs/security.md. */
  throttleLimits?: ThrottleLimits;
  /** Sessions read alive a moment ago (session-cache.ts); without it every request reads its session. */
  sessionCache?: SessionCache;
}

/** Alive by every rule `authenticate` applies: not revoked, ended or idle, of an active, approved user. */
function usable(s: SessionForAuth, now: number, idleMs: number): boolean {
  return (
    !s.revoked_at &&
    s.expires_at.getTime() > now &&
    now - s.last_seen_at.getTime() <= idleMs &&
    !!s.live_user_id &&
    !!s.role &&
    !!s.active &&
    !isPendingProvider(s)
  );
}

export function isPendingProvider(user: Pick<AccountRow, 'approved_at'>): boolean {
  return user.approved_at === null;
}

/** The optional profile fields of a registration, as stored. */
function profileOf(accounts: UserAccounts, body: RegisterBody) {
  const isProvider = body.role === 'healthProvider';
  const profile = accounts.storedProfile({
    phone: body.phone,
    dob: body.dob,
    gender: body.gender,
    address: body.address,
    city: body.city,
    state: body.state,
    country: body.country,
    zipcode: body.zipcode,
    bio: body.bio,
    taxid: body.taxid,
    insurancenumber: body.insurancenumber,
    licensenumber: isProvider ? body.licensenumber : null,
    specialization: isProvider ? body.specialization : null,
    bloodgroup: isProvider ? null : body.bloodgroup,
    primphysician: isProvider ? null : body.primphysician,
  });
  // storedProfile turns undefined into null too; its type only keeps the input's optionality.
  return profile as { [K in keyof typeof profile]: Exclude<(typeof profile)[K], undefined> };
}

export function createAuthService(deps: Deps) {
  const { db, hasher, mailer, audit, settings, tokens, sessionCache } = deps;
  const sessionsRevoked = (userId: string) => deps.onSessionsRevoked?.forEach((hook) => hook(userId));
  const { accounts } = deps;
  const users = accounts.on(db);
  const repo = createAuthRepository(db);
  // Audit rows appended through `audit` commit with the change; appended last, after any mail, so that
  // the audit chain's head lock is not held across an SMTP round trip (docs/security.md › Audit trail).
  const transaction = audit.transactor(db, (trx) => ({ auth: createAuthRepository(trx), users: accounts.on(trx) }));
  const throttle = createAuthThrottle(db, deps.throttleLimits);
  let permissionsByRole: Map<string, Set<string>> | null = null;

  async function permissionsOf(role: RoleName): Promise<ReadonlySet<PermissionName>> {
    permissionsByRole ??= await repo.rolePermissions();
    return (permissionsByRole.get(role) ?? new Set()) as ReadonlySet<PermissionName>;
  }

  async function codeExpiry(): Promise<{ at: Date; minutes: number }> {
    const { otpTtlMinutes } = await settings.effective();
    return { at: new Date(Date.now() + otpTtlMinutes * 60_000), minutes: otpTtlMinutes };
  }

  /**
   * Checks a submitted code against the newest open one; counts the try first so guesses are bounded.
   * `beforeUse` runs once the code is known right, before it is used up: what it throws leaves the
   * code open (its try counted).
   *
   * A code issued to an address (`issued_to`: sign-in and registration codes) counts the tries of
   * that address block against its five, and those of any other address against
   * `MAX_FOREIGN_CODE_ATTEMPTS` of their own, which never lock it and are checked only while the
   * code's tries stay within five: before, anyone who knew an e-mail could spend its owner's tries
   * from afar and stop the sign-in, and the lock's 429 told that e-mail from one without an
   * account. A try from elsewhere is answered as a wrong code, whatever the owner's tries (`from`:
   * the client address; docs/security.md › Identity and sessions).
   */
  async function checkCode(
    userId: string | null,
    purpose: CodePurpose,
    code: string,
    from: string | null,
    beforeUse?: () => void,
  ): Promise<'ok' | 'wrong' | 'locked'> {
    const row = userId ? await repo.latestMailedCode(userId, purpose) : undefined;
    const foreign = Boolean(row?.issued_to) && row?.issued_to !== codeAddress(from);
    const wrong = async () => {
      // The same work as a real check: the time does not say whether there was a code to check.
      await hasher.verify(null, code);
      return 'wrong' as const;
    };
    if (!row || row.consumed_at || row.expires_at.getTime() <= Date.now()) {
      await hasher.verify(null, code);
      return !foreign && row && row.attempts >= MAX_CODE_ATTEMPTS && !row.consumed_at ? 'locked' : 'wrong';
    }
    if (foreign) {
      const taken = await repo.takeForeignAttempt(row.id, MAX_FOREIGN_CODE_ATTEMPTS);
      if (taken === null) return wrong();
      // Checked only while the code's tries from everywhere stay within its five (read, not locked:
      // a try racing this one may go one over), and not when its owner's tries locked it: that is
      // said only to the owner.
      if (row.attempts >= MAX_CODE_ATTEMPTS || row.attempts + taken > MAX_CODE_ATTEMPTS) return wrong();
      if (!(await hasher.verify(row.code_hash, code))) return 'wrong';
    } else {
      const attempt = await repo.takeAttempt(row.id, MAX_CODE_ATTEMPTS);
      if (attempt === null) {
        // The same work as a check: a quick answer told a locked code (an account) from none.
        await hasher.verify(null, code);
        return 'locked';
      }
      if (!(await hasher.verify(row.code_hash, code))) return attempt >= MAX_CODE_ATTEMPTS ? 'locked' : 'wrong';
    }
    beforeUse?.();
    // One use per sign-in or reset: a code of the purpose still open (a resend's, mailed meanwhile) ends
    // too, under the account's lock, so that a resend writing its code at this moment is seen or waits.
    const used = await transaction.run(async ({ auth }) => {
      await auth.lockAccount(row.user_id);
      if (!(await auth.consumeCode(row.id))) return false;
      await auth.retireCodes(row.user_id, purpose);
      return true;
    });
    return used ? 'ok' : 'wrong';
  }

  async function startSession(user: AccountRow, ctx: RequestContext) {
    const id = randomUUID();
    const expiresAt = new Date(Date.now() + SESSION_ABSOLUTE_HOURS * 3_600_000);
    await repo.createSession({
      id,
      userId: user.id,
      expiresAt,
      ip: ctx.ip,
      userAgent: ctx.userAgent?.slice(0, 300) ?? null,
    });
    const token = await tokens.sign({ sub: user.id, sid: id }, expiresAt);
    return { token, user: accounts.present(user), expiresAt: expiresAt.toISOString() };
  }

  function refuseInactive(user: AccountRow): AppError | null {
    if (isPendingProvider(user)) return forbidden(AuthMessages.providerUnderReview);
    if (!user.active) return forbidden(AuthMessages.accountDeactivated);
    return null;
  }

  /** A sign-in's second factor: a new code (the earlier ones end) and its mail. */
  async function sendSignInCode(user: { id: string; email: string; firstname: string }, ip: string | null) {
    const code = generateCode();
    const { at, minutes } = await codeExpiry();
    await repo.issueCode({
      userId: user.id,
      purpose: 'verify',
      // The address that passed the password: its tries are the owner's.
      issuedTo: codeAddress(ip),
      codeHash: await hasher.hash(code),
      tokenHash: null,
      expiresAt: at,
    });
    const mail = verificationCodeMail(user.firstname, code, minutes, 'login');
    await timedSend({ to: user.email, ...mail, devCode: code });
  }

  /** How long the last code and notice mails took to send (at most 16), for `typicalMailMs`. */
  const mailTimes: number[] = [];
  async function timedSend(message: Parameters<Mailer['send']>[0]): Promise<void> {
    const start = performance.now();
    try {
      await mailer.send(message);
    } finally {
      mailTimes.push(performance.now() - start);
      if (mailTimes.length > 16) mailTimes.shift();
    }
  }
  /**
   * The median of those: a registration attempt that mails no one waits as long, so that the time
   * of its answer does not tell an e-mail with an account from a new one.
   */
  const typicalMailMs = () => {
    const sorted = [...mailTimes].sort((a, b) => a - b);
    return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0;
  };

  const pendingWork = new Set<Promise<void>>();

  /** Work done after the answer went out (so neither its time nor its failure shows); logged, never thrown. */
  function runAfterAnswer(userId: string, failure: string, task: () => Promise<void>) {
    // Started on the next turn of the event loop, once the answer has been written.
    const work = new Promise<void>((resolve) => setImmediate(resolve)).then(task).catch((err: unknown) => {
      deps.log.error({ err: { message: loggedMessage(err) }, userId }, failure);
    });
    pendingWork.add(work);
    void work.finally(() => pendingWork.delete(work));
  }

  /** Used, locked (its attempt is over: sign in again) or sent a moment ago: no code to re-send. */
  const resendable = (last: CodeRow | undefined): last is CodeRow =>
    last !== undefined &&
    !last.consumed_at &&
    last.attempts < MAX_CODE_ATTEMPTS &&
    Date.now() - last.created_at.getTime() >= RESEND_INTERVAL_MS;

  async function resendOpenCode(user: AccountRow, code: string, codeHash: string, ctx: RequestContext) {
    const last = await repo.latestCode(user.id, 'verify');
    // Nor once the password was checked over an hour ago (resends do not extend that).
    if (!resendable(last)) return;
    if (!(await throttle.inPasswordSignIn(user.id))) return;
    if (!(await throttle.takeResend(user.id))) {
      await audit.record(
        aboutAccount(user.id, ctx, {
          action: 'auth.code.resend',
          status: 'failure',
          reason: 'hourly resend limit reached',
        }),
      );
      return;
    }
    const { at, minutes } = await codeExpiry();
    // Read again under the account's lock and written there: two resends sent at once both passed
    // the checks above, and the second now finds the first's code (or a new sign-in's) in its place.
    const codeId = await transaction.run(async ({ auth }) => {
      if (!(await auth.lockAccount(user.id))) return null;
      const now = await auth.latestCode(user.id, 'verify');
      if (!resendable(now) || now.id !== last.id) return null;
      return auth.issueCode({
        userId: user.id,
        purpose: 'verify',
        codeHash,
        tokenHash: null,
        expiresAt: at,
        // The sign-in's address, not the resend's: anyone may ask for a resend.
        issuedTo: last.issued_to,
        keepEarlier: true,
      });
    });
    if (codeId === null) return;
    const mail = verificationCodeMail(user.firstname, code, minutes, user.email_verified_at ? 'login' : 'register');
    await mailIssuedCode(user.id, 'verify', codeId, { to: user.email, ...mail, devCode: code }, [
      aboutAccount(user.id, ctx, { action: 'auth.code.resend' }),
    ]);
  }

  /**
   * Mails a code issued with `keepEarlier`, holding no transaction while SMTP answers (on PGlite one
   * would hold every query of the server; on PostgreSQL a connection and the rows it locked). Until
   * the mail is out, tries are checked against the code the user already has; then the new code is
   * the one checked and the earlier ones end, with `sent`'s audit rows. A mail that cannot go out
   * deletes the new code and leaves the earlier one working (docs/decisions.md › Foundation, "No
   * transaction waits on SMTP").
   */
  async function mailIssuedCode(
    userId: string,
    purpose: CodePurpose,
    codeId: string,
    message: Parameters<Mailer['send']>[0],
    sent: AuditEvent[],
  ): Promise<void> {
    try {
      await mailer.send(message);
    } catch (err) {
      await repo.deleteCode(codeId);
      throw err;
    }
    try {
      await transaction.run(async ({ auth, audit: auditInTx }) => {
        // The account's row first, as the code's issue and a password reset take it (no deadlock over
        // the code rows); an account deleted meanwhile has no code left to put in use.
        if (!(await auth.lockAccount(userId))) return;
        await auth.codeMailed(userId, purpose, codeId);
        await auditInTx(sent);
      });
    } catch (err) {
      // The mail left, but its code is not checked yet (the earlier one works on): say which step failed.
      throw new Error(`mailed, but the code could not be put in use: ${loggedMessage(err)}`, { cause: err });
    }
  }

  /**
   * Registration with an e-mail that already has an account: the same answer and about the same work
   * as a new account (a code hashed, a mail sent, an SMTP outage failing alike), but the mail goes to
   * the owner, saying someone tried, and the answer describes an account that is not created.
   */
  async function answerAsNew(
    body: RegisterBody,
    profile: ReturnType<typeof profileOf>,
    ctx: RequestContext,
  ): Promise<{ user: User; pending: boolean }> {
    const owner = await users.getByEmail(body.email);
    await hasher.hash(generateCode());
    // At most a few such mails an hour per account: the next attempts are audited, not mailed.
    const told = owner ? await throttle.takeRegistrationNotice(owner.id) : false;
    if (owner && told) {
      const mail = registrationAttemptMail(
        owner.firstname,
        `${deps.publicUrl}/login`,
        `${deps.publicUrl}/forgot-password`,
      );
      await timedSend({ to: owner.email, ...mail });
    } else {
      await new Promise((resolve) => setTimeout(resolve, typicalMailMs()));
      // While mail is failing (any mail of this process), a new registration fails, its code not
      // sent: this one too.
      if (mailer.failing()) throw mailUnavailable();
    }
    await audit.record(
      aboutAccount(owner?.id, ctx, {
        action: 'auth.register',
        status: 'failure',
        reason: told
          ? 'e-mail already registered; owner told by mail'
          : "e-mail already registered; owner not told again (this hour's mails sent)",
      }),
    );
    const isProvider = body.role === 'healthProvider';
    const now = new Date();
    // Shaped by the same presenter as a real new account, so no field tells the two apart.
    const user = accounts.present({
      ...profile,
      id: randomUUID(),
      email: body.email,
      username: body.username,
      password_hash: '',
      role_id: 0,
      role: body.role,
      active: !isProvider,
      email_verified_at: null,
      firstname: body.firstname,
      lastname: body.lastname,
      failed_logins: 0,
      locked_until: null,
      password_changed_at: null,
      approved_at: isProvider ? null : now,
      deleted_at: null,
      created_at: now,
      updated_at: now,
    });
    return { user, pending: isProvider };
  }

  async function issueReset(user: AccountRow, ctx: RequestContext): Promise<void> {
    const code = generateCode();
    const token = generateLinkToken();
    const { at, minutes } = await codeExpiry();
    const codeHash = await hasher.hash(code);
    const codeId = await transaction.run(async ({ auth, audit: auditInTx }) => {
      // One reset at a time per account, its limits read under the lock: requests sent at once each
      // read 'no code a moment ago' before any had written one (on PostgreSQL eight requests sent
      // eight mails, each with a code that worked). The new code, written here, is that 'code a
      // moment ago' for the others while its mail goes out. An account deleted since it was read
      // gets no code, and its old address no mail.
      if (!(await auth.lockAccount(user.id))) return null;
      const last = await auth.latestCode(user.id, 'reset');
      if (last && !last.consumed_at && Date.now() - last.created_at.getTime() < RESEND_INTERVAL_MS) return null;
      const since = new Date(Date.now() - 3_600_000);
      if ((await auth.countCodesSince(user.id, 'reset', since)) >= MAX_RESET_CODES_PER_HOUR) {
        await auditInTx([
          aboutAccount(user.id, ctx, {
            action: 'auth.password.forgot',
            status: 'failure',
            reason: 'hourly reset-code limit reached',
          }),
        ]);
        return null;
      }
      return auth.issueCode({
        userId: user.id,
        purpose: 'reset',
        codeHash,
        tokenHash: sha256Hex(token),
        expiresAt: at,
        keepEarlier: true,
      });
    });
    if (codeId === null) return;
    const link = `${deps.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
    await mailIssuedCode(
      user.id,
      'reset',
      codeId,
      { to: user.email, ...passwordResetMail(user.firstname, code, link, minutes), devCode: code },
      [aboutAccount(user.id, ctx, { action: 'auth.password.forgot' })],
    );
  }

  return {
    permissionsOf,

    async register(body: RegisterBody, ctx: RequestContext): Promise<{ user: User; pending: boolean }> {
      const policy = checkPassword(body.password, body);
      if (policy.length) throw validationFailed(policy);
      const taken = await users.findTaken(body.email, body.username);
      // Usernames are shown to other people anyway, so a clash may say so; an e-mail clash may not.
      if (taken.username)
        throw conflict('This username is taken', [{ field: 'username', message: 'This username is taken' }]);
      const isProvider = body.role === 'healthProvider';
      const profile = profileOf(accounts, body);
      const passwordHash = await hasher.hash(body.password);
      const expiry = await codeExpiry();
      if (taken.email) return answerAsNew(body, profile, ctx);
      // The code's mail first, then user, code and audit row in one transaction: a mail that cannot
      // go out leaves no account behind, and no transaction waits on SMTP (mailIssuedCode says why).
      // Two registrations racing for the e-mail both mail a code; one account is made.
      const code = generateCode();
      const codeHash = await hasher.hash(code);
      const mail = verificationCodeMail(body.firstname, code, expiry.minutes, 'register');
      await timedSend({ to: body.email, ...mail, devCode: code });
      const created = await transaction
        .run(async ({ users: txUsers, auth: txAuth, audit: auditInTx }) => {
          const { id } = await txUsers.create({
            email: body.email,
            username: body.username,
            password_hash: passwordHash,
            role_id: await txUsers.roleId(body.role),
            active: !isProvider,
            approved_at: isProvider ? null : new Date(),
            firstname: body.firstname,
            lastname: body.lastname,
            ...profile,
          });
          const user = (await txUsers.getById(id))!;
          await txAuth.issueCode({
            userId: id,
            purpose: 'verify',
            // The address that registered: its tries are the owner's.
            issuedTo: codeAddress(ctx.ip),
            codeHash,
            tokenHash: null,
            expiresAt: expiry.at,
          });
          await auditInTx([aboutAccount(id, ctx, { action: 'auth.register', reason: `role=${body.role}` })]);
          return user;
        })
        .catch((err: unknown) => {
          // Two registrations racing for the same e-mail or username: rare enough to answer plainly.
          if (isUniqueViolation(err)) throw conflict('An account with these details already exists');
          throw err;
        });
      await throttle.passwordSignIn(created.id, RESEND_WITHIN_S);
      return { user: accounts.present(created), pending: isProvider };
    },

    /**
     * Checks the password and mails the second-factor code. Tries are throttled per (e-mail, address)
     * and per address before the password is checked; an unknown e-mail is counted and answered like
     * a known one. Pending and deactivated accounts get a code too: why they cannot go on is said
     * only after the code (confirm), so a right password is not told apart from a wrong one here.
     */
    async login(body: LoginBody, ctx: RequestContext): Promise<{ otpRequired: true; email: string }> {
      const user = await users.getByEmail(body.email);
      const failed = (reason: string) =>
        audit.recordQuietly({
          userId: user?.id ?? null,
          action: 'auth.login',
          table: 'users',
          recordId: user?.id ?? null,
          ip: ctx.ip,
          status: 'failure',
          reason,
        });
      await throttle.takePasswordTry(body.email, ctx.ip).catch(async (err: unknown) => {
        await failed('throttled');
        throw err;
      });
      const ok = await hasher.verify(user?.password_hash ?? null, body.password);
      if (!user || !ok) {
        await failed('wrong credentials');
        throw unauthenticated(AuthMessages.invalidCredentials, 'invalid_credentials');
      }
      await throttle.passwordAccepted(body.email, ctx.ip);
      await sendSignInCode(user, ctx.ip);
      await throttle.passwordSignIn(user.id, RESEND_WITHIN_S);
      await audit.record(
        aboutAccount(user.id, ctx, {
          action: 'auth.login.password',
          reason: refuseInactive(user) ? 'second factor mailed; account not active' : 'second factor mailed',
        }),
      );
      return { otpRequired: true, email: user.email };
    },

    /** Confirms the e-mail after registration and completes the second factor of a login. */
    async confirm(body: ConfirmBody, ctx: RequestContext): Promise<{ data: ConfirmResponseData; message: string }> {
      const user = await users.getByEmail(body.email);
      const result = await checkCode(user?.id ?? null, 'verify', body.code, ctx.ip);
      if (result !== 'ok' || !user) {
        await audit.recordQuietly(
          aboutAccount(user?.id, ctx, {
            action: 'auth.confirm',
            status: 'failure',
            reason: result === 'locked' ? 'code locked' : 'wrong or expired code',
          }),
        );
        if (result === 'locked') throw tooManyRequests(AuthMessages.signInCodeLocked);
        throw badRequest(AuthMessages.invalidCode, [
          { field: 'code', code: 'invalid_code', message: AuthMessages.invalidCode },
        ]);
      }
      if (!user.email_verified_at) await users.update(user.id, { email_verified_at: new Date() });
      if (isPendingProvider(user)) {
        await audit.record(
          aboutAccount(user.id, ctx, { action: 'auth.confirm', reason: 'e-mail confirmed; awaiting approval' }),
        );
        return { data: { pending: true }, message: AuthMessages.providerUnderReview };
      }
      const refusal = refuseInactive(user);
      if (refusal) {
        await audit.recordQuietly(
          aboutAccount(user.id, ctx, { action: 'auth.login', status: 'failure', reason: 'deactivated' }),
        );
        throw refusal;
      }
      const session = await startSession({ ...user, email_verified_at: user.email_verified_at ?? new Date() }, ctx);
      await audit.record({
        userId: user.id,
        action: 'auth.login',
        table: 'sessions',
        recordId: null,
        ip: ctx.ip,
        reason: 'second factor confirmed',
      });
      return { data: session, message: 'Verification successful' };
    },

    /**
     * Same answer, after the same work (one code hashed), whatever the account: whether a code goes
     * out is decided after answering. A code is re-sent only within a sign-in that passed the
     * password (the newest code unused, under 5 wrong tries and under an hour old), at most once a
     * minute and `resendsPerHour` times an hour per account; a locked code is never replaced.
     */
    async resendCode(email: string, ctx: RequestContext): Promise<void> {
      const user = await users.getByEmail(email);
      const code = generateCode();
      const codeHash = await hasher.hash(code);
      if (!user) return;
      runAfterAnswer(user.id, 'code resend failed', () => resendOpenCode(user, code, codeHash, ctx));
    },

    /**
     * Same answer, in about the same time, whether or not the account exists: the code and the mail
     * are made after answering, so neither timing nor an SMTP outage tells who is registered.
     */
    async forgotPassword(email: string, ctx: RequestContext): Promise<void> {
      const user = await users.getByEmail(email);
      if (!user) return;
      runAfterAnswer(user.id, 'password reset failed', () => issueReset(user, ctx));
    },

    /** Resolves when background work (reset and resent-code mails) has finished; for tests and graceful shutdown. */
    async settled(): Promise<void> {
      await Promise.all([...pendingWork]);
    },

    async resetPassword(body: ResetPasswordBody, ctx: RequestContext): Promise<void> {
      let user: AccountRow | undefined;
      let password: string;
      if ('token' in body) {
        const row = await repo.openCodeByToken(sha256Hex(body.token));
        user = row ? await users.getById(row.user_id) : undefined;
        password = body.password;
        // Policy first, so a refused password does not use up the link.
        const policy = user ? checkPassword(password, user, 'password') : [];
        if (policy.length) throw validationFailed(policy);
        if (!row || !user || !(await repo.consumeCode(row.id))) {
          await audit.recordQuietly({
            userId: user?.id ?? null,
            action: 'auth.password.reset',
            table: 'users',
            ip: ctx.ip,
            status: 'failure',
            reason: 'invalid or expired link',
          });
          throw badRequest('This reset link is invalid or has expired. Ask for a new one.', [
            { field: 'token', message: 'Invalid or expired link' },
          ]);
        }
      } else {
        user = await users.getByEmail(body.email);
        const account = user;
        password = body.newPassword;
        // The rules any e-mail is held to first, the same whether it has an account or not, so
        // that a weak new password neither burns one of the code's tries nor tells which e-mails
        // have accounts (checked against the account only for one, it did).
        const policy = checkPassword(password, { email: body.email, username: '' }, 'newPassword');
        if (policy.length) throw validationFailed(policy);
        // The account's username only once the code is known right: told before, it said which
        // username goes with the e-mail. The code stays open for another password.
        const result = await checkCode(account?.id ?? null, 'reset', body.otp, ctx.ip, () => {
          const own = account ? checkPassword(password, account, 'newPassword') : [];
          if (own.length) throw validationFailed(own);
        });
        if (result !== 'ok' || !user) {
          await audit.recordQuietly({
            userId: user?.id ?? null,
            action: 'auth.password.reset',
            table: 'users',
            ip: ctx.ip,
            status: 'failure',
            reason: result === 'locked' ? 'code locked' : 'wrong or expired code',
          });
          // A locked code is answered as a wrong one: anyone may send an e-mail's reset codes, and a
          // 429 after five said that e-mail has an account. The owner asks for a new code, or uses the link.
          throw badRequest(AuthMessages.invalidCode, [
            { field: 'otp', code: 'invalid_code', message: AuthMessages.invalidCode },
          ]);
        }
      }
      const target = user;
      // Hashed before the transaction, which then holds its connection for two statements only.
      const passwordHash = await hasher.hash(password);
      const changed = await transaction.run(async ({ users: txUsers, auth: authRepo }) => {
        const updated = await txUsers.update(target.id, {
          password_hash: passwordHash,
          password_changed_at: new Date(),
          failed_logins: 0,
          locked_until: null,
          // Reading the mailed code proves control of the mailbox.
          email_verified_at: target.email_verified_at ?? new Date(),
        });
        // Not updated: the account was deleted since it was read (its codes went with it).
        if (updated) {
          await authRepo.revokeUserSessions(target.id, 'password reset');
          // Every code issued before the reset ends with it: another reset link or code, and a
          // sign-in code that a password known before the reset had asked for.
          await authRepo.retireCodes(target.id);
        }
        return updated;
      });
      if (!changed) {
        await audit.recordQuietly(
          aboutAccount(target.id, ctx, {
            action: 'auth.password.reset',
            status: 'failure',
            reason: 'account deleted meanwhile',
          }),
        );
        // Answered as a used or expired link or code is.
        if ('token' in body)
          throw badRequest('This reset link is invalid or has expired. Ask for a new one.', [
            { field: 'token', message: 'Invalid or expired link' },
          ]);
        throw badRequest(AuthMessages.invalidCode, [
          { field: 'otp', code: 'invalid_code', message: AuthMessages.invalidCode },
        ]);
      }
      sessionsRevoked(target.id);
      // The mailbox proved who this is: this device may sign in at once even if it was throttled.
      await throttle.forgetPair(target.email, ctx.ip);
      await audit.record(
        aboutAccount(target.id, ctx, { action: 'auth.password.reset', reason: 'all sessions revoked' }),
      );
    },

    /**
     * How long the caller's session lasts (GET /api/auth/session); `authenticate` has just checked it
     * is alive. The web client asks while its user is active: the use is noted now, not up to
     * TOUCH_INTERVAL_MS late as for other requests, so that the client's idle clock and this one agree
     * to within its keep-alive interval (`docs/security.md` › Identity and sessions).
     */
    async sessionStatus(actor: Actor): Promise<SessionStatus> {
      const [{ sessionIdleMinutes }, session] = await Promise.all([
        settings.effective(),
        repo.getSessionForAuth(actor.sessionId),
      ]);
      if (!session) throw unauthenticated(AuthFailure.failed + ': session ended', 'session_revoked');
      const now = new Date();
      await repo.touchSession(session.id, now);
      sessionCache?.touched(session.id, now);
      return {
        idleMinutes: sessionIdleMinutes,
        expiresAt: session.expires_at.toISOString(),
        expiresInMs: Math.max(0, session.expires_at.getTime() - now.getTime()),
      };
    },

    async logout(actor: Actor): Promise<void> {
      await repo.revokeSession(actor.sessionId, 'logout');
      sessionsRevoked(actor.userId);
      await audit.record({
        userId: actor.userId,
        action: 'auth.logout',
        table: 'sessions',
        recordId: actor.sessionId,
        ip: actor.ip,
      });
    },

    /** Bearer token to actor: signature, session alive (not revoked, idle or past its end), user active. */
    async authenticate(token: string, ip: string | null): Promise<Actor> {
      const claims = await tokens.verify(token);
      const now = Date.now();
      const { sessionIdleMinutes } = await settings.effective();
      const idleMs = sessionIdleMinutes * 60_000;
      const alive = (s: SessionForAuth | null | undefined): s is SessionForAuth =>
        !!s && s.user_id === claims.sub && usable(s, now, idleMs);
      // The cache may only say yes: a session it would refuse is read again before anything is refused.
      let session = sessionCache?.get(claims.sid, now);
      if (!alive(session)) {
        const readAt = sessionCache?.epoch() ?? 0;
        session = await repo.getSessionForAuth(claims.sid);
        // Its age counts from before the query (`now`): it vouches for no more than maxAgeMs after it was asked.
        if (alive(session)) sessionCache?.keep(session, readAt, now);
      }
      if (!session || session.user_id !== claims.sub || session.revoked_at)
        throw unauthenticated(AuthFailure.failed + ': session ended', 'session_revoked');
      if (session.expires_at.getTime() <= now) throw unauthenticated(AuthFailure.expired, 'token_expired');
      if (now - session.last_seen_at.getTime() > idleMs) {
        await repo.revokeSession(session.id, 'idle');
        throw unauthenticated(AuthFailure.expired + ': session idle', 'session_idle');
      }
      const { live_user_id: userId, role, active, approved_at } = session;
      if (!userId || !role || !active || isPendingProvider({ approved_at })) {
        await repo.revokeSession(session.id, 'user inactive');
        throw unauthenticated(AuthFailure.failed + ': account inactive', 'account_inactive');
      }
      if (now - session.last_seen_at.getTime() > TOUCH_INTERVAL_MS) {
        const touchedAt = new Date(now);
        await repo.touchSession(session.id, touchedAt);
        sessionCache?.touched(session.id, touchedAt);
      }
      return {
        userId,
        sessionId: session.id,
        role,
        permissions: await permissionsOf(role),
        ip,
      };
    },

    async revokeUserSessions(userId: string, reason: string): Promise<void> {
      await repo.revokeUserSessions(userId, reason);
      sessionsRevoked(userId);
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;

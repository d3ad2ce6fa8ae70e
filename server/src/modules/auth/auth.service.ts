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
  type User,
} from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { PasswordHasher } from '../../crypto/passwords.ts';
import { generateCode, generateLinkToken, sha256Hex } from '../../crypto/passwords.ts';
import type { Db } from '../../db/db.ts';
import type { CodePurpose } from '../../db/schema.ts';
import {
  type AppError,
  badRequest,
  conflict,
  forbidden,
  tooManyRequests,
  unauthenticated,
  validationFailed,
} from '../../errors.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { passwordResetMail, verificationCodeMail } from '../../mail/templates.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { blankToNull, presentUser } from '../users/users.presenter.ts';
import { type UserWithRole, createUsersRepository } from '../users/users.repository.ts';
import { createAuthRepository } from './auth.repository.ts';
import { checkPassword } from './password-policy.ts';
import type { TokenSigner } from './tokens.ts';

export const MAX_CODE_ATTEMPTS = 5;
export const SESSION_ABSOLUTE_HOURS = 12;
const RESEND_INTERVAL_MS = 60_000;
/** Reset codes per account per hour: with 5 tries each, at most 15 guesses an hour at a 1-in-10^6 code. */
export const MAX_RESET_CODES_PER_HOUR = 3;
const TOUCH_INTERVAL_MS = 60_000;

/** Who is calling: what every service receives instead of the HTTP request. */
export interface Actor {
  userId: string;
  sessionId: string;
  role: RoleName;
  permissions: ReadonlySet<PermissionName>;
  ip: string | null;
}

export interface RequestContext {
  ip: string | null;
  userAgent: string | null;
}

interface Deps {
  db: Db;
  hasher: PasswordHasher;
  mailer: Mailer;
  audit: AuditService;
  settings: SettingsService;
  tokens: TokenSigner;
  log: Logger;
  publicUrl: string;
  /** Called after sessions of a user were revoked (live streams end at once rather than at their next check). */
  onSessionsRevoked?: Array<(userId: string) => void>;
}

export function isPendingProvider(user: Pick<UserWithRole, 'approved_at'>): boolean {
  return user.approved_at === null;
}

export function createAuthService(deps: Deps) {
  const { db, hasher, mailer, audit, settings, tokens } = deps;
  const sessionsRevoked = (userId: string) => deps.onSessionsRevoked?.forEach((hook) => hook(userId));
  const users = createUsersRepository(db);
  const repo = createAuthRepository(db);
  let permissionsByRole: Map<string, Set<string>> | null = null;

  async function permissionsOf(role: RoleName): Promise<ReadonlySet<PermissionName>> {
    permissionsByRole ??= await repo.rolePermissions();
    return (permissionsByRole.get(role) ?? new Set()) as ReadonlySet<PermissionName>;
  }

  async function codeExpiry(): Promise<{ at: Date; minutes: number }> {
    const { otpTtlMinutes } = await settings.effective();
    return { at: new Date(Date.now() + otpTtlMinutes * 60_000), minutes: otpTtlMinutes };
  }

  /** Checks a submitted code against the newest open one; counts the try first so guesses are bounded. */
  async function checkCode(
    userId: string | null,
    purpose: CodePurpose,
    code: string,
  ): Promise<'ok' | 'wrong' | 'locked'> {
    const row = userId ? await repo.latestCode(userId, purpose) : undefined;
    if (!row || row.consumed_at || row.expires_at.getTime() <= Date.now()) {
      await hasher.verify(null, code);
      return row && row.attempts >= MAX_CODE_ATTEMPTS && !row.consumed_at ? 'locked' : 'wrong';
    }
    const attempt = await repo.takeAttempt(row.id, MAX_CODE_ATTEMPTS);
    if (attempt === null) return 'locked';
    if (!(await hasher.verify(row.code_hash, code))) return attempt >= MAX_CODE_ATTEMPTS ? 'locked' : 'wrong';
    return (await repo.consumeCode(row.id)) ? 'ok' : 'wrong';
  }

  async function startSession(user: UserWithRole, ctx: RequestContext) {
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
    return { token, user: presentUser(user), expiresAt: expiresAt.toISOString() };
  }

  function refuseInactive(user: UserWithRole): AppError | null {
    if (isPendingProvider(user)) return forbidden(AuthMessages.providerUnderReview);
    if (!user.active) return forbidden(AuthMessages.accountDeactivated);
    return null;
  }

  async function sendVerificationCode(
    user: { id: string; email: string; firstname: string },
    reason: 'register' | 'login',
    expiry: { at: Date; minutes: number },
    r = repo,
  ) {
    const code = generateCode();
    const { at, minutes } = expiry;
    await r.issueCode({
      userId: user.id,
      purpose: 'verify',
      codeHash: await hasher.hash(code),
      tokenHash: null,
      expiresAt: at,
    });
    const mail = verificationCodeMail(user.firstname, code, minutes, reason);
    await mailer.send({ to: user.email, ...mail, devCode: code });
  }

  const pendingWork = new Set<Promise<void>>();

  async function issueReset(user: UserWithRole, ctx: RequestContext): Promise<void> {
    const last = await repo.latestCode(user.id, 'reset');
    if (last && !last.consumed_at && Date.now() - last.created_at.getTime() < RESEND_INTERVAL_MS) return;
    if ((await repo.countCodesSince(user.id, 'reset', new Date(Date.now() - 3_600_000))) >= MAX_RESET_CODES_PER_HOUR) {
      await audit.record({
        userId: user.id,
        action: 'auth.password.forgot',
        table: 'users',
        recordId: user.id,
        ip: ctx.ip,
        status: 'failure',
        reason: 'hourly reset-code limit reached',
      });
      return;
    }
    const code = generateCode();
    const token = generateLinkToken();
    const { at, minutes } = await codeExpiry();
    // Code and mail in one transaction: a mail that cannot go out leaves no code behind.
    await db.transaction().execute(async (trx) => {
      await createAuthRepository(trx).issueCode({
        userId: user.id,
        purpose: 'reset',
        codeHash: await hasher.hash(code),
        tokenHash: sha256Hex(token),
        expiresAt: at,
      });
      const link = `${deps.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
      await mailer.send({ to: user.email, ...passwordResetMail(user.firstname, code, link, minutes), devCode: code });
    });
    await audit.record({
      userId: user.id,
      action: 'auth.password.forgot',
      table: 'users',
      recordId: user.id,
      ip: ctx.ip,
    });
  }

  return {
    permissionsOf,

    async register(body: RegisterBody, ctx: RequestContext): Promise<{ user: User; pending: boolean }> {
      const policy = checkPassword(body.password, body);
      if (policy.length) throw validationFailed(policy);
      const taken = await users.findTaken(body.email, body.username);
      if (taken.email || taken.username) {
        throw conflict('An account with these details already exists', [
          ...(taken.email ? [{ field: 'email', message: 'This e-mail is already registered' }] : []),
          ...(taken.username ? [{ field: 'username', message: 'This username is taken' }] : []),
        ]);
      }
      const isProvider = body.role === 'healthProvider';
      const profile = blankToNull({
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
      const passwordHash = await hasher.hash(body.password);
      const expiry = await codeExpiry();
      // User, code and mail in one transaction: if the mail cannot go out, no account is left behind.
      const created = await db
        .transaction()
        .execute(async (trx) => {
          const txUsers = createUsersRepository(trx);
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
          await sendVerificationCode(user, 'register', expiry, createAuthRepository(trx));
          return user;
        })
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === '23505')
            throw conflict('An account with these details already exists');
          throw err;
        });
      await audit.record({
        userId: created.id,
        action: 'auth.register',
        table: 'users',
        recordId: created.id,
        ip: ctx.ip,
        reason: `role=${body.role}`,
      });
      return { user: presentUser(created), pending: isProvider };
    },

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
      if (user?.locked_until && user.locked_until.getTime() > Date.now()) {
        await failed('account locked');
        const seconds = (user.locked_until.getTime() - Date.now()) / 1000;
        throw tooManyRequests('Too many failed sign-in attempts. Try again later.', seconds);
      }
      const ok = await hasher.verify(user?.password_hash ?? null, body.password);
      if (!user || !ok) {
        if (user) await users.recordFailedLogin(user.id);
        await failed('wrong credentials');
        throw unauthenticated(AuthMessages.invalidCredentials, 'invalid_credentials');
      }
      if (user.failed_logins > 0) await users.update(user.id, { failed_logins: 0, locked_until: null });
      const refusal = refuseInactive(user);
      if (refusal) {
        await failed(refusal.message === AuthMessages.providerUnderReview ? 'pending approval' : 'deactivated');
        throw refusal;
      }
      await sendVerificationCode(user, 'login', await codeExpiry());
      await audit.record({
        userId: user.id,
        action: 'auth.login.password',
        table: 'users',
        recordId: user.id,
        ip: ctx.ip,
        reason: 'second factor mailed',
      });
      return { otpRequired: true, email: user.email };
    },

    /** Confirms the e-mail after registration and completes the second factor of a login. */
    async confirm(body: ConfirmBody, ctx: RequestContext): Promise<{ data: ConfirmResponseData; message: string }> {
      const user = await users.getByEmail(body.email);
      const result = await checkCode(user?.id ?? null, 'verify', body.code);
      if (result !== 'ok' || !user) {
        await audit.recordQuietly({
          userId: user?.id ?? null,
          action: 'auth.confirm',
          table: 'users',
          recordId: user?.id ?? null,
          ip: ctx.ip,
          status: 'failure',
          reason: result === 'locked' ? 'code locked' : 'wrong or expired code',
        });
        if (result === 'locked') throw tooManyRequests(AuthMessages.codeLocked);
        throw badRequest(AuthMessages.invalidCode, [{ field: 'code', message: AuthMessages.invalidCode }]);
      }
      if (!user.email_verified_at) await users.update(user.id, { email_verified_at: new Date() });
      if (isPendingProvider(user)) {
        await audit.record({
          userId: user.id,
          action: 'auth.confirm',
          table: 'users',
          recordId: user.id,
          ip: ctx.ip,
          reason: 'e-mail confirmed; awaiting approval',
        });
        return { data: { pending: true }, message: AuthMessages.providerUnderReview };
      }
      const refusal = refuseInactive(user);
      if (refusal) throw refusal;
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

    /** Same answer whatever the account; re-sends only an open code, at most once a minute. */
    async resendCode(email: string, ctx: RequestContext): Promise<void> {
      const user = await users.getByEmail(email);
      if (!user) return;
      const last = await repo.latestCode(user.id, 'verify');
      if (!last || last.consumed_at || Date.now() - last.created_at.getTime() < RESEND_INTERVAL_MS) return;
      if (Date.now() - last.created_at.getTime() > 60 * 60_000) return;
      await sendVerificationCode(user, user.email_verified_at ? 'login' : 'register', await codeExpiry());
      await audit.record({
        userId: user.id,
        action: 'auth.code.resend',
        table: 'users',
        recordId: user.id,
        ip: ctx.ip,
      });
    },

    /**
     * Same answer, in about the same time, whether or not the account exists: the code and the mail
     * are made after answering, so neither timing nor an SMTP outage tells who is registered.
     */
    async forgotPassword(email: string, ctx: RequestContext): Promise<void> {
      const user = await users.getByEmail(email);
      if (!user) return;
      const work = issueReset(user, ctx).catch((err: unknown) => {
        deps.log.error({ err: { message: (err as Error).message }, userId: user.id }, 'password reset mail failed');
      });
      pendingWork.add(work);
      void work.finally(() => pendingWork.delete(work));
    },

    /** Resolves when background work (reset mails) has finished; for tests and graceful shutdown. */
    async settled(): Promise<void> {
      await Promise.all([...pendingWork]);
    },

    async resetPassword(body: ResetPasswordBody, ctx: RequestContext): Promise<void> {
      let user: UserWithRole | undefined;
      let password: string;
      if ('token' in body) {
        const row = await repo.openCodeByToken(sha256Hex(body.token));
        user = row ? await users.getById(row.user_id) : undefined;
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
        password = body.password;
        const policy = checkPassword(password, user, 'password');
        if (policy.length) throw validationFailed(policy);
      } else {
        user = await users.getByEmail(body.email);
        password = body.newPassword;
        // Policy first, so a weak new password does not burn one of the code's tries.
        const policy = user ? checkPassword(password, user, 'newPassword') : [];
        if (policy.length) throw validationFailed(policy);
        const result = await checkCode(user?.id ?? null, 'reset', body.otp);
        if (result !== 'ok' || !user) {
          await audit.recordQuietly({
            userId: user?.id ?? null,
            action: 'auth.password.reset',
            table: 'users',
            ip: ctx.ip,
            status: 'failure',
            reason: result === 'locked' ? 'code locked' : 'wrong or expired code',
          });
          if (result === 'locked') throw tooManyRequests(AuthMessages.codeLocked);
          throw badRequest(AuthMessages.invalidCode, [{ field: 'otp', message: AuthMessages.invalidCode }]);
        }
      }
      const target = user;
      await db.transaction().execute(async (trx) => {
        await createUsersRepository(trx).update(target.id, {
          password_hash: await hasher.hash(password),
          password_changed_at: new Date(),
          failed_logins: 0,
          locked_until: null,
          // Reading the mailed code proves control of the mailbox.
          email_verified_at: target.email_verified_at ?? new Date(),
        });
        const authRepo = createAuthRepository(trx);
        await authRepo.revokeUserSessions(target.id, 'password reset');
      });
      sessionsRevoked(target.id);
      await audit.record({
        userId: target.id,
        action: 'auth.password.reset',
        table: 'users',
        recordId: target.id,
        ip: ctx.ip,
        reason: 'all sessions revoked',
      });
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
      const session = await repo.getSessionForAuth(claims.sid);
      if (!session || session.user_id !== claims.sub || session.revoked_at)
        throw unauthenticated(AuthFailure.failed + ': session ended', 'session_revoked');
      const now = Date.now();
      if (session.expires_at.getTime() <= now) throw unauthenticated(AuthFailure.expired, 'token_expired');
      const { sessionIdleMinutes } = await settings.effective();
      if (now - session.last_seen_at.getTime() > sessionIdleMinutes * 60_000) {
        await repo.revokeSession(session.id, 'idle');
        throw unauthenticated(AuthFailure.expired + ': session idle', 'session_idle');
      }
      const { live_user_id: userId, role, active, approved_at } = session;
      if (!userId || !role || !active || isPendingProvider({ approved_at })) {
        await repo.revokeSession(session.id, 'user inactive');
        throw unauthenticated(AuthFailure.failed + ': account inactive', 'account_inactive');
      }
      if (now - session.last_seen_at.getTime() > TOUCH_INTERVAL_MS) await repo.touchSession(session.id, new Date(now));
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

import {
  FUTURE_DATE_OF_BIRTH_MESSAGE,
  isFutureDateOfBirth,
  type AdminSummary,
  type DashboardStats,
  type FieldError,
  LIST_MAX_WINDOW,
  SEARCH_MAX_WINDOW,
  type ListUsersPagedQuery,
  type Pagination,
  type RoleName,
  type UpdateProfileBody,
  type User,
  type UserListItem,
  type UserProfileView,
  UserMessages,
} from '@medshare/contracts';
import type { PasswordHasher } from '../../crypto/passwords.ts';
import type { Db } from '../../db/db.ts';
import type { UserUpdate } from '../../db/schema.ts';
import { badRequest, conflict, forbidden, notFound, tooManyRequests, validationFailed } from '../../errors.ts';
import { assertInWindow, windowedPagination } from '../../http/list-window.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { accountActivatedMail } from '../../mail/templates.ts';
import type { AuditEvent, AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import {
  blankToNull,
  presentAdminSummary,
  presentCare,
  presentPublic,
  presentSummary,
  presentUser,
} from './users.presenter.ts';
import { type UserListFilter, type UserWithRole, createUsersRepository } from './users.repository.ts';

/** Told about every deleted account, inside the deleting transaction: use only `trx`. */
export interface UserDeletedEvent {
  userId: string;
  role: RoleName;
  /** Who deleted it: the user themself or an admin. */
  deletedBy: string;
  self: boolean;
}
export type UserDeletedHook = (event: UserDeletedEvent, trx: Db) => Promise<void>;

export interface ImageStats {
  totalImages: number;
  sharedImages: number;
}
/** Counts of the images the actor may see; provided by the images module. */
export type ImageStatsProvider = (actor: Actor) => Promise<ImageStats>;
/** Uploads per calendar day (in `timeZone`) between two dates inclusive; days without uploads may be left out. */
export type UploadsPerDayProvider = (q: {
  from: string;
  to: string;
  timeZone: string;
}) => Promise<Array<{ date: string; count: number }>>;

interface Deps {
  db: Db;
  audit: AuditService;
  mailer: Mailer;
  hasher: PasswordHasher;
  settings: SettingsService;
  publicUrl: string;
  /** Ends every session of a user at once (deactivation, deletion). */
  revokeSessions: (userId: string, reason: string) => Promise<unknown>;
  /** Run, in order, inside the transaction that deletes an account (e.g. images revoke shares). */
  onUserDeleted?: UserDeletedHook[];
  imageStats?: ImageStatsProvider;
  uploadsPerDay?: UploadsPerDayProvider;
  /** From this offset on, the count is taken first so that back-half pages are read from the end. */
  deepOffset?: number;
  /** Rows of the table reachable by offset paging and counted (LIST_MAX_WINDOW; smaller in tests). */
  listWindow?: number;
}

const PATIENT_ONLY = ['bloodgroup', 'primphysician'] as const;
const PROVIDER_ONLY = ['licensenumber', 'specialization'] as const;
const SUMMARY_DAYS = 14;
const PENDING_PREVIEW = 5;

/** 'YYYY-MM-DD' of an instant in a time zone. */
function calendarDate(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function createUsersService(deps: Deps) {
  const { db, audit, mailer, hasher, settings, publicUrl, revokeSessions } = deps;
  const users = createUsersRepository(db);
  const onUserDeleted = deps.onUserDeleted ?? [];
  /** An action and its audit rows commit together (docs/security.md › Audit trail). */
  const transaction = audit.transactor(db, (trx) => ({
    users: createUsersRepository(trx),
    /** The other modules' deletion hooks, on this transaction. */
    userDeleted: async (event: UserDeletedEvent) => {
      for (const hook of onUserDeleted) await hook(event, trx);
    },
  }));
  const deepOffset = deps.deepOffset ?? 5_000;
  const listWindow = deps.listWindow ?? LIST_MAX_WINDOW;
  const imageProviders = { imageStats: deps.imageStats, uploadsPerDay: deps.uploadsPerDay };
  let roleIdCache: Map<RoleName, number> | null = null;

  async function roleIdsOf(...names: RoleName[]): Promise<number[]> {
    roleIdCache ??= await users.roleIds();
    return names.map((n) => roleIdCache!.get(n)).filter((id): id is number => id !== undefined);
  }

  /**
   * The users a viewer may know exist, as a list filter (by permission, never by role name:
   * `docs/architecture.md` › Roles and permissions).
   */
  async function visibleTo(actor: Actor): Promise<UserListFilter> {
    if (actor.permissions.has('users:manage'))
      return { roleIds: null, usableOnly: false, pendingOnly: false, search: null };
    if (actor.permissions.has('users:read')) {
      return {
        roleIds: await roleIdsOf('patient', 'healthProvider'),
        usableOnly: true,
        pendingOnly: false,
        search: null,
      };
    }
    return { roleIds: await roleIdsOf('healthProvider', 'admin'), usableOnly: true, pendingOnly: false, search: null };
  }

  const isUsable = (u: UserWithRole) => u.active && u.approved_at !== null;

  /** Scrubs the account, runs the deletion hooks and ends its sessions; refuses to remove the last active admin. */
  async function softDelete(actor: Actor, target: UserWithRole, self: boolean): Promise<void> {
    await transaction.run(async ({ users: txUsers, userDeleted, audit: auditInTx }) => {
      if (target.role === 'admin' && target.active) {
        const admins = await txUsers.lockActiveAdmins();
        if (admins.length <= 1 && admins.includes(target.id)) throw conflict(UserMessages.lastAdmin);
      }
      // Deleted by a request that committed since the caller's read (a second click, or an admin
      // and the account's own deletion at once): that one is recorded, this one changes nothing.
      if (!(await txUsers.scrub(target.id))) throw notFound('User not found');
      await userDeleted({ userId: target.id, role: target.role, deletedBy: actor.userId, self });
      await auditInTx([
        {
          userId: actor.userId,
          action: self ? 'account.delete' : 'user.delete',
          table: 'users',
          recordId: target.id,
          ip: actor.ip,
          reason: `role=${target.role}; personal data scrubbed; sessions revoked`,
        },
      ]);
    });
    // Authentication already refuses a deleted account; this records why its sessions ended.
    await revokeSessions(target.id, 'account deleted');
  }

  return {
    async getProfile(actor: Actor): Promise<User> {
      const row = await users.getById(actor.userId);
      if (!row) throw notFound('User not found');
      return presentUser(row);
    },

    /**
     * Own profile edit. '' and null clear a field, a missing field stays as it is. Fields of the
     * other role (a patient's blood group for a provider, a provider's licence for a patient) are
     * refused when given a value, and accepted when empty, since the edit form sends every field.
     */
    async updateProfile(actor: Actor, body: UpdateProfileBody): Promise<User> {
      const current = await users.getById(actor.userId);
      if (!current) throw notFound('User not found');
      const errors: FieldError[] = [];
      const refuse = (fields: readonly (keyof UpdateProfileBody)[], message: string) => {
        for (const f of fields) {
          const v = body[f];
          if (v !== undefined && v !== null && v !== '') errors.push({ field: f, message });
        }
      };
      if (current.role !== 'patient') refuse(PATIENT_ONLY, 'Only patients have this field');
      if (current.role !== 'healthProvider') refuse(PROVIDER_ONLY, 'Only health providers have this field');
      if (body.dob && body.dob !== current.dob && isFutureDateOfBirth(body.dob))
        errors.push({ field: 'dob', message: FUTURE_DATE_OF_BIRTH_MESSAGE });
      if (errors.length) throw validationFailed(errors);

      const { firstname, lastname, ...optional } = body;
      const given = Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined));
      const patch: UserUpdate = { ...blankToNull(given) } as UserUpdate;
      if (firstname !== undefined) patch.firstname = firstname;
      if (lastname !== undefined) patch.lastname = lastname;
      const changed = Object.keys(patch).filter(
        (k) => (patch as Record<string, unknown>)[k] !== (current as Record<string, unknown>)[k],
      );
      if (changed.length) {
        await transaction.run(async ({ users: txUsers, audit: auditInTx }) => {
          if (!(await txUsers.update(actor.userId, patch))) throw notFound('User not found');
          // Field names only: the values are personal data.
          await auditInTx([
            {
              userId: actor.userId,
              action: 'user.update',
              table: 'users',
              recordId: actor.userId,
              ip: actor.ip,
              reason: `fields=${changed.sort().join(',')}`,
            },
          ]);
        });
      }
      const updated = await users.getById(actor.userId);
      if (!updated) throw notFound('User not found');
      return presentUser(updated);
    },

    /**
     * Deletes one's own account after checking the password. Each try is counted before the check
     * (`takePasswordTry`), so that tries sent at once cannot pass the lock: before, 40 at once were all
     * checked.
     */
    async deleteOwnAccount(actor: Actor, password: string): Promise<void> {
      const me = await users.getById(actor.userId);
      if (!me) throw notFound('User not found');
      const now = new Date();
      const attempt = await users.takePasswordTry(me.id, now);
      if (!attempt.taken) {
        if (!attempt.lockedUntil) throw notFound('User not found');
        throw tooManyRequests(
          'Too many failed attempts. Try again later.',
          Math.max(1, (attempt.lockedUntil.getTime() - now.getTime()) / 1000),
        );
      }
      if (!(await hasher.verify(me.password_hash, password))) {
        await audit.record({
          userId: me.id,
          action: 'account.delete',
          table: 'users',
          recordId: me.id,
          ip: actor.ip,
          status: 'failure',
          reason: 'wrong password',
        });
        throw badRequest(UserMessages.wrongPassword, [{ field: 'password', message: UserMessages.wrongPassword }]);
      }
      await softDelete(actor, me, true);
    },

    /** Admin deletes another account (users:manage); never oneself here, never the last active admin. */
    async deleteUser(actor: Actor, id: string): Promise<void> {
      if (!actor.permissions.has('users:manage')) throw forbidden();
      const target = await users.getById(id);
      if (!target) throw notFound('User not found');
      if (target.id === actor.userId) throw conflict('Delete your own account from your profile');
      await softDelete(actor, target, false);
    },

    /**
     * Another user's profile in the widest view the actor may have; 404 for anyone they may not know.
     * A look at someone else's profile is audited (which view), one's own is not.
     */
    async getUser(actor: Actor, id: string): Promise<UserProfileView> {
      const target = await users.getById(id);
      if (!target) throw notFound('User not found');
      if (target.id === actor.userId) return { view: 'full', ...presentUser(target) };
      let view: UserProfileView | null = null;
      if (actor.permissions.has('users:manage')) view = { view: 'full', ...presentUser(target) };
      else if (!isUsable(target)) view = null;
      else if (actor.permissions.has('users:read') && (target.role === 'patient' || target.role === 'healthProvider'))
        view = presentCare(target);
      else if (target.role === 'healthProvider' || target.role === 'admin') view = presentPublic(target);
      if (!view) throw notFound('User not found');
      await audit.record({
        userId: actor.userId,
        action: 'user.profile.read',
        table: 'users',
        recordId: target.id,
        ip: actor.ip,
        reason: `view=${view.view} role=${target.role}`,
      });
      return view;
    },

    /** The dashboard's users table: users:read; admins see every account with its state. */
    async listUsers(actor: Actor, q: ListUsersPagedQuery): Promise<{ items: UserListItem[]; pagination: Pagination }> {
      if (!actor.permissions.has('users:read')) throw forbidden();
      const admin = actor.permissions.has('users:manage');
      if (q.pending && !admin) throw forbidden();
      const filter = await visibleTo(actor);
      if (q.role) {
        const [id] = await roleIdsOf(q.role);
        filter.roleIds = filter.roleIds ? filter.roleIds.filter((r) => r === id) : [id ?? -1];
      }
      if (q.pending) filter.pendingOnly = true;
      const search = q.search?.toLowerCase().replace(/\s+/g, ' ');
      if (search) filter.search = search;
      const offset = (q.page - 1) * q.limit;
      const window = search ? Math.min(listWindow, SEARCH_MAX_WINDOW) : listWindow;
      const reachOthers = search
        ? 'refine the search to reach the others'
        : 'search or filter by role to reach the others';
      assertInWindow(offset, 'matching users', reachOthers, window);
      const sort = { key: q.sort, dir: q.order };
      const cap = window + 1;
      let rows: Awaited<ReturnType<typeof users.list>>;
      let counted: number;
      if (offset < deepOffset && !filter.search) {
        [rows, counted] = await Promise.all([users.list(filter, sort, offset, q.limit), users.countUpTo(filter, cap)]);
      } else {
        // Deep pages in the back half are read from the end in reverse order: the worst offset is
        // then half the table, and the last page is as cheap as the first. Only when the count is
        // exact: past the window the end of the table is unknown, and the offset is bounded anyway.
        // A search is counted first too: the list is planned by how many rows match.
        counted = await users.countUpTo(filter, cap);
        const exact = counted <= window;
        const take = exact ? Math.max(0, Math.min(q.limit, counted - offset)) : q.limit;
        if (take === 0) rows = [];
        else if (exact && offset >= deepOffset && offset > counted / 2)
          rows = (
            await users.list(
              filter,
              { ...sort, dir: q.order === 'asc' ? 'desc' : 'asc' },
              counted - offset - take,
              take,
            )
          ).reverse();
        // Sorting the matches of a search that matches more than the window costs every match (10^5
        // of 10^6 users: 200 ms); listDense finds most pages of such dense matches without sorting.
        else if (!exact && filter.search) rows = await users.listDense(filter, sort, offset, take, listWindow);
        else rows = await users.list(filter, sort, offset, take);
      }
      // Which page of whom, never the search text (it may be a name).
      await audit.record({
        userId: actor.userId,
        action: 'users.list.read',
        table: 'users',
        ip: actor.ip,
        reason: [
          `listed=${rows.length} page=${q.page}`,
          q.role ? `role=${q.role}` : null,
          q.pending ? 'pending' : null,
          search ? 'search' : null,
        ]
          .filter(Boolean)
          .join(' '),
      });
      return {
        items: rows.map(admin ? presentAdminSummary : presentSummary),
        pagination: windowedPagination(q.page, q.limit, counted, window),
      };
    },

    /** The dashboard's three cards. Image counts come from the images module once it is wired. */
    async stats(actor: Actor): Promise<DashboardStats> {
      const totalUsers = await users.count(await visibleTo(actor));
      const images = imageProviders.imageStats ? await imageProviders.imageStats(actor) : null;
      return {
        totalUsers,
        totalImages: images?.totalImages ?? 0,
        sharedImages: images?.sharedImages ?? 0,
        imageStatsAvailable: images !== null,
      };
    },

    /** The admin dashboard: approvals waiting, users by role, uploads per day (last 14 days). */
    async adminSummary(actor: Actor): Promise<AdminSummary> {
      if (!actor.permissions.has('users:manage')) throw forbidden();
      const pendingFilter: UserListFilter = { roleIds: null, usableOnly: false, pendingOnly: true, search: null };
      const { displayTimeZone } = await settings.effective();
      const to = calendarDate(new Date(), displayTimeZone);
      const from = addDays(to, -(SUMMARY_DAYS - 1));
      const [pendingCount, pendingRows, byRole, uploads] = await Promise.all([
        users.count(pendingFilter),
        users.list(pendingFilter, { key: 'createdAt', dir: 'asc' }, 0, PENDING_PREVIEW),
        users.countByRole(),
        imageProviders.uploadsPerDay
          ? imageProviders.uploadsPerDay({ from, to, timeZone: displayTimeZone })
          : Promise.resolve(null),
      ]);
      const usersByRole = { patient: 0, healthProvider: 0, admin: 0 };
      let activeUsers = 0;
      for (const r of byRole) {
        usersByRole[r.role] = r.total;
        activeUsers += r.active;
      }
      await audit.record({
        userId: actor.userId,
        action: 'admin.summary.read',
        table: 'users',
        ip: actor.ip,
        reason: `pending listed=${pendingRows.length}`,
      });
      const perDay = new Map((uploads ?? []).map((u) => [u.date, u.count]));
      return {
        pendingProviders: { count: pendingCount, items: pendingRows.map(presentAdminSummary) },
        usersByRole,
        activeUsers,
        uploadsPerDay: Array.from({ length: SUMMARY_DAYS }, (_, i) => {
          const date = addDays(from, i);
          return { date, count: perDay.get(date) ?? 0 };
        }),
        uploadsAvailable: uploads !== null,
      };
    },

    /**
     * Activates a pending provider (approval) or a deactivated user, or deactivates an active one.
     * Nobody deactivates themself or the last active admin; deactivation ends the user's sessions at once.
     */
    /**
     * Approves a pending provider, activates or deactivates an account (admin). `intent.active` is
     * the state the admin wants (what the web app sends): an account already in it is answered as it
     * is, so a repeated request (a double click, two admins at once) changes nothing twice and never
     * turns an approval into a deactivation. Without it, the state read decides, as a toggle.
     */
    async toggleUserStatus(actor: Actor, id: string, intent?: { active: boolean }): Promise<User> {
      if (!actor.permissions.has('users:manage')) throw forbidden();
      // Read, decide, write only while still as read; a request that lost to another reads again
      // (twice at most: each loss is another admin's committed change).
      for (let round = 0; ; round++) {
        const target = await users.getById(id);
        if (!target) throw notFound('User not found');
        const approving = target.approved_at === null;
        const activate = intent ? intent.active : approving || !target.active;
        const already = activate ? target.active && !approving : !target.active;
        if (already && intent) return presentUser(target);
        if (!activate && target.id === actor.userId) throw conflict('You cannot deactivate your own account');
        // The change and its audit row commit together.
        const event: AuditEvent = {
          userId: actor.userId,
          action: approving && activate ? 'user.approve' : activate ? 'user.activate' : 'user.deactivate',
          table: 'users',
          recordId: id,
          ip: actor.ip,
        };
        const outcome = await transaction.run(async ({ users: txUsers, audit: auditInTx }) => {
          // Locked, so that two admins deactivating each other at once cannot both pass.
          if (!activate && target.role === 'admin') {
            const admins = await txUsers.lockActiveAdmins();
            if (admins.length <= 1 && admins.includes(target.id))
              throw conflict('The last active administrator cannot be deactivated');
          }
          // A deletion that committed since the read leaves no account to change (404); a change
          // that committed since moved it: this one would repeat or undo that.
          const written = await txUsers.updateStatus(
            id,
            { active: target.active, approved: !approving },
            activate ? { active: true, approved_at: target.approved_at ?? new Date() } : { active: false },
          );
          if (written === 'gone') throw notFound('User not found');
          if (written === 'changed') await auditInTx([event]);
          return written;
        });
        if (outcome === 'moved') {
          // A toggle has no state of its own to reach: it answers the account as the other left it.
          if (intent && round < 2) continue;
          const now = await users.getById(id);
          if (!now) throw notFound('User not found');
          return presentUser(now);
        }
        if (!activate) await revokeSessions(id, 'deactivated');
        if (approving && activate) {
          const mail = accountActivatedMail(target.firstname, `${publicUrl}/login`);
          // The approval stands even if the courtesy mail cannot go out now.
          await mailer.send({ to: target.email, ...mail }).catch(() => undefined);
        }
        const updated = await users.getById(id);
        if (!updated) throw notFound('User not found');
        return presentUser(updated);
      }
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;

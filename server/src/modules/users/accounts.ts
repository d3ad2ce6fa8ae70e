import type { RoleName, User } from '@medshare/contracts';
import type { Db } from '../../db/db.ts';
import type { NewUser, UserUpdate } from '../../db/schema.ts';
import { blankToNull, presentUser } from './users.presenter.ts';
import { type UserWithRole, createUsersRepository } from './users.repository.ts';

/** An account as stored (hashes and lockout state included), with its role's name; never sent as it is. */
export type AccountRow = UserWithRole;

/** The account queries auth needs, on one connection or transaction handle. */
export interface AccountStore {
  getById(id: string): Promise<AccountRow | undefined>;
  getByEmail(email: string): Promise<AccountRow | undefined>;
  /** Which of the two unique identities are taken, case-insensitively. */
  findTaken(email: string, username: string): Promise<{ email: boolean; username: boolean }>;
  roleId(name: RoleName): Promise<number>;
  create(user: NewUser): Promise<{ id: string }>;
  /** false when no live account was changed (deleted since it was read). */
  update(id: string, patch: UserUpdate): Promise<boolean>;
}

/**
 * What the users module lets another module (auth: registration, sign-in, reset) do with accounts.
 * Passed in at construction, so auth imports neither the users repository nor its presenter, and
 * `on(trx)` binds the queries to a transaction (PGlite has one connection).
 */
export interface UserAccounts {
  on(db: Db): AccountStore;
  /** The one shape an account leaves the server in (no hash, code or lockout state). */
  present(row: AccountRow): User;
  /** Profile fields as stored: blank strings and missing values become null. */
  storedProfile<T extends Record<string, unknown>>(input: T): { [K in keyof T]: Exclude<T[K], ''> | null };
}

export const userAccounts: UserAccounts = {
  on(db) {
    const repo = createUsersRepository(db);
    return {
      getById: repo.getById,
      getByEmail: repo.getByEmail,
      findTaken: repo.findTaken,
      roleId: repo.roleId,
      create: repo.create,
      update: repo.update,
    };
  },
  present: presentUser,
  storedProfile: blankToNull,
};

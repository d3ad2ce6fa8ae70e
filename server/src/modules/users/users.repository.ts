import type { RoleName } from '@medshare/contracts';
import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import { countUpTo } from '../../http/list-window.ts';
import type { NewUser, UserRow, UserUpdate } from '../../db/schema.ts';

export type UserWithRole = UserRow & { role: RoleName };

export type UserSortKey = 'name' | 'email' | 'role' | 'createdAt';
export interface ListSort {
  key: UserSortKey;
  dir: 'asc' | 'desc';
}

/** Which users a list or count covers; built by the service from the viewer's permissions. */
export interface UserListFilter {
  /** Only these roles (null: any role). */
  roleIds: number[] | null;
  /** Only active, approved accounts. */
  usableOnly: boolean;
  /** Only providers awaiting approval. */
  pendingOnly: boolean;
  /** Lower-cased prefix of the full name, last name, e-mail or username. */
  search: string | null;
}

export interface UserListRow {
  id: string;
  firstname: string;
  lastname: string;
  username: string;
  email: string;
  role: RoleName;
  gender: UserRow['gender'];
  active: boolean;
  approved_at: Date | null;
  created_at: Date;
}

// The same expressions as the indexes of migrations 0004 and 0007, or the planner cannot use them.
const fullNameC = sql<string>`lower(users.firstname || ' ' || users.lastname) COLLATE "C"`;
const lastNameC = sql<string>`lower(users.lastname) COLLATE "C"`;
const emailC = sql<string>`lower(users.email) COLLATE "C"`;
const usernameC = sql<string>`lower(users.username) COLLATE "C"`;

/** LIKE pattern for "starts with", with the wildcard characters of the input taken literally. */
export function prefixPattern(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
}

/**
 * The least string above every string that starts with `prefix`, in the byte order of COLLATE "C" (UTF-8: code
 * point order); null when nothing is above them. Lone surrogates are counted as sent: U+FFFD.
 */
export function prefixEnd(prefix: string): string | null {
  const chars = [...prefix.replace(/\p{Cs}/gu, '\uFFFD')];
  while (chars.length) {
    const last = chars.pop()!.codePointAt(0)!;
    // U+D800–U+DFFF are no characters (UTF-8 has none): above U+D7FF comes U+E000.
    if (last < 0x10ffff) return chars.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return null;
}

const searchKeys = [fullNameC, lastNameC, emailC, usernameC];

/** Rows where one of `keys` (all four by default) starts with the search. */
function searchWhere(search: string, keys = searchKeys): Expression<SqlBool> {
  const p = prefixPattern(search);
  return sql<SqlBool>`(${sql.join(
    keys.map((k) => sql`${k} LIKE ${p}`),
    sql` OR `,
  )})`;
}

function listWhere(filter: UserListFilter): Expression<SqlBool>[] {
  const where: Expression<SqlBool>[] = [sql<SqlBool>`users.deleted_at IS NULL`];
  if (filter.roleIds) {
    where.push(
      filter.roleIds.length ? sql<SqlBool>`users.role_id IN (${sql.join(filter.roleIds)})` : sql<SqlBool>`false`,
    );
  }
  if (filter.usableOnly) where.push(sql<SqlBool>`users.active AND users.approved_at IS NOT NULL`);
  if (filter.pendingOnly) where.push(sql<SqlBool>`users.approved_at IS NULL`);
  return where;
}

/** The leading key of every sort but role (a joined name): the expression of an index the list can walk. */
const leadingKey: Record<Exclude<UserSortKey, 'role'>, RawBuilder<unknown>> = {
  name: fullNameC,
  email: emailC,
  createdAt: sql`users.created_at`,
};

/** The order within one role of the role sort: newest first when ascending (see orderBy). */
function withinRole(dir: 'asc' | 'desc') {
  // Tie-breakers follow the index direction (users_live_role_created_idx is role_id, created_at DESC, id ASC).
  return dir === 'asc' ? sql`users.created_at DESC, users.id ASC` : sql`users.created_at ASC, users.id DESC`;
}

/**
 * Every ordering is total (id last) and exactly reversed by flipping `dir`, so deep pages can be read from the end.
 * `lead` stands for the leading key (a walked page orders by its copy in a column, see walkedPage).
 */
function orderBy(key: UserSortKey, dir: 'asc' | 'desc', lead?: Expression<unknown>) {
  const d = sql.raw(dir === 'asc' ? 'ASC' : 'DESC');
  switch (key) {
    case 'name':
      return sql`${lead ?? leadingKey.name} ${d}, users.id ${d}`;
    case 'email':
      return sql`${lead ?? leadingKey.email} ${d}, users.id ${d}`;
    case 'role':
      return sql`roles.name ${d}, ${withinRole(dir)}`;
    case 'createdAt':
      // As users_live_created_idx (created_at DESC, id ASC) is walked one way or the other.
      return sql`${lead ?? leadingKey.createdAt} ${d}, users.id ${sql.raw(dir === 'asc' ? 'DESC' : 'ASC')}`;
  }
}

const listColumns = [
  'users.id',
  'users.firstname',
  'users.lastname',
  'users.username',
  'users.email',
  'users.gender',
  'users.active',
  'users.approved_at',
  'users.created_at',
] as const;

export function createUsersRepository(db: Db) {
  const withRole = () =>
    db
      .selectFrom('users')
      .innerJoin('roles', 'roles.id', 'users.role_id')
      .selectAll('users')
      .select(sql<RoleName>`roles.name`.as('role'));

  /**
   * The users a list covers. With a search, the matches are found first (OFFSET 0 keeps the
   * planner from flattening the subquery): a BitmapOr over the four prefix indexes, instead of
   * walking the sort index and filtering, which is slow when few rows match.
   */
  const source = (filter: UserListFilter) => {
    const q = db.selectFrom('users').selectAll();
    // deleted_at inside too: the partial indexes apply only when the query implies their predicate.
    return (filter.search ? q.where('deleted_at', 'is', null).where(searchWhere(filter.search)).offset(0) : q).as(
      'users',
    );
  };

  /**
   * One page of the users table, sorting the full rows of every user the filter covers (a search's matches are
   * found first and sorted, see source). The page of a search; `list` gives the same page without one.
   */
  const sortedPage = (filter: UserListFilter, sort: ListSort, offset: number, limit: number): Promise<UserListRow[]> =>
    db
      .selectFrom(source(filter))
      .innerJoin('roles', 'roles.id', 'users.role_id')
      .select(listColumns)
      .select(sql<RoleName>`roles.name`.as('role'))
      .where((eb) => eb.and(listWhere(filter)))
      .orderBy(orderBy(sort.key, sort.dir))
      .offset(offset)
      .limit(limit)
      .execute();

  /**
   * The ids of one page without a search, found by a walk of the sort's covering index (migration 0007): the
   * `offset` rows skipped cost an index entry each, not a heap row and a join. The role sort walks each role's
   * rows in their order (at most `offset + limit` of each: no later one can be on the page) and merges them by
   * the role's name, instead of sorting every user by a joined name.
   */
  const pageIds = (filter: UserListFilter, sort: ListSort, offset: number, limit: number) => {
    const where = listWhere(filter);
    if (sort.key !== 'role')
      return db
        .selectFrom('users')
        .select('users.id')
        .where((eb) => eb.and(where))
        .orderBy(orderBy(sort.key, sort.dir))
        .offset(offset)
        .limit(limit);
    return db
      .selectFrom('roles')
      .innerJoinLateral(
        (eb) =>
          eb
            .selectFrom('users')
            .select(['users.id', 'users.created_at'])
            .where((w) => w.and([...where, sql<SqlBool>`users.role_id = roles.id`]))
            .orderBy(withinRole(sort.dir))
            .limit(offset + limit)
            .as('users'),
        (join) => join.onTrue(),
      )
      .select('users.id')
      .orderBy(orderBy(sort.key, sort.dir))
      .offset(offset)
      .limit(limit);
  };

  /**
   * One page of the users table. Without a search, a deferred join: the page's ids are found first in a
   * narrow index-only walk (pageIds), then only their rows are read and joined (10^6 users, offset 9 995:
   * 4.8 ms → 1.2 ms). The same rows in the same order as `sortedPage`: the ordering is total.
   */
  const list = (filter: UserListFilter, sort: ListSort, offset: number, limit: number): Promise<UserListRow[]> =>
    filter.search
      ? sortedPage(filter, sort, offset, limit)
      : db
          .selectFrom(pageIds(filter, sort, offset, limit).as('page'))
          .innerJoin('users', 'users.id', 'page.id')
          .innerJoin('roles', 'roles.id', 'users.role_id')
          .select(listColumns)
          .select(sql<RoleName>`roles.name`.as('role'))
          .orderBy(orderBy(sort.key, sort.dir))
          .execute();

  /**
   * The same page as `list`, from the first `walkRows` rows of the sort order only (a walk of the sort's index)
   * and the matches among them: exact, since the rows walked are the first of the sort order, so their matches
   * are the first matches. Null when they hold fewer matches than the page needs, without a search, and for the
   * role sort (by a joined name: no index to walk). Dense matches fill a page long before all could be sorted.
   */
  const walkedPage = async (
    filter: UserListFilter,
    sort: ListSort,
    offset: number,
    limit: number,
    walkRows: number,
  ): Promise<UserListRow[] | null> => {
    const { search } = filter;
    if (!search || sort.key === 'role') return null;
    // The key as a column: the outer ORDER BY by it keeps the walk's order (no sort) and stops the walk early.
    const walked = db
      .selectFrom('users')
      .selectAll()
      .select(leadingKey[sort.key].as('sort_key'))
      .where((eb) => eb.and(listWhere(filter)))
      .orderBy(orderBy(sort.key, sort.dir))
      .limit(walkRows)
      .as('users');
    const rows = await db
      .selectFrom(walked)
      .innerJoin('roles', 'roles.id', 'users.role_id')
      .select(listColumns)
      .select(sql<RoleName>`roles.name`.as('role'))
      .where(searchWhere(search))
      .orderBy(orderBy(sort.key, sort.dir, sql.ref('users.sort_key')))
      .offset(offset)
      .limit(limit)
      .execute();
    return rows.length === limit ? rows : null;
  };

  /**
   * The same page as `list` for the name and e-mail sorts, where the search's matches on the sort key itself
   * (a name search under the name sort) are one range of the sort's index: read from the range's start, only
   * as many as the page needs, since no later one can be on the page. The other matches are found and sorted
   * as in `list`: cheap when few (else the walk answers). Null for the other sorts.
   */
  const splitPage = async (
    filter: UserListFilter,
    sort: ListSort,
    offset: number,
    limit: number,
  ): Promise<UserListRow[] | null> => {
    const { search } = filter;
    if (!search || (sort.key !== 'name' && sort.key !== 'email')) return null;
    const key = leadingKey[sort.key];
    const p = prefixPattern(search);
    // Bounded on one side only, so that the planner walks the index from there (the LIKE range of a deep
    // page it fetched whole and sorted: 300 ms for 10^5 matches).
    const end = sort.dir === 'desc' ? prefixEnd(search) : null;
    const fromRangeStart =
      sort.dir === 'asc'
        ? sql<SqlBool>`${key} >= ${search}`
        : end === null
          ? sql<SqlBool>`true`
          : sql<SqlBool>`${key} < ${end}`;
    const walked = db
      .selectFrom('users')
      .selectAll()
      .select(key.as('sort_key'))
      .where((eb) => eb.and([...listWhere(filter), fromRangeStart]))
      .orderBy(orderBy(sort.key, sort.dir))
      .limit(offset + limit)
      .as('users');
    const inRange = db
      .selectFrom(walked)
      .selectAll()
      .where(sql<SqlBool>`users.sort_key LIKE ${p}`);
    // OFFSET 0 as in source: the planner finds these first rather than walking the index for them.
    const others = db
      .selectFrom('users')
      .selectAll()
      .select(key.as('sort_key'))
      .where((eb) =>
        eb.and([
          ...listWhere(filter),
          searchWhere(
            search,
            searchKeys.filter((k) => k !== key),
          ),
          sql<SqlBool>`NOT ${key} LIKE ${p}`,
        ]),
      )
      .offset(0);
    return db
      .selectFrom(inRange.unionAll(others).as('users'))
      .innerJoin('roles', 'roles.id', 'users.role_id')
      .select(listColumns)
      .select(sql<RoleName>`roles.name`.as('role'))
      .orderBy(orderBy(sort.key, sort.dir, sql.ref('users.sort_key')))
      .offset(offset)
      .limit(limit)
      .execute();
  };

  return {
    getById: (id: string): Promise<UserWithRole | undefined> =>
      withRole().where('users.id', '=', id).where('users.deleted_at', 'is', null).executeTakeFirst(),

    getByEmail: (email: string): Promise<UserWithRole | undefined> =>
      withRole()
        .where(sql`lower(users.email)`, '=', email.toLowerCase())
        .where('users.deleted_at', 'is', null)
        .executeTakeFirst(),

    /** Which of the two unique identities are taken (a deleted account holds only tombstones, see scrub). */
    async findTaken(email: string, username: string): Promise<{ email: boolean; username: boolean }> {
      const rows = await db
        .selectFrom('users')
        .select([sql<string>`lower(email)`.as('email'), sql<string>`lower(username)`.as('username')])
        .where((eb) =>
          eb.or([
            eb(sql`lower(email)`, '=', email.toLowerCase()),
            eb(sql`lower(username)`, '=', username.toLowerCase()),
          ]),
        )
        .execute();
      return {
        email: rows.some((r) => r.email === email.toLowerCase()),
        username: rows.some((r) => r.username === username.toLowerCase()),
      };
    },

    async roleId(name: RoleName): Promise<number> {
      const row = await db.selectFrom('roles').select('id').where('name', '=', name).executeTakeFirstOrThrow();
      return row.id;
    },

    list,
    sortedPage,
    walkedPage,
    splitPage,

    /**
     * One page of a search known to match more than `walkRows` rows (the list window): the same page as `list`,
     * without finding and sorting every match when it can. The walk answers when the matches are spread over
     * the sort order (a name search under the date sort), the split when they gather in one range of it (under
     * the name sort). A walk in vain costs about what sorting the fewest such matches (`walkRows`) would.
     */
    listDense: async (
      filter: UserListFilter,
      sort: ListSort,
      offset: number,
      limit: number,
      walkRows: number,
    ): Promise<UserListRow[]> =>
      (await walkedPage(filter, sort, offset, limit, walkRows)) ??
      (await splitPage(filter, sort, offset, limit)) ??
      (await list(filter, sort, offset, limit)),

    async count(filter: UserListFilter): Promise<number> {
      const row = await db
        .selectFrom(source(filter))
        .select(sql<number>`count(*)::int`.as('n'))
        .where((eb) => eb.and(listWhere(filter)))
        .executeTakeFirstOrThrow();
      return row.n;
    },

    /** Matching users counted up to `cap` only, for the paged table (the exact count is for the dashboard cards). */
    async countUpTo(filter: UserListFilter, cap: number): Promise<number> {
      const { search } = filter;
      if (search) {
        // The search's bitmap reads every index entry of a broad term before it counts a row (10^5 of
        // 10^6 users: 12 ms). Each key's index range is walked in order first, `cap` rows at most:
        // one key reaching the cap settles the answer; otherwise the matches are few and the
        // bitmap below is cheap. CASE evaluates the walks one at a time and stops at the first full one.
        const p = prefixPattern(search);
        const walks = searchKeys.map(
          (key) => sql`WHEN (SELECT count(*) FROM (SELECT 1 FROM users
            WHERE ${sql.join(listWhere(filter), sql` AND `)} AND ${key} LIKE ${p}
            ORDER BY ${key} LIMIT ${cap}) w) >= ${cap} THEN true`,
        );
        const { rows } = await sql<{
          full: boolean;
        }>`SELECT CASE ${sql.join(walks, sql` `)} ELSE false END AS full`.execute(db);
        if (rows[0]?.full) return cap;
      }
      const rows = db
        .selectFrom(source(filter))
        .select(sql`1`.as('one'))
        .where((eb) => eb.and(listWhere(filter)));
      return countUpTo(db, rows, cap);
    },

    async countByRole(): Promise<Array<{ role: RoleName; total: number; active: number }>> {
      return db
        .selectFrom('users')
        .innerJoin('roles', 'roles.id', 'users.role_id')
        .select(sql<RoleName>`roles.name`.as('role'))
        .select(sql<number>`count(*)::int`.as('total'))
        .select(sql<number>`(count(*) FILTER (WHERE users.active AND users.approved_at IS NOT NULL))::int`.as('active'))
        .where('users.deleted_at', 'is', null)
        .groupBy('roles.name')
        .execute();
    },

    async roleIds(): Promise<Map<RoleName, number>> {
      const rows = await db.selectFrom('roles').select(['id', 'name']).execute();
      return new Map(rows.map((r) => [r.name as RoleName, r.id]));
    },

    /**
     * Locks the active admins' rows until the transaction ends, so that two admins removing each
     * other at once cannot both pass the last-admin check. Use on a transaction handle. `NO KEY`:
     * rows that point at an admin (an upload by one, a share to one) take a key-share lock on it
     * while holding the audit head, which the locker appends to next; under `FOR UPDATE` the two
     * deadlocked (PostgreSQL answered one of them 500).
     */
    async lockActiveAdmins(): Promise<string[]> {
      const rows = await db
        .selectFrom('users')
        .innerJoin('roles', 'roles.id', 'users.role_id')
        .select('users.id')
        .where('roles.name', '=', 'admin')
        .where('users.active', '=', true)
        .where('users.deleted_at', 'is', null)
        .forNoKeyUpdate('users')
        .execute();
      return rows.map((r) => r.id);
    },

    /**
     * Soft delete: the row stays (audit rows point at it) but every personal field is scrubbed.
     * The e-mail and username become unique tombstones, so both can be registered again. False
     * when the account was deleted already (nothing changed).
     */
    async scrub(id: string): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({
          email: `deleted-${id}@deleted.invalid`,
          username: `deleted-${id}`,
          // Not an argon2 hash: no password can ever match it.
          password_hash: '!deleted',
          firstname: 'Deleted',
          lastname: 'user',
          phone: null,
          dob: null,
          gender: null,
          address: null,
          city: null,
          state: null,
          country: null,
          zipcode: null,
          bio: null,
          taxid: null,
          licensenumber: null,
          insurancenumber: null,
          specialization: null,
          bloodgroup: null,
          primphysician: null,
          active: false,
          failed_logins: 0,
          locked_until: null,
          deleted_at: new Date(),
          updated_at: new Date(),
        })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await db.deleteFrom('one_time_codes').where('user_id', '=', id).execute();
      return true;
    },

    create: (user: NewUser) => db.insertInto('users').values(user).returning('id').executeTakeFirstOrThrow(),

    /**
     * Changes a live account; false when there is none (deleted, maybe by a request that committed
     * while the caller's read was in flight: a scrubbed row must never get its fields back).
     */
    update: async (id: string, patch: UserUpdate): Promise<boolean> => {
      const result = await db
        .updateTable('users')
        .set({ ...patch, updated_at: new Date() })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /**
     * Changes a live account's status only while it is still as the caller read it (`from`):
     * 'changed', 'moved' when another request changed it first (two admins approving or toggling at
     * once: the second would redo the first's change or undo it), 'gone' when it was deleted.
     */
    updateStatus: async (
      id: string,
      from: { active: boolean; approved: boolean },
      patch: Pick<UserUpdate, 'active' | 'approved_at'>,
    ): Promise<'changed' | 'moved' | 'gone'> => {
      const result = await db
        .updateTable('users')
        .set({ ...patch, updated_at: new Date() })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where('active', '=', from.active)
        .where('approved_at', from.approved ? 'is not' : 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n) return 'changed';
      const live = await db
        .selectFrom('users')
        .select('id')
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return live ? 'moved' : 'gone';
    },

    /**
     * Counts a password try before it is checked (the account deletion's), unless the account is
     * locked; every fifth try locks it for a growing time (15 min, doubling to at most 24 h) in the
     * same statement, so tries sent at once get at most five checks between locks. Not taken: the
     * lock's end, or null when the account is gone.
     */
    async takePasswordTry(
      id: string,
      now: Date,
    ): Promise<{ taken: true } | { taken: false; lockedUntil: Date | null }> {
      const taken = await db
        .updateTable('users')
        .set({
          failed_logins: sql<number>`failed_logins + 1`,
          locked_until: sql<Date | null>`CASE WHEN (failed_logins + 1) % 5 = 0
            THEN ${now}::timestamptz + make_interval(mins => LEAST(15 * power(2, (failed_logins + 1) / 5 - 1), 1440)::int)
            ELSE locked_until END`,
        })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .returning('id')
        .executeTakeFirst();
      if (taken) return { taken: true };
      const row = await db
        .selectFrom('users')
        .select('locked_until')
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return { taken: false, lockedUntil: row?.locked_until ?? null };
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;

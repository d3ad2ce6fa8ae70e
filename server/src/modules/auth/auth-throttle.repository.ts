import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';

/**
 * Counters of auth_throttles (migration 0009). Each statement is one atomic upsert, so parallel
 * requests cannot slip past a limit; times come from the database clock, shared by every instance.
 */
export function createAuthThrottleRepository(db: Db) {
  return {
    /**
     * Counts one try of a lock-on-failures key before it is checked, unless the key is locked now.
     * Every `every`-th try locks it for `baseMinutes`, doubling per lock up to `maxMinutes`. The count
     * is forgotten `forgetMinutes` after the last try (or after the lock ends). Null when locked.
     */
    async takeLockedTry(
      key: string,
      rule: { every: number; baseMinutes: number; maxMinutes: number; forgetMinutes: number },
    ): Promise<{ hits: number } | null> {
      const hits = sql<number>`(CASE WHEN auth_throttles.expires_at <= now() THEN 1 ELSE auth_throttles.hits + 1 END)`;
      const lock = sql<Date | null>`(CASE WHEN ${hits} % ${rule.every} = 0
        THEN now() + make_interval(mins => least(${rule.baseMinutes} * power(2, ${hits} / ${rule.every} - 1), ${rule.maxMinutes})::int)
        ELSE NULL END)`;
      const forget = sql`make_interval(mins => ${rule.forgetMinutes})`;
      const row = await db
        .insertInto('auth_throttles')
        .values({
          key,
          hits: 1,
          window_ends_at: sql`now()`,
          locked_until: null,
          expires_at: sql`now() + ${forget}`,
        })
        .onConflict((oc) =>
          oc
            .column('key')
            .doUpdateSet({
              hits,
              locked_until: lock,
              expires_at: sql`coalesce(${lock}, now()) + ${forget}`,
            })
            .where((eb) =>
              eb.or([
                eb('auth_throttles.locked_until', 'is', null),
                eb('auth_throttles.locked_until', '<=', sql<Date>`now()`),
              ]),
            ),
        )
        .returning('hits')
        .executeTakeFirst();
      return row ?? null;
    },

    /** Counts one hit in a fixed window of `windowSeconds` (a new window starts after it ends); the count and its end. */
    async hitWindow(key: string, windowSeconds: number): Promise<{ hits: number; windowEndsAt: Date }> {
      const fresh = sql<boolean>`auth_throttles.window_ends_at <= now()`;
      const end = sql<Date>`now() + make_interval(secs => ${windowSeconds})`;
      const row = await db
        .insertInto('auth_throttles')
        .values({ key, hits: 1, window_ends_at: end, locked_until: null, expires_at: end })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            hits: sql`CASE WHEN ${fresh} THEN 1 ELSE auth_throttles.hits + 1 END`,
            window_ends_at: sql`CASE WHEN ${fresh} THEN excluded.window_ends_at ELSE auth_throttles.window_ends_at END`,
            expires_at: sql`CASE WHEN ${fresh} THEN excluded.expires_at ELSE auth_throttles.expires_at END`,
          }),
        )
        .returning(['hits', 'window_ends_at'])
        .executeTakeFirstOrThrow();
      return { hits: row.hits, windowEndsAt: row.window_ends_at };
    },

    /** Marks a key for `seconds` from now (a later mark moves the end). */
    mark: (key: string, seconds: number) => {
      const end = sql<Date>`now() + make_interval(secs => ${seconds})`;
      return db
        .insertInto('auth_throttles')
        .values({ key, hits: 0, window_ends_at: end, locked_until: null, expires_at: end })
        .onConflict((oc) => oc.column('key').doUpdateSet({ window_ends_at: end, expires_at: end }))
        .execute();
    },

    isMarked: async (key: string): Promise<boolean> =>
      (await db
        .selectFrom('auth_throttles')
        .select('key')
        .where('key', '=', key)
        .where('window_ends_at', '>', sql<Date>`now()`)
        .executeTakeFirst()) !== undefined,

    /** Gives one hit back (a try that turned out not to count). */
    giveBack: (key: string) =>
      db
        .updateTable('auth_throttles')
        .set((eb) => ({ hits: eb('hits', '-', 1) }))
        .where('key', '=', key)
        .where('hits', '>', 0)
        .execute(),

    lockedUntil: async (key: string): Promise<Date | null> =>
      (await db.selectFrom('auth_throttles').select('locked_until').where('key', '=', key).executeTakeFirst())
        ?.locked_until ?? null,

    forget: (key: string) => db.deleteFrom('auth_throttles').where('key', '=', key).execute(),

    prune: () =>
      db
        .deleteFrom('auth_throttles')
        .where('expires_at', '<=', sql<Date>`now()`)
        .execute(),
  };
}
export type AuthThrottleRepository = ReturnType<typeof createAuthThrottleRepository>;

import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';

export function createSettingsRepository(db: Db) {
  return {
    list: () => db.selectFrom('app_settings').selectAll().orderBy('name').execute(),
    getById: (id: string) => db.selectFrom('app_settings').selectAll().where('id', '=', id).executeTakeFirst(),
    getByName: (name: string) =>
      db
        .selectFrom('app_settings')
        .selectAll()
        .where(sql`lower(name)`, '=', name.toLowerCase())
        .executeTakeFirst(),
    create: (row: { name: string; value: string; description: string | null }) =>
      db.insertInto('app_settings').values(row).returningAll().executeTakeFirstOrThrow(),
    update: (id: string, row: { name: string; value: string; description: string | null }) =>
      db
        .updateTable('app_settings')
        .set({ ...row, updated_at: new Date() })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst(),
    /** A setting's row, locked until the caller's transaction ends. */
    lockById: (id: string) =>
      db.selectFrom('app_settings').selectAll().where('id', '=', id).forUpdate().executeTakeFirst(),
    delete: (id: string) => db.deleteFrom('app_settings').where('id', '=', id).returningAll().executeTakeFirst(),
    /**
     * The named settings' values, their rows locked until the caller's transaction ends (always in
     * name order, so that two transactions locking the same rows cannot deadlock).
     */
    lockValues: async (names: readonly string[]): Promise<Map<string, string>> => {
      const rows = await db
        .selectFrom('app_settings')
        .select(['name', 'value'])
        .where(
          sql`lower(name)`,
          'in',
          names.map((n) => n.toLowerCase()),
        )
        .orderBy('name')
        .forUpdate()
        .execute();
      return new Map(rows.map((r) => [r.name.toLowerCase(), r.value]));
    },
  };
}
export type SettingsRepository = ReturnType<typeof createSettingsRepository>;

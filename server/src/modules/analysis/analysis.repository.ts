import type { Insertable } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { AnalysesTable, AnalysisRow } from '../../db/schema.ts';

export function createAnalysisRepository(db: Db) {
  return {
    async create(row: Insertable<AnalysesTable>): Promise<AnalysisRow> {
      return db.insertInto('analyses').values(row).returningAll().executeTakeFirstOrThrow();
    },

    /** The newest analysis of an image, or undefined. */
    latestForImage(imageId: string): Promise<AnalysisRow | undefined> {
      return db
        .selectFrom('analyses')
        .selectAll()
        .where('image_id', '=', imageId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    /** One page of an image's analyses, newest first, with the total. */
    async listForImage(
      imageId: string,
      limit: number,
      offset: number,
    ): Promise<{ rows: AnalysisRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('analyses')
          .selectAll()
          .where('image_id', '=', imageId)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
        db
          .selectFrom('analyses')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('image_id', '=', imageId)
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },
  };
}
export type AnalysisRepository = ReturnType<typeof createAnalysisRepository>;

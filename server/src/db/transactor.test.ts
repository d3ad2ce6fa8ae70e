import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createTestDatabase, testDbKind } from '../../test/database.ts';
import { createImagesRepository } from '../modules/images/images.repository.ts';
import { createSettingsRepository } from '../modules/settings/settings.repository.ts';
import { type DatabaseHandle, type Db, openDatabase } from './db.ts';
import { migrateToLatest } from './migrate.ts';
import { createTransactor } from './transactor.ts';

let handle: DatabaseHandle;
let drop: () => Promise<void>;
beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  handle = await openDatabase(database.target);
  await migrateToLatest(handle.db);
});
afterAll(async () => {
  await handle?.close();
  await drop?.();
});

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'timed out'>((resolve) => setTimeout(() => resolve('timed out'), ms).unref())]);

const reposOf = (trx: Db) => ({
  settings: createSettingsRepository(trx),
  images: createImagesRepository(trx),
});

describe('transaction port', () => {
  it('runs several repository calls in one transaction and commits (no query waits on the outer handle)', async () => {
    const transaction = createTransactor(handle.db, reposOf);
    const done = transaction.run(async ({ settings, images }) => {
      const row = await settings.create({ name: 'transactor_test', value: '1', description: null });
      await settings.update(row!.id, { name: 'transactor_test', value: '2', description: null });
      const counts = await images.countAll();
      const [listed] = await Promise.all([settings.list(), images.pendingThumbnails(10)]);
      return { counts, names: listed.map((s) => s.name) };
    });
    const result = await within(done, 5_000);
    expect(result).not.toBe('timed out');
    expect(result).toMatchObject({ counts: { total: 0, shared: 0 } });
    expect((await createSettingsRepository(handle.db).getByName('transactor_test'))?.value).toBe('2');
  });

  it('rolls everything back when the callback throws', async () => {
    const transaction = createTransactor(handle.db, reposOf);
    const failed = transaction.run(async ({ settings }) => {
      await settings.create({ name: 'transactor_rollback', value: '1', description: null });
      throw new Error('refused');
    });
    await expect(failed).rejects.toThrow('refused');
    expect(await createSettingsRepository(handle.db).getByName('transactor_rollback')).toBeUndefined();
  });

  it.runIf(testDbKind === 'pglite')('is needed: on PGlite, a query on db inside a bare transaction waits', async () => {
    let waited: unknown;
    await handle.db.transaction().execute(async () => {
      // The hazard the port removes: this query can only run once the transaction has ended.
      waited = await within(createSettingsRepository(handle.db).list(), 300);
    });
    expect(waited).toBe('timed out');
  });

  it('fails at once, instead of hanging, when the callback reaches db some other way', async () => {
    const transaction = createTransactor(handle.db, reposOf);
    const outer = createSettingsRepository(handle.db);
    const reachedDb = transaction.run(async ({ settings }) => {
      await settings.create({ name: 'transactor_outer', value: '1', description: null });
      return outer.list(); // a repository from the enclosing scope, on db
    });
    expect(
      await within(
        reachedDb.catch((err: unknown) => err),
        5_000,
      ),
    ).toMatchObject({
      message: expect.stringMatching(/query on db inside transaction\.run/),
    });
    expect(await outer.getByName('transactor_outer')).toBeUndefined(); // and the transaction rolled back
    const nested = transaction.run(() => transaction.run(async ({ images }) => images.countAll()));
    expect(
      await within(
        nested.catch((err: unknown) => err),
        5_000,
      ),
    ).toBeInstanceOf(Error);
  });

  it('lets work the callback left running query db once the transaction is over', async () => {
    const transaction = createTransactor(handle.db, reposOf);
    let later: Promise<unknown> = Promise.resolve();
    await transaction.run(async ({ settings }) => {
      await settings.create({ name: 'transactor_later', value: '1', description: null });
      later = new Promise((resolve) => setTimeout(resolve, 50)).then(() =>
        createSettingsRepository(handle.db).getByName('transactor_later'),
      );
    });
    expect(await within(later, 5_000)).toMatchObject({ value: '1' });
  });

  it('hands the callback repositories only: the database handle is not reachable from its argument', () => {
    const _transaction = createTransactor(handle.db, reposOf);
    type Repos = Parameters<Parameters<typeof _transaction.run>[0]>[0];
    expectTypeOf<Repos>().toEqualTypeOf<ReturnType<typeof reposOf>>();
    expectTypeOf<Repos[keyof Repos]>().not.toMatchTypeOf<Db>();
    // @ts-expect-error a query handle among the repositories does not compile
    createTransactor(handle.db, (trx) => ({ settings: createSettingsRepository(trx), trx }));
    // @ts-expect-error nor does the outer handle
    createTransactor(handle.db, () => ({ db: handle.db }));
  });
});

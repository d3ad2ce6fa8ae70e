import { describe, expect, it } from 'vitest';
import { createGroupCommit } from './group-commit.ts';
import type { Transactor } from './transactor.ts';

/**
 * A stand-in database: `direct` writes commit at once; a transaction records its writes and commits
 * them only when its callback resolves (a failure discards them all), as PostgreSQL does. Each write
 * takes a turn of the event loop, as a round trip does.
 */
function fakeDatabase() {
  const committed: string[] = [];
  const transactions: string[][] = [];
  const writer = (into: string[]) => ({
    async write(value: string) {
      await new Promise((resolve) => setImmediate(resolve));
      if (value.startsWith('bad')) throw new Error(`refused ${value}`);
      into.push(value);
      return value.toUpperCase();
    },
  });
  const transaction: Transactor<ReturnType<typeof writer>> = {
    async run(fn) {
      const pending: string[] = [];
      const out = await fn(writer(pending));
      transactions.push(pending);
      committed.push(...pending);
      return out;
    },
  };
  return { committed, transactions, transaction, direct: writer(committed) };
}

describe('group commit (db/group-commit.ts)', () => {
  it('runs a write alone at once, and the writes that arrive meanwhile together in the next transaction', async () => {
    const db = fakeDatabase();
    const commit = createGroupCommit(db.transaction, db.direct);
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((v) => commit((r) => r.write(v))));
    expect(answers).toEqual(['A', 'B', 'C', 'D']);
    expect(db.committed).toEqual(['a', 'b', 'c', 'd']);
    // 'a' alone (nothing else was waiting), then b, c and d in one transaction.
    expect(db.transactions).toEqual([['b', 'c', 'd']]);
  });

  it('resolves each write only after its transaction committed', async () => {
    const db = fakeDatabase();
    const commit = createGroupCommit(db.transaction, db.direct);
    const seen: string[][] = [];
    await Promise.all(['a', 'b', 'c'].map((v) => commit((r) => r.write(v)).then(() => seen.push([...db.committed]))));
    for (const [i, snapshot] of seen.entries()) expect(snapshot).toContain(['a', 'b', 'c'][i]);
  });

  it('a write that fails in a group fails alone: the others run again alone and commit', async () => {
    const db = fakeDatabase();
    const commit = createGroupCommit(db.transaction, db.direct);
    const outcomes = await Promise.allSettled(['a', 'b', 'bad-c', 'd'].map((v) => commit((r) => r.write(v))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toEqual(new Error('refused bad-c'));
    // The group's transaction (b, bad-c, d) committed nothing; b and d committed on their own.
    expect(db.transactions).toEqual([]);
    expect(db.committed).toEqual(['a', 'b', 'd']);
  });

  it('takes at most maxBatch writes per transaction', async () => {
    const db = fakeDatabase();
    const commit = createGroupCommit(db.transaction, db.direct, { maxBatch: 2 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((v) => commit((r) => r.write(v))));
    expect(db.transactions).toEqual([
      ['b', 'c'],
      ['d', 'e'],
    ]);
    expect(db.committed).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('runs every write’s `prepare` in the batch before any write, and a write marked `alone` by itself, in order', async () => {
    const db = fakeDatabase();
    const commit = createGroupCommit(db.transaction, db.direct);
    await Promise.all([
      commit((r) => r.write('a')),
      commit((r) => r.write('b'), { prepare: (r) => r.write('lock-b') }),
      commit((r) => r.write('c'), { prepare: (r) => r.write('lock-c') }),
      commit((r) => r.write('d'), { alone: true }),
      commit((r) => r.write('e')),
      commit((r) => r.write('f')),
    ]);
    // 'a' alone; then b and c with their locks first; 'd' alone; then e and f.
    expect(db.transactions).toEqual([
      ['lock-b', 'lock-c', 'b', 'c'],
      ['e', 'f'],
    ]);
    expect(db.committed).toEqual(['a', 'lock-b', 'lock-c', 'b', 'c', 'd', 'e', 'f']);
  });

  it('takes a lock named by the same `prepareKey` once per batch', async () => {
    const db = fakeDatabase();
    const commit = createGroupCommit(db.transaction, db.direct);
    const joining = (v: string, key: string) =>
      commit((r) => r.write(v), { prepare: (r) => r.write(`lock-${key}`), prepareKey: key });
    await Promise.all([commit((r) => r.write('a')), joining('b', 's1'), joining('c', 's1'), joining('d', 's2')]);
    expect(db.transactions).toEqual([['lock-s1', 'lock-s2', 'b', 'c', 'd']]);
  });
});

import type { Transactor } from './transactor.ts';

/** Statements one group commit takes at most (one transaction, one commit). */
export const GROUP_COMMIT_MAX = 16;

/**
 * Group commit for writes that each take the audit chain's head lock (an upload's row, share and
 * audit rows: images.repository.ts insertUpload). Such writes run one after another anyway: the lock
 * is held until the commit, WAL flush included. Here the writes that arrive while one commits run
 * together in the next transaction: one lock turn and one flush for all of them
 * (`bench/RESULTS.md` › Ingest: what waits for what). A write alone runs alone, as before.
 * When a transaction of several fails, each of its writes runs again alone, so that each gets its
 * own outcome (one upload's failure never fails another). Every promise resolves after its commit.
 */
export function createGroupCommit<R>(
  transaction: Transactor<R>,
  direct: R,
  { maxBatch = GROUP_COMMIT_MAX }: { maxBatch?: number } = {},
) {
  interface Job {
    run: (repos: R) => Promise<unknown>;
    resolve: (value: unknown) => void;
    reject: (err: unknown) => void;
    alone: boolean;
    prepare: ((repos: R) => Promise<unknown>) | undefined;
    prepareKey: string | undefined;
  }
  const waiting: Job[] = [];
  let draining = false;

  const alone = (job: Job) => job.run(direct).then(job.resolve, job.reject);

  async function drain() {
    draining = true;
    try {
      while (waiting.length) {
        // A job that must run alone goes by itself; the others up to it (or to `maxBatch`) together.
        const stop = waiting.findIndex((job) => job.alone);
        const batch = waiting.splice(0, stop === 0 ? 1 : Math.min(maxBatch, stop < 0 ? maxBatch : stop));
        if (batch.length === 1) {
          await alone(batch[0]!);
          continue;
        }
        const results = await transaction
          .run(async (repos) => {
            // Every write's own locks first, before any of them takes the audit head; a lock that an
            // earlier write of the batch took already (the same key) is not asked for again.
            const prepared = new Set<string>();
            for (const job of batch) {
              if (job.prepareKey !== undefined && prepared.has(job.prepareKey)) continue;
              if (job.prepareKey !== undefined) prepared.add(job.prepareKey);
              await job.prepare?.(repos);
            }
            const out: unknown[] = [];
            for (const job of batch) out.push(await job.run(repos));
            return out;
          })
          .catch(() => null);
        if (results) batch.forEach((job, i) => job.resolve(results[i]));
        else for (const job of batch) await alone(job);
      }
    } finally {
      draining = false;
    }
  }

  /**
   * A write whose statement takes a row lock before the audit head (a joined study share's) must
   * take it before the head in a batch too, where an earlier write already holds the head: a
   * transaction holding that row and waiting for the head (the share's verify or revoke) would
   * deadlock with the batch. `prepare` takes such locks first, in the batch's transaction; alone,
   * the statement orders them itself; `prepareKey` names what it locks, taken once per batch. `alone`:
   * never batched (a write that inserts a row others may be inserting under the same unique key,
   * waiting for them while the batch holds the head).
   */
  return function commit<T>(
    run: (repos: R) => Promise<T>,
    {
      alone = false,
      prepare,
      prepareKey,
    }: { alone?: boolean; prepare?: (repos: R) => Promise<unknown>; prepareKey?: string } = {},
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      waiting.push({ run, resolve: resolve as (value: unknown) => void, reject, alone, prepare, prepareKey });
      if (!draining) void drain();
    });
  };
}
export type GroupCommit<R> = ReturnType<typeof createGroupCommit<R>>;

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
  }
  const waiting: Job[] = [];
  let draining = false;

  const alone = (job: Job) => job.run(direct).then(job.resolve, job.reject);

  async function drain() {
    draining = true;
    try {
      while (waiting.length) {
        const batch = waiting.splice(0, maxBatch);
        if (batch.length === 1) {
          await alone(batch[0]!);
          continue;
        }
        const results = await transaction
          .run(async (repos) => {
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

  return function commit<T>(run: (repos: R) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      waiting.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (!draining) void drain();
    });
  };
}
export type GroupCommit<R> = ReturnType<typeof createGroupCommit<R>>;

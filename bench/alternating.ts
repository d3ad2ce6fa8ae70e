/**
 * Rounds of one load against one or two MedShare servers, alternating between them: this tree's, and
 * with `--base DIR` another checkout's (e.g. a `git worktree` of the base commit sharing this tree's
 * node_modules), each started by its own tree's bench/support.ts on its own database. Only such pairs
 * compare on a noisy machine. Used by bench/retrieve.ts and bench/frames.ts.
 */
import { join } from 'node:path';
import type * as Support from './support.ts';

type S = typeof Support;
export type MedShare = Awaited<ReturnType<S['startMedShare']>>;

export interface Tree<T> {
  label: string;
  /** The tree's own bench/support.ts, so that a base checkout runs its own code throughout. */
  s: S;
  ms: MedShare;
  /** What `prepare` made on that server (ids, paths, a token). */
  data: T;
}

/** Starts a server per tree (the base first), each on its own port and database, and prepares it. */
export async function startTrees<T>(opts: {
  base: string | undefined;
  port: number;
  database: string;
  prepare: (s: S, ms: MedShare, label: string) => Promise<T>;
}): Promise<Tree<T>[]> {
  const dirs: Array<[string, string]> = [
    ...(opts.base ? [['base', opts.base] as [string, string]] : []),
    ['this tree', join(import.meta.dirname, '..')],
  ];
  const trees: Tree<T>[] = [];
  try {
    for (const [label, dir] of dirs) {
      const s: S = await import(join(dir, 'bench/support.ts'));
      const ms = await s.startMedShare({
        port: opts.port + trees.length,
        database: `${opts.database}_${trees.length}`,
      });
      trees.push({ label, s, ms, data: undefined as T });
      trees.at(-1)!.data = await opts.prepare(s, ms, label);
    }
  } catch (err) {
    await stopTrees(trees);
    throw err;
  }
  return trees;
}

/** Waits until no server has a deferred thumbnail left, so that none is billed to the reads. */
export async function thumbnailsDone(trees: Tree<unknown>[]): Promise<void> {
  for (const { s, ms } of trees)
    for (;;) {
      const pending = await s.withPg(ms.databaseUrl, async (c) =>
        Number((await c.query(`SELECT count(*) AS n FROM images WHERE thumbnail_status = 'pending'`)).rows[0].n),
      );
      if (pending === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
}

/**
 * `rounds` rounds, each running `round` once per tree in turn; prints each round's figures and, at the
 * end, their medians over rounds 2.. (round 1 warms each server up).
 */
export async function alternate<T>(
  trees: Tree<T>[],
  rounds: number,
  round: (tree: Tree<T>) => Promise<Record<string, number>>,
  unit: string,
): Promise<void> {
  const figures = new Map<string, Record<string, number[]>>();
  for (let n = 1; n <= rounds; n++) {
    for (const tree of trees) {
      const row = await round(tree);
      if (n > 1) {
        const mine = figures.get(tree.label) ?? {};
        for (const [k, v] of Object.entries(row)) (mine[k] ??= []).push(v);
        figures.set(tree.label, mine);
      }
      console.log(`round ${n} ${tree.label.padEnd(9)} ${format(row)}`);
    }
  }
  console.log(`\nmedians of rounds 2.. (CPU in ms per ${unit}):`);
  const { median } = trees[0]!.s;
  for (const [label, mine] of figures)
    console.log(
      `${label.padEnd(9)} ${format(Object.fromEntries(Object.entries(mine).map(([k, v]) => [k, median(v)])))}`,
    );
}

/**
 * `reads` GETs of `pathOf(i)` by `concurrency` clients on one tree's server, each of which must answer
 * 200: the phase's wall time, bytes and CPU (support.ts phase).
 */
export function timedReads(
  { label, s, ms }: Tree<unknown>,
  reads: number,
  concurrency: number,
  pathOf: (i: number) => string,
  headers: Record<string, string>,
): Promise<Support.Phase> {
  let got = 0;
  return s.phase(
    ms.child.pid!,
    reads,
    () => got,
    () =>
      s.runPool(reads, concurrency, async (i) => {
        const res = await s.request(ms.port, 'GET', pathOf(i), null, headers);
        if (res.status !== 200) throw new Error(`${label}: ${pathOf(i)} answered ${res.status}`);
        got += res.body.length;
      }),
  );
}

export async function stopTrees(trees: Tree<unknown>[]): Promise<void> {
  for (const { ms } of trees) await ms.stop();
  for (const { s } of trees) s.agent.destroy();
}

/** Digits a figure is printed with: rates and MiB whole, MB/s to a tenth, CPU milliseconds to the microsecond. */
const digitsOf = (key: string) => (key === 'MB/s' ? 1 : key.endsWith('/s') || key.includes('MiB') ? 0 : 3);

function format(row: Record<string, number>): string {
  return Object.entries(row)
    .map(([k, v]) => `${k} ${v.toFixed(digitsOf(k))}`)
    .join(', ');
}

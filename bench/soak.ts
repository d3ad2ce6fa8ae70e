/**
 * Soak: the mixed workload of bench/load-mixed.ts at moderate load for a long time, watching the
 * server's memory. Stable memory is the target: RSS may grow while caches and pools warm up, then
 * should level off.
 *
 *   npx node bench/soak.ts [--minutes 10] [--clients 20] [--think 200] [--db postgres|pglite]
 *
 * Samples the server's RSS every 10 s (from /proc) and prints start, end and peak RSS and the slope
 * (least squares, MB per minute) over the whole run and over its second half, where warm-up is
 * over. Exits 1 on any unexpected error answer. Not part of npm test.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { machine, report, runMixedLoad } from './load-mixed.ts';

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return num / den;
}

async function main() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      clients: { type: 'string', default: '20' },
      think: { type: 'string', default: '200' },
      db: { type: 'string', default: 'postgres' },
    },
  });
  const db = values.db === 'pglite' ? 'pglite' : 'postgres';
  console.log(`machine: ${machine()}`);
  console.log(
    `soak: ${values.minutes} min, ${values.clients} clients, think ${values.think} ms (±50 %), ${db} + Redis`,
  );
  let lastCount = 0;
  const result = await runMixedLoad({
    clients: Number(values.clients),
    durationS: Number(values.minutes) * 60,
    thinkMs: Number(values.think),
    db,
    onTick: (elapsed, stats) => {
      const n = stats.requests;
      console.log(
        `  ${elapsed.toFixed(0).padStart(4)} s  ${((n - lastCount) / 10).toFixed(1)} req/s  errors ${stats.errors}`,
      );
      lastCount = n;
    },
  });
  report(result);

  // One RSS sample every 10 s from the 1 s samples.
  const start = result.samples[0]!.at;
  const every10: Array<[number, number]> = [];
  for (const s of result.samples) {
    const minute = (s.at - start) / 60_000;
    if (!every10.length || s.at - start >= every10.length * 10_000) every10.push([minute, s.rssMb]);
  }
  console.log('\nRSS every 10 s (MB):');
  console.log(every10.map(([, mb]) => mb.toFixed(0)).join(' '));
  const rss = every10.map(([, mb]) => mb);
  const secondHalf = every10.filter(([m]) => m >= every10.at(-1)![0] / 2);
  console.log(
    `RSS start ${rss[0]!.toFixed(0)} MB, end ${rss.at(-1)!.toFixed(0)} MB, peak ${Math.max(...rss).toFixed(0)} MB; ` +
      `slope ${slope(every10).toFixed(2)} MB/min over the run, ${slope(secondHalf).toFixed(2)} MB/min over the second half`,
  );
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  process.exit(result.stats.errors ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});

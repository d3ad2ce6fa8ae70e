import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { WorkerMemoryRequest, WorkerRequest, WorkerResponse } from './worker-protocol.ts';

/** A DICOM object the worker refused (status and a message safe to show). */
export class DicomRefused extends Error {
  override name = 'DicomRefused';
  readonly status: 400 | 413 | 415;
  constructor(status: 400 | 413 | 415, message: string) {
    super(message);
    this.status = status;
  }
}

/** The worker failed on the object (library error, time limit, crash): the object cannot be processed. */
export class DicomJobFailed extends Error {
  override name = 'DicomJobFailed';
}

/** One owner already has MAX_QUEUED_PER_OWNER jobs waiting: the new one is refused, not queued. */
export class DicomBusy extends Error {
  override name = 'DicomBusy';
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type Job = DistributiveOmit<WorkerRequest, 'id' | 'bytes'> & {
  /**
   * The object's bytes, moved to the worker. A function is called only when a worker is free, so
   * that a waiting job holds no copy of its file (40 queued reads of one 100 MB object held 4 GB).
   */
  bytes: ArrayBuffer | (() => Promise<ArrayBuffer>);
  /** Whose job this is (the actor's user id; the uploader's for background work): the queue is fair between owners. */
  owner: string;
  timeoutMs: number;
};

/** At most: 2, so that a spare can serve others while one long job runs; up to 4 on machines with cores to spare. */
export const DEFAULT_POOL_SIZE = Math.max(2, Math.min(4, cpus().length - 1));
/**
 * How long a job waits for a busy pool before one more worker starts (it is ready ~0.2 s later). One
 * worker keeps up with a steady upload load; each more costs 40–70 MiB under load (its V8 heap, its
 * codecs' memory, its malloc arena), so a spare starts only when jobs queue behind a long one or a burst.
 */
export const GROW_AFTER_MS = 100;
/** A worker beyond the first that has had no job for this long is stopped. */
export const SPARE_IDLE_MS = 30_000;
/** A new worker's start-up (module loading, ~0.2 s here), which jobs waiting behind it do not count. */
const START_UP_MS = 500;
/** Jobs one owner may have waiting; past it the pool answers busy (429) instead of growing the queue. */
export const MAX_QUEUED_PER_OWNER = 64;

interface Slot {
  worker: Worker;
  busy: boolean;
  /** Set while a spare worker has no job: it stops when this fires. */
  idle?: NodeJS.Timeout;
  /** performance.now() when it was started. */
  startedAt: number;
}
interface Entry {
  job: Job;
  /** performance.now() when the job was asked for. */
  queuedAt: number;
  resolve: (v: unknown) => void;
  /** Whatever the job failed with: a bytes reader may throw a non-Error, passed on as it is. */
  reject: (err: unknown) => void;
}

const WORKER_URL = new URL('./dicom.worker.ts', import.meta.url);

/**
 * A small pool of DICOM workers (worker_threads). Each job gets a time limit; a worker that
 * overruns it, dies or runs out of memory is terminated (another starts when a job needs it), and
 * the job fails cleanly.
 * Waiting jobs sit in one queue per owner; a free worker takes the next job of the owner with the
 * fewest jobs running (round-robin among equals): a user with 40 jobs queued delays another user's
 * job until the next worker is free, not by all 40.
 * The pool is elastic: the first worker starts with the first job and stays; more, up to `size` in
 * all, start when a job has waited `growAfterMs` for a busy pool, and stop after `spareIdleMs` without a job
 * (docs/decisions.md › Memory of a server under load and at rest).
 */
export function createDicomPool({
  log,
  size = DEFAULT_POOL_SIZE,
  maxQueuedPerOwner = MAX_QUEUED_PER_OWNER,
  growAfterMs = GROW_AFTER_MS,
  spareIdleMs = SPARE_IDLE_MS,
  onDispatch,
}: {
  log: Logger;
  /** The most workers at once. */
  size?: number;
  maxQueuedPerOwner?: number;
  /** 0: a worker starts whenever a job finds the others busy (up to `size`). */
  growAfterMs?: number;
  spareIdleMs?: number;
  /** Called as each job is handed to a worker (tests observe the dispatch order). */
  onDispatch?: (job: { op: Job['op']; owner: string }) => void;
}) {
  const slots: Slot[] = [];
  /** Waiting jobs per owner; `turns`: the owners with jobs waiting, in round-robin order. */
  const lanes = new Map<string, Entry[]>();
  const turns: string[] = [];
  /** Jobs each owner has on a worker now. */
  const running = new Map<string, number>();
  let nextId = 1;
  let closed = false;

  const spawn = (): Slot => {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: 768 },
      stdout: true,
      stderr: true,
    });
    // Library output can quote values read from files: it is dropped, never logged.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    return { worker, busy: false, startedAt: performance.now() };
  };

  /**
   * The next job: from the waiting owner with the fewest jobs on a worker now (a user with 40 jobs
   * queued and 2 running waits for one with none running), ties served round-robin.
   */
  function take(): Entry | undefined {
    let best = -1;
    for (let i = 0; i < turns.length; i++)
      if (best < 0 || (running.get(turns[i]!) ?? 0) < (running.get(turns[best]!) ?? 0)) best = i;
    if (best < 0) return undefined;
    const owner = turns.splice(best, 1)[0]!;
    const lane = lanes.get(owner)!;
    const entry = lane.shift()!;
    if (lane.length) turns.push(owner);
    else lanes.delete(owner);
    running.set(owner, (running.get(owner) ?? 0) + 1);
    return entry;
  }

  /** The owner's job left its worker (done, failed or never started). */
  function done(owner: string) {
    const n = (running.get(owner) ?? 1) - 1;
    if (n > 0) running.set(owner, n);
    else running.delete(owner);
  }

  const addSlot = (): Slot => {
    const slot = spawn();
    slots.push(slot);
    return slot;
  };

  function pump() {
    if (closed) return;
    while (lanes.size) {
      // The first free worker in start order: jobs go to the first worker when it can take them, so
      // that spares fall idle and stop.
      let slot = slots.find((s) => !s.busy);
      if (!slot && slots.length < size && (slots.length === 0 || growAfterMs === 0)) slot = addSlot();
      if (!slot) {
        scheduleGrowth();
        return;
      }
      const entry = take()!;
      clearTimeout(slot.idle);
      slot.busy = true;
      onDispatch?.({ op: entry.job.op, owner: entry.job.owner });
      void start(slot, entry);
    }
  }

  /**
   * One more worker once a job has waited growAfterMs for started workers, if it still waits then.
   * A worker's start-up (START_UP_MS) does not count: jobs that queue behind the first worker's start
   * are served within milliseconds of it. A time, not the worker's first answer: that first job may be
   * the long one.
   */
  let growth: NodeJS.Timeout | undefined;
  const longestWait = () => {
    let since = Infinity;
    for (const lane of lanes.values()) since = Math.min(since, lane[0]!.queuedAt);
    for (const slot of slots) since = Math.max(since, slot.startedAt + START_UP_MS);
    return performance.now() - since;
  };
  function scheduleGrowth() {
    if (growth || slots.length >= size) return;
    growth = setTimeout(
      () => {
        growth = undefined;
        if (closed || !lanes.size || slots.length >= size || slots.some((s) => !s.busy)) return;
        const waited = longestWait();
        if (waited < growAfterMs) return scheduleGrowth();
        log.info({ workers: slots.length + 1, waitedMs: Math.round(waited) }, 'DICOM worker added for waiting jobs');
        addSlot();
        pump();
      },
      Math.max(0, growAfterMs - longestWait()),
    );
    growth.unref();
  }

  /** A worker that fell idle: beyond the first, it stops after spareIdleMs unless a job comes. */
  function idleAfterJob(slot: Slot) {
    if (slot.busy || closed || slots[0] === slot) return;
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      if (slot.busy || slots[0] === slot) return;
      retire(slot);
    }, spareIdleMs);
    slot.idle.unref();
  }

  /** Stops a worker (broken, or a spare fallen idle) and forgets it. */
  function retire(slot: Slot) {
    clearTimeout(slot.idle);
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    void slot.worker.terminate().catch(() => undefined);
  }

  async function start(slot: Slot, entry: Entry) {
    let bytes: ArrayBuffer;
    try {
      bytes = typeof entry.job.bytes === 'function' ? await entry.job.bytes() : entry.job.bytes;
    } catch (err) {
      // The bytes could not be read (storage, integrity): the caller gets that error as it is.
      slot.busy = false;
      done(entry.job.owner);
      entry.reject(err);
      pump();
      idleAfterJob(slot);
      return;
    }
    if (closed) {
      entry.reject(new DicomJobFailed('pool closed'));
      return;
    }
    run(slot, entry, bytes);
  }

  function run(slot: Slot, entry: Entry, bytes: ArrayBuffer) {
    const id = nextId++;
    const { timeoutMs, owner: _owner, bytes: _bytes, ...rest } = entry.job;
    const request = { ...rest, bytes, id } as WorkerRequest;
    let settled = false;
    const finish = (fn: () => void, broken: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      slot.worker.off('message', onMessage);
      slot.worker.off('error', onError);
      slot.worker.off('exit', onExit);
      if (broken) retire(slot);
      else slot.busy = false;
      done(entry.job.owner);
      fn();
      pump();
      if (!broken) idleAfterJob(slot);
    };
    const onMessage = (response: WorkerResponse) => {
      if (response.id !== id) return;
      finish(() => {
        if (response.ok) entry.resolve(response.result);
        else if ('rejection' in response)
          entry.reject(new DicomRefused(response.rejection.status, response.rejection.message));
        else {
          log.warn({ op: request.op, problem: response.problem }, 'DICOM job failed');
          entry.reject(new DicomJobFailed(response.problem));
        }
      }, false);
    };
    const onError = (err: Error) => {
      log.warn({ op: request.op, problem: err.name }, 'DICOM worker crashed');
      finish(() => entry.reject(new DicomJobFailed('worker crashed')), true);
    };
    const onExit = () => finish(() => entry.reject(new DicomJobFailed('worker exited')), true);
    const timer = setTimeout(() => {
      log.warn({ op: request.op, timeoutMs }, 'DICOM job over its time limit; worker replaced');
      finish(() => entry.reject(new DicomJobFailed('time limit')), true);
    }, timeoutMs);
    slot.worker.on('message', onMessage);
    slot.worker.on('error', onError);
    slot.worker.on('exit', onExit);
    // The engine hands over fresh copies: moved, not cloned again, into the worker.
    const transfer = Object.values(request).filter((v): v is ArrayBuffer => v instanceof ArrayBuffer);
    slot.worker.postMessage(request, transfer);
  }

  return {
    size,
    run<T>(job: Job): Promise<T> {
      if (closed) return Promise.reject(new DicomJobFailed('pool closed'));
      const lane = lanes.get(job.owner) ?? [];
      if (lane.length >= maxQueuedPerOwner) return Promise.reject(new DicomBusy('queue full'));
      return new Promise<T>((resolve, reject) => {
        lane.push({ job, queuedAt: performance.now(), resolve: resolve as (v: unknown) => void, reject });
        if (!lanes.has(job.owner)) {
          lanes.set(job.owner, lane);
          turns.push(job.owner);
        }
        pump();
      });
    },
    /** Jobs waiting for a worker (all owners). */
    queued: () => [...lanes.values()].reduce((n, lane) => n + lane.length, 0),
    /** Each running worker's own memory figures (its buffers: `arrayBuffers`), for tests and diagnostics. */
    memory: () =>
      Promise.all(
        slots.map(
          ({ worker }) =>
            new Promise<NodeJS.MemoryUsage>((resolve, reject) => {
              const id = nextId++;
              const settle = (fn: () => void) => {
                worker.off('message', onMessage);
                worker.off('exit', onExit);
                fn();
              };
              const onMessage = (response: WorkerResponse) => {
                if (response.id !== id) return;
                settle(() =>
                  response.ok ? resolve(response.result as NodeJS.MemoryUsage) : reject(new DicomJobFailed('memory')),
                );
              };
              // A worker replaced meanwhile (time limit, crash) never answers.
              const onExit = () => settle(() => reject(new DicomJobFailed('worker exited')));
              worker.on('message', onMessage);
              worker.once('exit', onExit);
              worker.postMessage({ id, op: 'memory' } satisfies WorkerMemoryRequest);
            }),
        ),
      ),
    /** Workers running now (the first, and spares started for waiting jobs). */
    workers: () => slots.length,
    async close() {
      closed = true;
      clearTimeout(growth);
      for (const lane of lanes.values())
        for (const { reject } of lane.splice(0)) reject(new DicomJobFailed('pool closed'));
      lanes.clear();
      turns.length = 0;
      await Promise.all(
        slots.splice(0).map((s) => {
          clearTimeout(s.idle);
          return s.worker.terminate().catch(() => undefined);
        }),
      );
    },
  };
}
export type DicomPool = ReturnType<typeof createDicomPool>;

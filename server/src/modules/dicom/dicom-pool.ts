import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { WorkerRequest, WorkerResponse } from './worker-protocol.ts';

/** A DICOM object the worker refused (status and a message safe to show). */
export class DicomRefused extends Error {
  override name = 'DicomRefused';
  readonly status: 400 | 415;
  constructor(status: 400 | 415, message: string) {
    super(message);
    this.status = status;
  }
}

/** The worker failed on the object (library error, time limit, crash): the object cannot be processed. */
export class DicomJobFailed extends Error {
  override name = 'DicomJobFailed';
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type Job = DistributiveOmit<WorkerRequest, 'id'> & { timeoutMs: number };

interface Slot {
  worker: Worker;
  busy: boolean;
}

const WORKER_URL = new URL('./dicom.worker.ts', import.meta.url);

/**
 * A small pool of DICOM workers (worker_threads). Each job gets a time limit; a worker that
 * overruns it, dies or runs out of memory is terminated and replaced, and the job fails cleanly.
 * Jobs wait in a FIFO queue when every worker is busy.
 */
export function createDicomPool({
  log,
  size = Math.max(1, Math.min(2, cpus().length - 1)),
}: {
  log: Logger;
  size?: number;
}) {
  const slots: Slot[] = [];
  const queue: Array<{ job: Job; resolve: (v: unknown) => void; reject: (e: Error) => void }> = [];
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
    return { worker, busy: false };
  };

  function pump() {
    if (closed) return;
    while (queue.length) {
      let slot = slots.find((s) => !s.busy);
      if (!slot && slots.length < size) {
        slot = spawn();
        slots.push(slot);
      }
      if (!slot) return;
      run(slot, queue.shift()!);
    }
  }

  function replace(slot: Slot) {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    void slot.worker.terminate().catch(() => undefined);
  }

  function run(slot: Slot, entry: (typeof queue)[number]) {
    slot.busy = true;
    const id = nextId++;
    const { timeoutMs, ...rest } = entry.job;
    const request = { ...rest, id } as WorkerRequest;
    let settled = false;
    const finish = (fn: () => void, broken: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      slot.worker.off('message', onMessage);
      slot.worker.off('error', onError);
      slot.worker.off('exit', onExit);
      if (broken) replace(slot);
      else slot.busy = false;
      fn();
      pump();
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
    run<T>(job: Job): Promise<T> {
      if (closed) return Promise.reject(new DicomJobFailed('pool closed'));
      return new Promise<T>((resolve, reject) => {
        queue.push({ job, resolve: resolve as (v: unknown) => void, reject });
        pump();
      });
    },
    async close() {
      closed = true;
      for (const { reject } of queue.splice(0)) reject(new DicomJobFailed('pool closed'));
      await Promise.all(slots.splice(0).map((s) => s.worker.terminate().catch(() => undefined)));
    },
  };
}
export type DicomPool = ReturnType<typeof createDicomPool>;

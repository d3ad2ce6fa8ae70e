import type { Logger } from 'pino';
import { loggedMessage } from '../../errors.ts';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import type { DicomEngine } from '../dicom/dicom-engine.ts';
import type { ImagesRepository } from './images.repository.ts';
import { sweepOrphanBlobs } from './sweeper.ts';
import { createThumbnailer } from './thumbnails.ts';

/**
 * The images module's work outside requests: thumbnails (made after the upload commits), the
 * orphan-blob sweeper (at start and every interval) and fire-and-forget tasks such as share mails.
 * `idle`/`close` wait for all of it (tests, shutdown).
 */
export function createImageJobs(deps: {
  repo: ImagesRepository;
  store: EncryptedStore;
  log: Logger;
  sweep: { graceMinutes: number; intervalMinutes: number };
  renderDicom?: DicomEngine['thumbnail'] | undefined;
  /** True while uploads are in flight: thumbnails then wait a little (thumbnails.ts). */
  uploadsInFlight: () => boolean;
}) {
  const { repo, store, log } = deps;
  const thumbnails = createThumbnailer({
    repo,
    store,
    log,
    renderDicom: deps.renderDicom,
    deferWhile: deps.uploadsInFlight,
  });
  const background = new Set<Promise<unknown>>();
  /** Runs a task nobody awaits: its failure is logged, and idle() waits for it. */
  const track = (p: Promise<unknown>) => {
    const t = p
      .catch((err: unknown) => log.error({ err: { message: loggedMessage(err) } }, 'background task failed'))
      .finally(() => background.delete(t));
    background.add(t);
  };

  let sweepTimer: NodeJS.Timeout | null = null;
  let firstTick: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  const runSweep = (graceMs: number) => {
    sweeping ??= sweepOrphanBlobs({ storage: store.storage, repo, graceMs })
      .then((r) => {
        if (r.removed || r.partials) log.info(r, 'storage sweep removed orphan blobs');
        return r;
      })
      .finally(() => {
        sweeping = null;
      });
    return sweeping as Promise<Awaited<ReturnType<typeof sweepOrphanBlobs>>>;
  };

  return {
    track,
    enqueueThumbnail: (id: string) => thumbnails.enqueue(id),

    /** Removes blobs no live row points at, older than the grace period. */
    sweep: (graceMs = deps.sweep.graceMinutes * 60_000) => runSweep(graceMs),

    /** Sweep once now and every interval; resume thumbnails a crash interrupted. */
    start() {
      const tick = () => {
        track(runSweep(deps.sweep.graceMinutes * 60_000));
        track(thumbnails.resumePending());
      };
      firstTick = setTimeout(tick, 1_000);
      firstTick.unref();
      sweepTimer = setInterval(tick, deps.sweep.intervalMinutes * 60_000);
      sweepTimer.unref();
    },

    /** Waits for thumbnails and tracked tasks (tests, shutdown). */
    async idle(): Promise<void> {
      while (background.size || thumbnails.busy()) {
        await Promise.all([...background, thumbnails.idle()]);
      }
    },

    async close(): Promise<void> {
      if (firstTick) clearTimeout(firstTick);
      if (sweepTimer) clearInterval(sweepTimer);
      await this.idle();
      await sweeping;
    },
  };
}
export type ImageJobs = ReturnType<typeof createImageJobs>;

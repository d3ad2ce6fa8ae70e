import type { WorkerRequest } from './worker-protocol.ts';

/** A data set over this is followed by a full collection: its job ran long enough for its buffers to outlive a scavenge. */
export const LARGE_DATA_SET_BYTES = 32 * 2 ** 20;
/** Parse-only jobs (inspect, ingest, json) share one scavenge per this many bytes of data sets parsed. */
export const PARSED_BYTES_PER_SCAVENGE = 16 * 2 ** 20;

/** Jobs that parse a data set and build its JSON, without decoding or writing pixel data. */
const PARSE_ONLY: ReadonlySet<WorkerRequest['op']> = new Set(['inspect', 'ingest', 'json']);

/**
 * Which collection a DICOM worker runs after a job, if any (docs/decisions.md › Memory of a server
 * under load and at rest, "A collection in each DICOM worker after its jobs").
 *
 * A job that decodes or writes pixel data (a thumbnail, a rendered frame, frames, a transcode, a
 * de-identified copy) leaves large buffers held by a few small objects: a scavenge after it frees
 * them. A parse-only job's garbage is its file's bytes and many small objects, which fill the young
 * generation by themselves (about one scavenge every two ingests of a 150 KB instance). With a
 * scavenge forced after each, 2 000 ingests paused the worker 2.6 s in all against 0.6 s without,
 * and what each forced scavenge found in flight was promoted, which set off full collections. They
 * share one per `PARSED_BYTES_PER_SCAVENGE` instead, which bounds what they can leave behind.
 */
export function createCollectionPolicy({
  largeDataSetBytes = LARGE_DATA_SET_BYTES,
  parsedBytesPerScavenge = PARSED_BYTES_PER_SCAVENGE,
}: { largeDataSetBytes?: number; parsedBytesPerScavenge?: number } = {}) {
  let parsedSinceScavenge = 0;
  return (op: WorkerRequest['op'], dataSetBytes: number, failed = false): 'minor' | 'major' | null => {
    if (dataSetBytes > largeDataSetBytes) {
      parsedSinceScavenge = 0;
      return 'major';
    }
    // A job that failed may have let go of more than its data set says: a refused deflated object is
    // counted at its compressed size, yet zlib may have inflated hundreds of MiB before the refusal.
    if (PARSE_ONLY.has(op) && !failed) {
      parsedSinceScavenge += dataSetBytes;
      if (parsedSinceScavenge < parsedBytesPerScavenge) return null;
    }
    parsedSinceScavenge = 0;
    return 'minor';
  };
}

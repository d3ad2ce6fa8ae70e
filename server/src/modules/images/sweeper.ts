import type { BlobInfo, BlobStorage } from '../../storage/storage.ts';
import type { ImagesRepository } from './images.repository.ts';

export interface SweepResult {
  scanned: number;
  removed: number;
  partials: number;
}

/**
 * Removes blobs that no live image row points at and that are older than the grace period: the
 * leftovers of a crash between "blob durable" and "row committed", of a deletion whose blob
 * removal failed, and of thumbnails made for images deleted meanwhile. The grace period keeps
 * uploads in flight (blob written, row not yet committed) safe, on this instance and others.
 */
export async function sweepOrphanBlobs({
  storage,
  repo,
  graceMs,
}: {
  storage: BlobStorage;
  repo: Pick<ImagesRepository, 'referencedKeys'>;
  graceMs: number;
}): Promise<SweepResult> {
  const before = new Date(Date.now() - graceMs);
  const result: SweepResult = { scanned: 0, removed: 0, partials: await storage.removeStalePartials(before) };
  let batch: BlobInfo[] = [];
  const flush = async () => {
    const candidates = batch.filter((b) => b.modifiedAt <= before);
    batch = [];
    if (!candidates.length) return;
    const referenced = await repo.referencedKeys(candidates.map((b) => b.key));
    for (const blob of candidates) {
      if (referenced.has(blob.key)) continue;
      await storage.delete(blob.key);
      result.removed++;
    }
  };
  for await (const blob of storage.list()) {
    result.scanned++;
    batch.push(blob);
    if (batch.length >= 500) await flush();
  }
  await flush();
  return result;
}

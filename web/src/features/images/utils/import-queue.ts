import { ImageMessages, MAX_CAPTION_LENGTH } from '@medshare/contracts/constants';
import { ApiError } from '../../../lib/api-client';
import type { UploadInput, UploadResult } from '../api/upload-image';
import { looksLikeDicom, readDicomSummary } from './dicom-file';
import { type ImportItem, ImportMessages, type ItemState } from './import-plan';
import { EntryTooLarge } from './import-sources';

/** Files in flight at once: enough to hide each request's round trips, few enough to leave the link to each. */
export const IMPORT_CONCURRENCY = 3;
/** Waits before the second, third and fourth try of a file that met a network error, a 5xx or a 429. */
export const RETRY_DELAYS_MS = [1_000, 3_000, 9_000];

export type RunImportOptions = {
  /** The caption the user gave; empty: each file gets its study's description. */
  caption: string;
  patientId?: string;
  maxUploadMb: number;
  signal: AbortSignal;
  upload: (input: UploadInput, onProgress: (fraction: number) => void, signal: AbortSignal) => Promise<UploadResult>;
  onState: (id: number, state: ItemState) => void;
  concurrency?: number;
  retryDelaysMs?: readonly number[];
};

/** Worth another try: the request did not get through, the server had a passing fault, or asked us to slow down. */
function transient(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 0 || error.status === 429 || error.status >= 500);
}

function reasonOf(error: unknown): string {
  if (error instanceof ApiError) {
    const field = error.errors[0]?.message;
    if (error.status === 0) return 'The server could not be reached.';
    if (field && field !== error.message) return `${error.message || 'Refused'}: ${field}`;
    return error.message || `The server answered ${error.status}.`;
  }
  return error instanceof Error && error.message ? error.message : 'The file could not be sent.';
}

const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** A name the server accepts for a DICOM file: disc files often have no extension (IM000001). */
export function uploadName(name: string): string {
  return /\.(dcm|dicom)$/i.test(name) ? name : `${name || 'file'}.dcm`;
}

/**
 * Sends the queued items of a study import through POST /api/upload/image, a few at a time
 * (`docs/product.md` › Upload): each file on its own, so that one failure leaves the rest going;
 * retried with back-off on a network error, 5xx or 429; 'already stored' when the server answers
 * that the instance is a duplicate. Resolves when every item has reached its final state.
 */
export async function runImport(items: readonly ImportItem[], options: RunImportOptions): Promise<void> {
  const { signal, onState } = options;
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  const maxBytes = options.maxUploadMb * 1024 * 1024;
  const queue = items.filter((i) => i.state.status === 'queued');
  let next = 0;
  let stopReason: string | null = null;

  async function send(item: ImportItem): Promise<ItemState> {
    let bytes: Blob;
    try {
      bytes = await item.entry.open(maxBytes);
    } catch (error) {
      if (error instanceof EntryTooLarge)
        return { status: 'failed', reason: ImageMessages.tooLarge(options.maxUploadMb) };
      return { status: 'failed', reason: `The file could not be read (${reasonOf(error)})` };
    }
    if (item.check === 'sniff' && !(await looksLikeDicom(bytes))) {
      return { status: 'skipped', reason: ImportMessages.notDicom };
    }
    const summary = await readDicomSummary(bytes);
    const caption = (
      options.caption.trim() ||
      summary?.studyDescription ||
      (summary?.modality ? `${summary.modality} study` : 'DICOM study')
    ).slice(0, MAX_CAPTION_LENGTH);
    const file = new File([bytes], uploadName(item.entry.name), { type: 'application/dicom' });
    for (let attempt = 1; ; attempt++) {
      let reported = -1;
      onState(item.id, { status: 'uploading', fraction: 0, attempt });
      try {
        const result = await options.upload(
          { file, caption, patientId: options.patientId },
          (fraction) => {
            // Every 5 %: a thousand rows re-rendered on each progress event would slow the page.
            const step = Math.floor(fraction * 20);
            if (step === reported) return;
            reported = step;
            onState(item.id, { status: 'uploading', fraction, attempt });
          },
          signal,
        );
        return result.duplicate
          ? { status: 'duplicate', imageId: result.data.id }
          : { status: 'stored', imageId: result.data.id };
      } catch (error) {
        if (isAbort(error) || signal.aborted) return { status: 'failed', reason: ImportMessages.cancelled };
        if (error instanceof ApiError && error.status === 401) {
          stopReason = ImportMessages.sessionEnded;
          return { status: 'failed', reason: reasonOf(error) };
        }
        const delay = delays[attempt - 1];
        if (!transient(error) || delay === undefined || stopReason) {
          const tries = attempt > 1 ? ` (tried ${attempt} times)` : '';
          return { status: 'failed', reason: `${reasonOf(error)}${tries}` };
        }
        await wait(delay, signal);
        if (signal.aborted) return { status: 'failed', reason: ImportMessages.cancelled };
      }
    }
  }

  async function worker(): Promise<void> {
    while (next < queue.length) {
      const item = queue[next++]!;
      if (signal.aborted || stopReason) {
        onState(item.id, { status: 'failed', reason: stopReason ?? ImportMessages.cancelled });
        continue;
      }
      let final: ItemState;
      try {
        final = await send(item);
      } catch (error) {
        // Reading a file's header can throw on bytes the browser cannot read; that file fails alone.
        final = { status: 'failed', reason: reasonOf(error) };
      }
      onState(item.id, final);
    }
  }

  const workers = Math.max(1, Math.min(options.concurrency ?? IMPORT_CONCURRENCY, queue.length));
  await Promise.all(Array.from({ length: workers }, worker));
}

import dcmjs from 'dcmjs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort } from 'node:worker_threads';
import { DicomMessages, DicomRejection, type ParsedDicom, frameBytes, inspect, parseDicom } from './dicom-core.ts';
import { deidentify } from './deidentify.ts';
import { toDicomJson } from './dicom-json.ts';
import { packMetadata } from './dicom-metadata.ts';
import { renderFirstFrame, renderFrameAt } from './render.ts';
import { thumbnailPixels } from './thumbnail-frame.ts';
import { decodeFrame, toExplicitLittleEndian } from './transcode.ts';
import { createCollectionPolicy } from './worker-collection.ts';
import type { WorkerMemoryRequest, WorkerRequest, WorkerResponse } from './worker-protocol.ts';

/**
 * The DICOM worker: every parse, decode and rewrite runs here, off the event loop that serves
 * requests and drives PGlite. The pool (dicom-pool.ts) time-limits each job and replaces a worker
 * that overran or died. Every operation checks the object first (inspect: the memory bounds of
 * dicom-core.ts), so no path decodes what the upload would have refused.
 */
dcmjs.log.setLevel('silent');
// dcmjs-imaging and dcmjs print warnings on console; none of them must reach the logs (they can quote values).
const quiet = console as unknown as Record<string, unknown>;
for (const method of ['log', 'info', 'warn', 'error', 'debug']) quiet[method] = () => undefined;

async function handle(request: WorkerRequest): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  const bytes = new Uint8Array(request.bytes);
  // The data set's size decides the collection after the answer (collectAfterAnswer, below).
  let dataSetBytes = bytes.byteLength;
  let failed = true;
  try {
    const parsed = parseDicom(bytes);
    dataSetBytes = parsed.byteArray.byteLength;
    const answered = await answer(request, bytes, parsed);
    failed = false;
    return answered;
  } finally {
    collectAfterAnswer(request.op, dataSetBytes, failed);
  }
}

async function answer(
  request: WorkerRequest,
  bytes: Uint8Array,
  parsed: ParsedDicom,
): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  const inspection = inspect(parsed);
  switch (request.op) {
    case 'inspect':
      return { result: inspection, transfer: [] };
    case 'ingest': {
      const metadata = packMetadata({ json: toDicomJson(bytes, parsed), phi: inspection.phi });
      return { result: { ...inspection, metadata }, transfer: [metadata.buffer as ArrayBuffer] };
    }
    case 'render': {
      if (inspection.summary.kind !== 'image') throw new DicomRejection(400, DicomMessages.noFrames);
      const rendered = await renderFirstFrame(bytes, parsed);
      return {
        result: { ...rendered, summary: inspection.summary },
        transfer: [rendered.pixels.buffer as ArrayBuffer],
      };
    }
    case 'thumbnail': {
      if (inspection.summary.kind !== 'image') throw new DicomRejection(400, DicomMessages.noFrames);
      const frame = await thumbnailPixels(bytes, parsed, request.maxSide);
      return { result: frame, transfer: [frame.pixels.buffer as ArrayBuffer] };
    }
    case 'deidentify': {
      const copy = deidentify(bytes, parsed, new Uint8Array(request.key), request.scope);
      const reparsed = parseDicom(copy.bytes);
      const check = inspect(reparsed);
      const metadata = packMetadata({ json: toDicomJson(copy.bytes, reparsed), phi: check.phi });
      return {
        result: {
          ...copy,
          burnedInAnnotation: inspection.summary.burnedInAnnotation,
          summary: check.summary,
          // The copy's metadata, stored with its row like an upload's.
          metadata,
        },
        transfer: [copy.bytes.buffer as ArrayBuffer, metadata.buffer as ArrayBuffer],
      };
    }
    case 'frames': {
      const pieces: Uint8Array[] = [];
      let total = 0;
      for (const n of request.frames) {
        const encapsulated = !!parsed.dataSet.elements.x7fe00010?.encapsulatedPixelData;
        const frame =
          request.decode && encapsulated ? { bytes: await decodeFrame(parsed, n - 1) } : frameBytes(parsed, n - 1);
        total += frame.bytes.length;
        if (total > request.maxBytes)
          throw new DicomRejection(413, DicomMessages.answerTooLarge(request.maxBytes / 2 ** 20));
        pieces.push(frame.bytes);
      }
      // One buffer, moved (not cloned) to the main thread, which answers with views of it.
      const joined = new Uint8Array(total);
      let at = 0;
      for (const piece of pieces) {
        joined.set(piece, at);
        at += piece.length;
      }
      return {
        result: {
          transferSyntaxUid: inspection.summary.transferSyntaxUid,
          encapsulated: !request.decode && !!parsed.dataSet.elements.x7fe00010?.encapsulatedPixelData,
          buffer: joined.buffer,
          lengths: pieces.map((p) => p.length),
        },
        transfer: [joined.buffer],
      };
    }
    case 'renderFrame': {
      if (inspection.summary.kind !== 'image') throw new DicomRejection(400, DicomMessages.noFrames);
      const rendered = await renderFrameAt(bytes, parsed, request.frame - 1, request.window);
      return { result: rendered, transfer: [rendered.pixels.buffer as ArrayBuffer] };
    }
    case 'transcode': {
      const out = await toExplicitLittleEndian(bytes, parsed);
      return { result: out, transfer: [out.buffer as ArrayBuffer] };
    }
    case 'json': {
      const metadata = packMetadata({ json: toDicomJson(bytes, parsed), phi: inspection.phi });
      return { result: metadata, transfer: [metadata.buffer as ArrayBuffer] };
    }
  }
}

/*
 * A collection after a job frees what the job allocated. V8 frees a typed array's memory (the file's
 * bytes, an inflated data set, decoded frames) only when it collects the small object that holds it:
 * many jobs' buffers otherwise wait in the worker's malloc arena for a full collection. Which
 * collection follows which job: worker-collection.ts. `gc` is taken from a fresh context: the flag
 * adds it to contexts created from now on (a worker started later has it as a global too), and
 * nothing else calls it. docs/decisions.md › Memory of a server under load and at rest.
 */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as (options: { type: 'minor' | 'major' }) => void;
const collectionAfter = createCollectionPolicy();
/** Scheduled as the job settles: setImmediate runs once its answer has been posted. */
function collectAfterAnswer(op: WorkerRequest['op'], dataSetBytes: number, failed: boolean) {
  const type = collectionAfter(op, dataSetBytes, failed);
  if (type) setImmediate(() => collect({ type }));
}

parentPort!.on('message', (request: WorkerRequest | WorkerMemoryRequest) => {
  if (request.op === 'memory') {
    parentPort!.postMessage({ id: request.id, ok: true, result: process.memoryUsage() } satisfies WorkerResponse);
    return;
  }
  handle(request).then(
    ({ result, transfer }) =>
      parentPort!.postMessage({ id: request.id, ok: true, result } satisfies WorkerResponse, transfer),
    (err: unknown) => {
      const response: WorkerResponse =
        err instanceof DicomRejection
          ? { id: request.id, ok: false, rejection: { status: err.status, message: err.message } }
          : err instanceof RangeError && err.message === 'frame out of range'
            ? { id: request.id, ok: false, rejection: { status: 400, message: 'Frame number out of range.' } }
            : { id: request.id, ok: false, problem: err instanceof Error ? err.name : 'unknown' };
      parentPort!.postMessage(response);
    },
  );
});

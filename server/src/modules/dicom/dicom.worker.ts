import dcmjs from 'dcmjs';
import { parentPort } from 'node:worker_threads';
import { DicomMessages, DicomRejection, frameBytes, inspect, parseDicom } from './dicom-core.ts';
import { deidentify } from './deidentify.ts';
import { toDicomJson } from './dicom-json.ts';
import { packMetadata } from './dicom-metadata.ts';
import { renderFirstFrame, renderFrameAt } from './render.ts';
import { thumbnailPixels } from './thumbnail-frame.ts';
import { decodeFrame, toExplicitLittleEndian } from './transcode.ts';
import type { WorkerRequest, WorkerResponse } from './worker-protocol.ts';

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
  const parsed = parseDicom(bytes);
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

parentPort!.on('message', (request: WorkerRequest) => {
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

import dcmjs from 'dcmjs';
import { parentPort } from 'node:worker_threads';
import { DicomRejection, frameBytes, inspect, parseDicom } from './dicom-core.ts';
import { deidentify } from './deidentify.ts';
import { toDicomJson } from './dicom-json.ts';
import { renderFirstFrame } from './render.ts';
import type { WorkerRequest, WorkerResponse } from './worker-protocol.ts';

/**
 * The DICOM worker: every parse, decode and rewrite runs here, off the event loop that serves
 * requests and drives PGlite. The pool (dicom-pool.ts) time-limits each job and replaces a worker
 * that overran or died.
 */
dcmjs.log.setLevel('silent');
// dcmjs-imaging and dcmjs print warnings on console; none of them must reach the logs (they can quote values).
const quiet = console as unknown as Record<string, unknown>;
for (const method of ['log', 'info', 'warn', 'error', 'debug']) quiet[method] = () => undefined;

async function handle(request: WorkerRequest): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  const bytes = new Uint8Array(request.bytes);
  const parsed = parseDicom(bytes);
  switch (request.op) {
    case 'inspect':
      return { result: inspect(parsed), transfer: [] };
    case 'render': {
      inspect(parsed);
      const rendered = await renderFirstFrame(bytes, parsed);
      return { result: rendered, transfer: [rendered.pixels.buffer as ArrayBuffer] };
    }
    case 'deidentify': {
      const inspection = inspect(parsed);
      const copy = deidentify(bytes, parsed, new Uint8Array(request.key), request.scope);
      const check = inspect(parseDicom(copy.bytes));
      return {
        result: { ...copy, burnedInAnnotation: inspection.summary.burnedInAnnotation, summary: check.summary },
        transfer: [copy.bytes.buffer as ArrayBuffer],
      };
    }
    case 'frames': {
      const summary = inspect(parsed).summary;
      const frames = request.frames.map((n) => frameBytes(parsed, n - 1));
      return {
        result: {
          transferSyntaxUid: summary.transferSyntaxUid,
          encapsulated: frames[0]?.encapsulated ?? false,
          frames: frames.map((f) => f.bytes),
        },
        transfer: [],
      };
    }
    case 'json':
      return { result: toDicomJson(bytes, parsed), transfer: [] };
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

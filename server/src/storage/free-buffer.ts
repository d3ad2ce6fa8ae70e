import type { ServerResponse } from 'node:http';

/**
 * Frees, at once, the memory behind bytes this process owns whole, once nothing reads them any more:
 * a DICOM worker's answer once used (dicom-engine.ts), a content read's plaintext once sent
 * (`freeWhenSent`). V8 otherwise gives such memory back only when it collects the small object that
 * holds it, and a busy server's malloc arenas keep what piles up until then (docs/decisions.md ›
 * Memory of a server under load and at rest). Only a buffer owned whole: a small Buffer is a view of a
 * slab of Node's pool that other Buffers share, and a view of part of a buffer is left alone too. Never
 * while a native call may still read the bytes (a socket write still queued): the view and every other
 * view of its buffer read as empty afterwards.
 */
export function freeBuffer(view: ArrayBufferView): void {
  const { buffer } = view;
  const whole = view.byteOffset === 0 && view.byteLength === buffer.byteLength;
  if (whole && buffer instanceof ArrayBuffer && !buffer.detached) buffer.transfer(0);
}

/**
 * Frees `buffers` (freeBuffer) once `response` has sent them: at its 'finish', when its last write has
 * been handed to the kernel and no write of it is queued any more. A response that ends otherwise (the
 * client went away mid-write) leaves them to the collector: a write may still be queued then.
 */
export function freeWhenSent(response: ServerResponse, buffers: readonly ArrayBufferView[]): void {
  if (buffers.length === 0) return;
  response.once('finish', () => {
    for (const buffer of buffers) freeBuffer(buffer);
  });
}

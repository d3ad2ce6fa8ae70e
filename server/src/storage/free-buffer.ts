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

/**
 * For an answer streamed into `response` (piped, so its writes carry no callback of ours): each buffer
 * marked with the returned function is freed (freeBuffer) once its own write has completed, when that
 * chunk has been handed to the kernel, not at the answer's end. A WADO-RS study answer reads its
 * instances whole one after another; holding every piece until 'finish' would keep the study in memory.
 * A write that fails (the client went away) leaves its buffer to the collector, as freeWhenSent does.
 * Buffers are known by their memory, not by the view: a stream turns a Uint8Array into a Buffer. A
 * marked buffer must be written once: its memory is gone after its first write completes.
 */
export function freeEachOnceWritten(response: ServerResponse): (buffer: ArrayBufferView) => void {
  const owned = new WeakSet<ArrayBufferLike>();
  const write = response.write;
  type Callback = (error?: Error | null) => void;
  response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]): boolean {
    if (!ArrayBuffer.isView(chunk) || !owned.has(chunk.buffer)) return Reflect.apply(write, this, [chunk, ...rest]);
    const callback = rest.find((arg): arg is Callback => typeof arg === 'function');
    const encoding = typeof rest[0] === 'string' ? rest[0] : undefined;
    return write.call(this, chunk, encoding as BufferEncoding, (error?: Error | null) => {
      owned.delete(chunk.buffer);
      if (!error) freeBuffer(chunk);
      callback?.(error);
    });
  } as ServerResponse['write'];
  return (buffer) => {
    owned.add(buffer.buffer);
  };
}

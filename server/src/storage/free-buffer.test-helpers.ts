import { vi } from 'vitest';

/**
 * The sizes freeBuffer hands back from now on (it frees with ArrayBuffer#transfer(0)), seen by a spy
 * on the built-in: server test files share their modules, so a mock of free-buffer.ts may come after
 * another file has loaded its callers. Undone by `vi.restoreAllMocks()`.
 */
export function watchFreedSizes(): number[] {
  const freed: number[] = [];
  const transfer = ArrayBuffer.prototype.transfer;
  vi.spyOn(ArrayBuffer.prototype, 'transfer').mockImplementation(function (this: ArrayBuffer, length?: number) {
    if (length === 0) freed.push(this.byteLength);
    return transfer.call(this, length);
  });
  return freed;
}

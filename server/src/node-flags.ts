/**
 * The V8 flags the server runs with: `npm start`, the Dockerfile's CMD, scripts/scale-out.ts, the
 * benches and the tests that spawn it (node-flags.test.ts keeps the literal copies in step). Each was
 * measured on its own (docs/decisions.md › Memory of a server under load and at rest).
 *
 * - No `--initial-old-space-size` (it was 256 until 2026-12-06): with it V8 let each isolate's old
 *   generation grow to 256 MB before its first full collection. It bought cheaper DICOM thumbnails while
 *   buffers the DICOM workers moved here waited for that collection; they are freed at once now
 *   (storage/free-buffer.ts), and without the flag the peak under load is 60–80 MiB lower for
 *   no clear CPU difference.
 * - `--max-semi-space-size=4`: V8 grows each isolate's young generation to 2 × 16 MB under load; three
 *   isolates (main and two DICOM workers) held ~90 MiB of it. 4 MB: the same CPU per file.
 * - `--wasm-num-compilation-tasks=1`: V8 optimises hot WebAssembly functions (PGlite's PostgreSQL, the
 *   DICOM codecs) in the background, and each concurrent task's compile memory stays in its thread's
 *   malloc arena after it is freed; one task: an idle PGlite node 20–45 MiB smaller.
 * - `--heap-growing-percent=50`: after a full collection V8 lets an isolate's old generation grow to
 *   about 2.2–2.5 times what survived before the next; under load the main thread's ~45 MB of live
 *   objects reached ~110 MB. 1.5 times: the peak 30 MiB lower, steady from run to run, for a full
 *   collection every few seconds under load instead of every ten.
 */
export const SERVER_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=4',
  '--wasm-num-compilation-tasks=1',
  '--heap-growing-percent=50',
];

/**
 * What the server's environment must hold as it starts: glibc reads its tunables before Node runs, so
 * every launcher sets them (the same ones as SERVER_NODE_FLAGS; node-flags.test.ts checks the copies).
 *
 * - `glibc.malloc.arena_max=2`: glibc gives each thread that allocates under contention its own malloc
 *   arena (up to 8 per core), and an arena keeps what its thread freed. The server's threads (libuv's
 *   pool, V8's platform workers, the DICOM worker, libvips) held 75–100 MiB of them at the peak of
 *   bench:orthanc. Two arenas: 40 MiB less at the peak, no clear CPU difference (docs/decisions.md ›
 *   Memory of a server under load and at rest). A C library other than glibc ignores it.
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' };

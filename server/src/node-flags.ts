/**
 * The V8 flags the server runs with: `npm start`, the Dockerfile's CMD, scripts/scale-out.ts, the
 * benches and the tests that spawn it (node-flags.test.ts keeps the literal copies in step). Each was
 * measured on its own (docs/decisions.md › Memory of a server under load and at rest).
 *
 * - `--initial-old-space-size=256`: uploads and downloads allocate their bytes outside the JavaScript
 *   heap, and with V8's default starting limit that traffic set off a full mark-compact every 0.3 s
 *   during a DICOM ingest. Measured again now: 1.4–3.1 ms less CPU per DICOM thumbnail, no clear
 *   difference per ingested instance, for 60–150 MiB more peak RSS (V8 heaps of the main thread and
 *   both DICOM workers, and the native memory their dead buffers keep until a full collection).
 * - `--max-semi-space-size=4`: V8 grows each isolate's young generation to 2 × 16 MB under load; three
 *   isolates (main and two DICOM workers) held ~90 MiB of it. 4 MB: the same CPU per file.
 * - `--wasm-num-compilation-tasks=1`: V8 optimises hot WebAssembly functions (PGlite's PostgreSQL, the
 *   DICOM codecs) in the background, and each concurrent task's compile memory stays in its thread's
 *   malloc arena after it is freed; one task: an idle PGlite node 20–45 MiB smaller.
 */
export const SERVER_NODE_FLAGS: readonly string[] = [
  '--initial-old-space-size=256',
  '--max-semi-space-size=4',
  '--wasm-num-compilation-tasks=1',
];

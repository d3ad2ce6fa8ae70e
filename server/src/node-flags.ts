/**
 * The V8 flags the server runs with: `npm start`, the Dockerfile's CMD, scripts/scale-out.ts, the
 * benches and the tests that spawn it (node-flags.test.ts keeps the literal copies in step).
 *
 * Uploads and downloads allocate their bytes outside the JavaScript heap (socket reads, ciphertext,
 * a DICOM object's bytes for the worker). With V8's default starting limit for the old generation,
 * that traffic set off a full mark-compact of the whole heap every 0.3 s during a DICOM ingest, and
 * V8's helper threads spent 1.5–2 ms of CPU per uploaded instance marking a heap that had barely
 * changed. Starting the limit at 256 MB: 24–31 → 5 full collections per 1 000 instances on the main
 * thread, 47–72 → 13–14 in the DICOM worker, ~0.6 ms less CPU per instance (bench/RESULTS.md, Stop 12),
 * for a peak RSS some 60 MB higher. The limit still adapts after the first full collection.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=256'];

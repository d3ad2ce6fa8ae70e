import { describe, expect, it } from 'vitest';
import { LARGE_DATA_SET_BYTES, PARSED_BYTES_PER_SCAVENGE, createCollectionPolicy } from './worker-collection.ts';

const MiB = 2 ** 20;

describe('the DICOM worker’s collection after a job', () => {
  it('scavenges after every job that decodes or writes pixel data', () => {
    const after = createCollectionPolicy();
    for (const op of ['thumbnail', 'render', 'renderFrame', 'frames', 'transcode', 'deidentify'] as const)
      expect(after(op, 150_000), op).toBe('minor');
  });

  it('lets parse-only jobs share one scavenge per PARSED_BYTES_PER_SCAVENGE of data sets', () => {
    const after = createCollectionPolicy({ parsedBytesPerScavenge: 1 * MiB });
    const quarter = MiB / 4;
    expect([after('ingest', quarter), after('inspect', quarter), after('json', quarter)]).toEqual([null, null, null]);
    expect(after('ingest', quarter)).toBe('minor');
    // The count starts again after it.
    expect(after('ingest', quarter)).toBeNull();
    expect(PARSED_BYTES_PER_SCAVENGE).toBe(16 * MiB);
  });

  it('counts a decoding job’s scavenge for the parse-only jobs before it', () => {
    const after = createCollectionPolicy({ parsedBytesPerScavenge: 1 * MiB });
    expect(after('ingest', 0.75 * MiB)).toBeNull();
    expect(after('thumbnail', 1000)).toBe('minor');
    expect(after('ingest', 0.75 * MiB)).toBeNull();
  });

  it('scavenges after a parse-only job that failed, whatever the budget says', () => {
    const after = createCollectionPolicy({ parsedBytesPerScavenge: 1 * MiB });
    expect(after('ingest', 1000)).toBeNull();
    expect(after('inspect', 1000, true)).toBe('minor');
    expect(after('ingest', 0.75 * MiB)).toBeNull();
  });

  it('collects in full after any job over a large data set, parse-only or not', () => {
    const after = createCollectionPolicy();
    expect(after('inspect', LARGE_DATA_SET_BYTES + 1)).toBe('major');
    expect(after('thumbnail', LARGE_DATA_SET_BYTES + 1)).toBe('major');
    expect(after('inspect', LARGE_DATA_SET_BYTES)).toBe('minor');
  });
});

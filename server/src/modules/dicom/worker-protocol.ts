/** Messages between the DICOM pool and its worker. */
export type WorkerRequest = { id: number; bytes: ArrayBuffer } & (
  | { op: 'inspect' }
  /** The upload's check and the DICOM JSON model, from one parse (stored with the row: later reads reparse nothing). */
  | { op: 'ingest' }
  /** First frame as RGBA, with the summary (one parse for thumbnail and analysis input). */
  | { op: 'render' }
  /** First frame reduced for a thumbnail of at most `maxSide` px (thumbnail-frame.ts), else rendered in full (RGBA). */
  | { op: 'thumbnail'; maxSide: number }
  | { op: 'deidentify'; key: ArrayBuffer; scope: string }
  /** Frames copied into one transferred buffer; refused (413) past `maxBytes` in all. */
  /** `decode`: compressed frames decoded to native pixels (little endian) instead of sent as stored. */
  | { op: 'frames'; frames: number[]; maxBytes: number; decode?: boolean }
  | { op: 'json' }
  /** One frame (1-based) as RGBA, with the client's window if given (WADO-RS rendered). */
  | { op: 'renderFrame'; frame: number; window: { center: number; width: number } | null }
  /** The whole object as Explicit VR Little Endian (WADO-RS retrieve asking for it). */
  | { op: 'transcode' }
);
export type WorkerOp = WorkerRequest['op'];

/** Asks a worker for its own memory figures (process.memoryUsage() in a worker: its isolate's, but rss). */
export type WorkerMemoryRequest = { id: number; op: 'memory' };

export type WorkerResponse =
  | { id: number; ok: true; result: unknown }
  /** The object was refused: status and a message safe to show. */
  | { id: number; ok: false; rejection: { status: 400 | 413 | 415; message: string } }
  /** Anything else (a library bug on odd input): only the error's class name, never a value from the file. */
  | { id: number; ok: false; problem: string };

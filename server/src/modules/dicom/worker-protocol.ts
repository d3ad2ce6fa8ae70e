/** Messages between the DICOM pool and its worker. */
export type WorkerRequest = { id: number; bytes: ArrayBuffer } & (
  | { op: 'inspect' }
  | { op: 'render' }
  | { op: 'deidentify'; key: ArrayBuffer; scope: string }
  | { op: 'frames'; frames: number[] }
  | { op: 'json' }
);
export type WorkerOp = WorkerRequest['op'];

export type WorkerResponse =
  | { id: number; ok: true; result: unknown }
  /** The object was refused: status and a message safe to show. */
  | { id: number; ok: false; rejection: { status: 400 | 415; message: string } }
  /** Anything else (a library bug on odd input): only the error's class name, never a value from the file. */
  | { id: number; ok: false; problem: string };

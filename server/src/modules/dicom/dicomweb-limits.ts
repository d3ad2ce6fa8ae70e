import { LIST_MAX_WINDOW } from '@medshare/contracts';

/**
 * The DICOMweb routes' limits and the messages that name them: what one request may ask for and
 * hold (docs/security.md › Memory bounds).
 */

/** The most one WADO-RS frames answer may carry (docs/security.md › Memory bounds). */
export const MAX_FRAMES_ANSWER_BYTES = 64 * 1024 * 1024;
/**
 * A stored instance up to this size is read whole (decrypted and checked, one buffer) when the answer
 * opens it, so that the route can read it ahead of the part being sent; larger ones stream.
 */
export const WHOLE_READ_MAX_BYTES = 4 * 1024 * 1024;
/** Instances one study or series retrieve (or metadata answer) may list; past it, ask series by series. */
export const MAX_RETRIEVE_INSTANCES = 10_000;
/**
 * Objects are transcoded to Explicit VR Little Endian (one worker job each, while the answer
 * streams) only up to this much declared pixel data; larger ones answer 406 (ask for them as stored).
 */
export const MAX_TRANSCODE_PIXEL_BYTES = 64 * 1024 * 1024;
/** Rendered images one series or study answer may carry, and their encoded bytes in all. */
export const MAX_RENDERED_PARTS = 1000;
export const MAX_RENDERED_ANSWER_BYTES = MAX_FRAMES_ANSWER_BYTES;
/** Largest viewport a rendered image may be scaled to, per side. */
export const MAX_VIEWPORT_PX = 4096;
/** The most one QIDO answer may carry (JSON); past it, the page ends early with the "more results" warning. */
export const MAX_QIDO_ANSWER_BYTES = 64 * 1024 * 1024;

export const WadoMessages = {
  tooManyInstances: `This answer would list more than ${MAX_RETRIEVE_INSTANCES} instances: retrieve it series by series.`,
  tooManyRendered: `A rendered answer carries at most ${MAX_RENDERED_PARTS} images: ask for a series or an instance.`,
  renderedTooLarge: `The rendered images exceed ${MAX_RENDERED_ANSWER_BYTES / 2 ** 20} MiB, the most one answer may carry: ask for a series, an instance or a smaller viewport.`,
  nothingToRender: 'There is no image to render here (only documents without pixel data).',
  oneFrame: 'A rendered frame is one frame number.',
  window: 'window is center,width[,linear] with numbers (width above 0).',
  viewport: `viewport is vw,vh[,sx,sy,sw,sh]: whole numbers, vw and vh 1..${MAX_VIEWPORT_PX}, the region inside the image.`,
  windowShape: 'Only the linear window function is supported.',
  offset: `Only the first ${LIST_MAX_WINDOW} results can be paged through; narrow the search (StudyInstanceUID, Modality, PatientID).`,
  tooBroad: `Matching on names, accession numbers or descriptions looks at most ${LIST_MAX_WINDOW} results: narrow the search first (StudyDate, Modality, PatientID).`,
  studyDate: 'StudyDate is YYYYMMDD, or a range YYYYMMDD-YYYYMMDD (either end may be left out).',
} as const;

/** PS3.18 §8.10.3 warnings (RFC 7234 Warning header fields). */
export const QidoWarnings = {
  more: '299 MedShare "There are additional results that can be requested"',
  notMatched: (keys: string[]) =>
    `299 MedShare "The following attributes are not supported for matching and were ignored: ${keys.join(', ')}"`,
  unknownFields: '299 MedShare "Unknown includefield attributes were ignored."',
} as const;

/** Frame numbers one request may list. */
export const MAX_FRAMES_PER_REQUEST = 1000;
export const FramesMessages = {
  list: 'Frames are a comma-separated list of frame numbers starting at 1.',
  tooMany: `At most ${MAX_FRAMES_PER_REQUEST} frames may be asked for in one request.`,
  repeated: (n: number) => `Frame ${n} is listed more than once: ask for each frame once.`,
  outOfRange: 'Frame number out of range.',
} as const;

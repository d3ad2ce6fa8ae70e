/**
 * How long a DICOM text value may be as kept and matched: read by the DICOM worker's JSON model
 * (dicom-json.ts) and by QIDO-RS in the main thread (qido-fields.ts), which must not load dcmjs with
 * dicom-json.ts (docs/decisions.md › Memory of a server under load and at rest).
 */

/** The longest value of each text VR with a maximum, in characters (PS3.5 Table 6.2-1; PN: per component group). */
const VR_MAX_CHARS: Readonly<Record<string, number>> = {
  AE: 16,
  AS: 4,
  CS: 16,
  DA: 8,
  DS: 16,
  DT: 26,
  IS: 12,
  LO: 64,
  LT: 10_240,
  PN: 64,
  SH: 16,
  ST: 1024,
  TM: 14,
  UI: 64,
};
/**
 * Text values are kept (and matched, qido-fields.ts) up to this multiple of their VR's maximum: files
 * a little over it are common (long descriptions and accession numbers) and keep their value, while
 * a value of megabytes cannot make every read of the data set large (docs/security.md › Memory bounds).
 */
export const TEXT_CAP_FACTOR = 4;
/** The cap of text VRs without a maximum of their own (UC, UR, UT) and of any VR unknown here. */
export const UNBOUNDED_TEXT_CAP = 65_536;

/** The most characters a text value of `vr` keeps. */
export const textCapOf = (vr: string): number => {
  const max = VR_MAX_CHARS[vr];
  return max === undefined ? UNBOUNDED_TEXT_CAP : max * TEXT_CAP_FACTOR;
};

/** `value` cut to at most `max` UTF-16 units, never between the two halves of a surrogate pair. */
export function capText(value: string, max: number): string {
  if (value.length <= max) return value;
  const last = value.charCodeAt(max - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

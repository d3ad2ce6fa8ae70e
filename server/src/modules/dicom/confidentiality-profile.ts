import table from './confidentiality-profile.json' with { type: 'json' };

/**
 * PS3.15 Table E.1-1, Basic Profile column, kept as data in confidentiality-profile.json (its
 * header names the edition and where each row was checked). This module turns the standard's
 * codes into the one action MedShare applies:
 *
 *   X remove · Z empty · D dummy value of the VR · U UID through the keyed mapping · K keep
 *   C (clean) → removed: cleaning free text safely needs a human, removal is the strict reading.
 *   Combined codes let a de-identifier keep an attribute the IOD requires. MedShare takes the
 *   strongest: X/Z, X/D and X/Z/D → X (a missing type 2/1 attribute does not stop any viewer
 *   from showing the image), Z/D → Z. X/Z/U* (Referenced Image Sequence, Source Image Sequence)
 *   → U*: the sequence stays and its items are cleaned like the rest, so the references inside
 *   point at the mapped UIDs of the same shared study.
 *   D on a sequence → removed: a "dummy" sequence would carry made-up content items, and the
 *   only sequences with D (Content, Verifying Observer, Graphic Annotation, Person
 *   Identification Code …) are exactly where names and free text live.
 */
export type Code = 'X' | 'Z' | 'D' | 'U' | 'K' | 'C' | 'X/Z' | 'X/D' | 'X/Z/D' | 'Z/D' | 'X/Z/U*';
export type Action = 'X' | 'Z' | 'D' | 'U' | 'U*' | 'K';

export interface ProfileRow {
  tag: string;
  name: string;
  basic: Code;
  vr: string;
  after2023b?: boolean;
}

export const PROFILE_SOURCE = table.source;
export const PROFILE_ROWS: readonly ProfileRow[] = table.rows as ProfileRow[];
/** The rows for tag ranges (curves, overlays, private attributes), each with an example tag. */
export const PROFILE_RANGES = table.ranges as readonly (ProfileRow & { example: string })[];

export function resolve(code: Code, vr: string): Action {
  if (vr === 'SQ' && code === 'D') return 'X';
  switch (code) {
    case 'X':
    case 'C':
    case 'X/Z':
    case 'X/D':
    case 'X/Z/D':
      return 'X';
    case 'Z':
    case 'Z/D':
      return 'Z';
    case 'X/Z/U*':
      return 'U*';
    case 'D':
    case 'U':
    case 'K':
      return code;
  }
}

/** Upper-case GGGGEEEE → the action applied and the attribute's name. */
export const PROFILE: ReadonlyMap<string, { action: Action; code: Code; name: string }> = new Map(
  PROFILE_ROWS.map((row) => [row.tag, { action: resolve(row.basic, row.vr), code: row.basic, name: row.name }]),
);

/** The table's range rows: (50xx,xxxx) Curve Data, (60xx,3000) Overlay Data, (60xx,4000) Overlay Comments. */
export function rangeAction(tag: string): Action | null {
  const group = tag.slice(0, 4);
  if (/^50[0-9A-F]{2}$/.test(group)) return 'X';
  if (/^60[0-9A-F]{2}$/.test(group) && (tag.endsWith('3000') || tag.endsWith('4000'))) return 'X';
  return null;
}

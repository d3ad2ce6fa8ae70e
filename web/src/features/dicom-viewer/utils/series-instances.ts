/**
 * A series' instances as the stack viewer pages through them: read from QIDO-RS answers (DICOM
 * JSON, PS3.18 F.2), sorted by Instance Number, then by position along the slice normal, then by
 * Slice Location, then by SOP Instance UID (the order stays the same from one visit to the next).
 */

/** One attribute of a DICOM JSON data set. */
type JsonAttribute = { vr?: string; Value?: unknown[] };
export type DicomJson = Record<string, JsonAttribute | undefined>;

export type SeriesInstance = {
  sopInstanceUid: string;
  instanceNumber: number | null;
  sliceLocation: number | null;
  /** ImagePositionPatient projected on the normal of ImageOrientationPatient (mm); null when either is missing. */
  position: number | null;
  frames: number;
};

/** One image of the stack: an instance, or one frame of a multi-frame instance. */
export type StackSlice = { instance: SeriesInstance; frame: number };

/** The QIDO fields the viewer asks for besides the default ones (PS3.18 §10.6.1.2.3 includefield). */
export const STACK_INCLUDE_FIELDS = [
  '00200013', // InstanceNumber
  '00201041', // SliceLocation
  '00200032', // ImagePositionPatient
  '00200037', // ImageOrientationPatient
  '00280008', // NumberOfFrames
] as const;

function numbers(json: DicomJson, tag: string): number[] {
  const values = json[tag]?.Value ?? [];
  return values.map((v) => (typeof v === 'number' ? v : Number(v))).filter((v) => Number.isFinite(v));
}

function firstNumber(json: DicomJson, tag: string): number | null {
  return numbers(json, tag)[0] ?? null;
}

export function stringOf(json: DicomJson, tag: string): string | null {
  const value = json[tag]?.Value?.[0];
  return typeof value === 'string' && value ? value : null;
}

/** Where a slice lies along the normal of its image plane: its position · (row × column direction). */
function positionAlongNormal(json: DicomJson): number | null {
  const position = numbers(json, '00200032');
  const orientation = numbers(json, '00200037');
  if (position.length !== 3 || orientation.length !== 6) return null;
  const [rx, ry, rz, cx, cy, cz] = orientation as [number, number, number, number, number, number];
  const normal = [ry * cz - rz * cy, rz * cx - rx * cz, rx * cy - ry * cx];
  return position[0]! * normal[0]! + position[1]! * normal[1]! + position[2]! * normal[2]!;
}

export function instanceOf(json: DicomJson): SeriesInstance | null {
  const sopInstanceUid = stringOf(json, '00080018');
  if (!sopInstanceUid) return null;
  return {
    sopInstanceUid,
    instanceNumber: firstNumber(json, '00200013'),
    sliceLocation: firstNumber(json, '00201041'),
    position: positionAlongNormal(json),
    frames: Math.max(1, firstNumber(json, '00280008') ?? 1),
  };
}

/** Nulls last; otherwise ascending. */
function compareNullable(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a - b;
}

export function sortInstances(list: readonly SeriesInstance[]): SeriesInstance[] {
  return [...list].sort(
    (a, b) =>
      compareNullable(a.instanceNumber, b.instanceNumber) ||
      compareNullable(a.position, b.position) ||
      compareNullable(a.sliceLocation, b.sliceLocation) ||
      (a.sopInstanceUid < b.sopInstanceUid ? -1 : a.sopInstanceUid > b.sopInstanceUid ? 1 : 0),
  );
}

/** Every image of the stack in order: each frame of a multi-frame instance in turn. */
export function stackSlices(instances: readonly SeriesInstance[]): StackSlice[] {
  return instances.flatMap((instance) =>
    Array.from({ length: instance.frames }, (_, i) => ({ instance, frame: i + 1 })),
  );
}

/** "12 / 300", with the Slice Location when the instance has one: "12 / 300 · Slice −45.5 mm". */
export function slicePositionText(index: number, slices: readonly StackSlice[]): string {
  const slice = slices[index];
  const counter = `${index + 1} / ${slices.length}`;
  if (!slice) return counter;
  const frame = slice.instance.frames > 1 ? ` · Frame ${slice.frame}/${slice.instance.frames}` : '';
  const location = slice.instance.sliceLocation === null ? '' : ` · Slice ${formatMm(slice.instance.sliceLocation)}`;
  return `${counter}${frame}${location}`;
}

function formatMm(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return `${rounded.toLocaleString('en', { maximumFractionDigits: 1 })} mm`;
}

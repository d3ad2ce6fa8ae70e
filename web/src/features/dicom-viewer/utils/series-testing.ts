// Test helpers of the stack viewer: QIDO answers as the server writes them. Imported by tests only.
import type { DicomJson } from './series-instances';

/** A QIDO instance: SOP UID, Instance Number, Slice Location, position along z (axial orientation). */
export function qidoInstance(
  sop: string,
  n: number | null,
  opts: { location?: number; z?: number; frames?: number } = {},
): DicomJson {
  return {
    '00080018': { vr: 'UI', Value: [sop] },
    ...(n === null ? {} : { '00200013': { vr: 'IS', Value: [n] } }),
    ...(opts.location === undefined ? {} : { '00201041': { vr: 'DS', Value: [opts.location] } }),
    ...(opts.z === undefined
      ? {}
      : {
          '00200032': { vr: 'DS', Value: [0, 0, opts.z] },
          '00200037': { vr: 'DS', Value: [1, 0, 0, 0, 1, 0] },
        }),
    ...(opts.frames ? { '00280008': { vr: 'IS', Value: [opts.frames] } } : {}),
  };
}

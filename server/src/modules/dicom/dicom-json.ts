import dcmjs from 'dcmjs';
import { type ParsedDicom, dcmjsSource } from './dicom-core.ts';

/** An attribute of the DICOM JSON model (PS3.18 Annex F). */
export interface JsonAttribute {
  vr: string;
  Value?: unknown[];
  InlineBinary?: string;
}
export type DicomJson = Record<string, JsonAttribute>;

const BINARY = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'UN']);
/** Binary values up to this size are sent inline (base64); larger ones (pixel data) are left out. */
const INLINE_MAX = 4096;

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

/** A value as kept: strings and each component group of a person name capped; numbers and the rest as they are. */
function capValue(value: unknown, max: number): unknown {
  if (typeof value === 'string') return capText(value, max);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const name = value as Record<string, unknown>;
    if (['Alphabetic', 'Ideographic', 'Phonetic'].some((k) => typeof name[k] === 'string'))
      return Object.fromEntries(Object.entries(name).map(([k, v]) => [k, typeof v === 'string' ? capText(v, max) : v]));
  }
  return value;
}

function convert(dict: Record<string, { vr: string; Value?: unknown[] }>): DicomJson {
  const out: DicomJson = {};
  for (const tag of Object.keys(dict).sort()) {
    const element = dict[tag]!;
    const key = tag.toUpperCase();
    if (BINARY.has(element.vr)) {
      const first = element.Value?.[0];
      const bytes = first instanceof ArrayBuffer ? new Uint8Array(first) : null;
      out[key] =
        bytes && bytes.length <= INLINE_MAX && key !== '7FE00010'
          ? { vr: element.vr, InlineBinary: Buffer.from(bytes).toString('base64') }
          : { vr: element.vr };
      continue;
    }
    if (element.vr === 'SQ') {
      out[key] = {
        vr: 'SQ',
        ...(element.Value?.length
          ? { Value: element.Value.map((item) => convert(item as Record<string, { vr: string; Value?: unknown[] }>)) }
          : {}),
      };
      continue;
    }
    const max = textCapOf(element.vr);
    const values = (element.Value ?? [])
      .filter((v) => v !== undefined && v !== null && v !== '')
      .map((v) => capValue(v, max));
    out[key] = values.length ? { vr: element.vr, Value: values } : { vr: element.vr };
  }
  return out;
}

/** The data set (without the File Meta group) in the DICOM JSON model, each text value capped (textCapOf). */
export function toDicomJson(input: Uint8Array, parsed: ParsedDicom): DicomJson {
  // Native pixel data is left out before dcmjs reads the object (the JSON leaves it out anyway).
  const message = dcmjs.data.DicomMessage.readFile(dcmjsSource(input, parsed, 'none'), { ignoreErrors: true });
  return convert(message.dict as Record<string, { vr: string; Value?: unknown[] }>);
}

import dcmjs from 'dcmjs';
import { type ParsedDicom, asPart10 } from './dicom-core.ts';

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
    const values = (element.Value ?? []).filter((v) => v !== undefined && v !== null && v !== '');
    out[key] = values.length ? { vr: element.vr, Value: values } : { vr: element.vr };
  }
  return out;
}

/** The data set (without the File Meta group) in the DICOM JSON model. */
export function toDicomJson(input: Uint8Array, parsed: ParsedDicom): DicomJson {
  const part10 = asPart10(input, parsed);
  const buffer = part10.buffer.slice(part10.byteOffset, part10.byteOffset + part10.byteLength) as ArrayBuffer;
  const message = dcmjs.data.DicomMessage.readFile(buffer, { ignoreErrors: true });
  return convert(message.dict as Record<string, { vr: string; Value?: unknown[] }>);
}

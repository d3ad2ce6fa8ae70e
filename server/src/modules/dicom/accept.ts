import contentType from 'content-type';
import { notAcceptable } from '../../errors.ts';
import { TransferSyntax, frameMediaType, isNativeSyntax } from './dicom-core.ts';

/**
 * Content negotiation of DICOMweb answers (PS3.18 §8.7: media types, their `type` and
 * `transfer-syntax` parameters, q-values). Each media range of the Accept header is parsed by
 * `content-type` (RFC 7231 tokens and quoted strings); the matching is DICOM's own, because its
 * rules are not generic ones: a range without `transfer-syntax` means the media type's default
 * syntax (Explicit VR Little Endian for application/dicom and application/octet-stream), and `*`
 * means "as stored". docs/decisions.md › DICOMweb content negotiation.
 */
export interface MediaRange {
  /** type/subtype, lower case. */
  type: string;
  /** Parameter names lower case; the `type` parameter's value lower case, others as sent. */
  params: Record<string, string>;
  q: number;
}

const EXPLICIT_LE = TransferSyntax.explicitLE;

/** `text` split at each `separator` that is not inside a quoted string, each part trimmed. */
function splitOutsideQuotes(text: string, separator: ',' | ';'): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' && text[i - 1] !== '\\') quoted = !quoted;
    else if (c === separator && !quoted) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim());
}

/**
 * One media range. Cornerstone's and OHIF's loaders send `type=application/octet-stream` unquoted,
 * which RFC 7231 does not allow ('/' is not a token character) but PS3.18 clients expect to work:
 * a range that does not parse as sent is read again with its unquoted parameter values quoted. Split
 * and trimmed in one pass each: a regular expression doing the same backtracked quadratically over
 * a long run of spaces (15 000 of them held the event loop 271 ms, from a route open to anyone).
 */
function parseRange(text: string): contentType.ParsedMediaType | null {
  try {
    return contentType.parse(text);
  } catch {
    const [type = '', ...params] = splitOutsideQuotes(text, ';');
    const quoted = params.map((param) => {
      const eq = param.indexOf('=');
      if (eq < 0) return param;
      const value = param.slice(eq + 1).trim();
      // Nothing to quote, or quoted already: as sent (an empty value stays refused).
      return !value || value.includes('"') ? param : `${param.slice(0, eq).trim()}="${value}"`;
    });
    try {
      return contentType.parse([type, ...quoted].join('; '));
    } catch {
      return null;
    }
  }
}

/**
 * The acceptable media ranges, best first (q descending, then the order sent). No header, or an
 * empty one, accepts anything. Ranges that do not parse and ranges with q=0 are left out.
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header?.trim()) return [{ type: '*/*', params: {}, q: 1 }];
  const parsed: Array<MediaRange & { at: number }> = [];
  for (const [at, text] of splitOutsideQuotes(header, ',').filter(Boolean).entries()) {
    const range = parseRange(text);
    if (!range) continue;
    const params: Record<string, string> = { ...range.parameters };
    const q = params.q === undefined ? 1 : Number(params.q);
    delete params.q;
    if (!(q > 0 && q <= 1)) continue;
    if (params.type !== undefined) params.type = params.type.toLowerCase();
    parsed.push({ type: range.type, params, q, at });
  }
  return parsed.sort((a, b) => b.q - a.q || a.at - b.at).map(({ at: _at, ...r }) => r);
}

/** A range that leaves the choice to the server: any type, any multipart, multipart/related of any type. */
const serverChoice = (r: MediaRange) =>
  r.type === '*/*' ||
  r.type === 'multipart/*' ||
  (r.type === 'multipart/related' && (r.params.type === undefined || r.params.type === '*/*'));

/** Syntaxes held compressed losslessly that dcmjs-codecs decodes to Explicit VR Little Endian (its README's list). */
const LOSSLESS_DECODABLE = new Set<string>([
  TransferSyntax.rle,
  TransferSyntax.jpegLosslessSV1,
  TransferSyntax.jpegLsLossless,
  TransferSyntax.j2kLossless,
  TransferSyntax.htj2kLossless,
  TransferSyntax.htj2kLosslessRpcl,
]);
/** Compressed syntaxes whose frames dcmjs-codecs decodes to native pixels (lossy ones give their lossy values). */
const FRAME_DECODABLE = new Set<string>([
  ...LOSSLESS_DECODABLE,
  TransferSyntax.jpegBaseline,
  TransferSyntax.jpegExtended,
  TransferSyntax.jpegLossless,
  TransferSyntax.jpegLsNearLossless,
  TransferSyntax.j2k,
  TransferSyntax.htj2k,
]);

/**
 * Whether a stored object can be sent as Explicit VR Little Endian without losing anything: native
 * syntaxes are re-encoded (implicit, big endian, deflated), lossless compression is decoded. Lossy
 * compressed objects are not: decompressing them would present lossy pixels as an original.
 */
export const transcodableToExplicitLE = (stored: string) => isNativeSyntax(stored) || LOSSLESS_DECODABLE.has(stored);
export const frameDecodable = (stored: string) => FRAME_DECODABLE.has(stored);

const SYNTAX_NAMES: Record<string, string> = {
  [TransferSyntax.implicitLE]: 'Implicit VR Little Endian',
  [TransferSyntax.explicitLE]: 'Explicit VR Little Endian',
  [TransferSyntax.deflatedLE]: 'Deflated Explicit VR Little Endian',
  [TransferSyntax.explicitBE]: 'Explicit VR Big Endian',
  [TransferSyntax.rle]: 'RLE Lossless',
  [TransferSyntax.jpegBaseline]: 'JPEG Baseline',
  [TransferSyntax.jpegExtended]: 'JPEG Extended',
  [TransferSyntax.jpegLossless]: 'JPEG Lossless',
  [TransferSyntax.jpegLosslessSV1]: 'JPEG Lossless SV1',
  [TransferSyntax.jpegLsLossless]: 'JPEG-LS Lossless',
  [TransferSyntax.jpegLsNearLossless]: 'JPEG-LS Near-Lossless',
  [TransferSyntax.j2kLossless]: 'JPEG 2000 Lossless',
  [TransferSyntax.j2k]: 'JPEG 2000',
  [TransferSyntax.htj2kLossless]: 'HTJ2K Lossless',
  [TransferSyntax.htj2kLosslessRpcl]: 'HTJ2K Lossless RPCL',
  [TransferSyntax.htj2k]: 'HTJ2K',
};
export const syntaxName = (uid: string) => (SYNTAX_NAMES[uid] ? `${uid} (${SYNTAX_NAMES[uid]})` : uid);

export const AcceptMessages = {
  retrieve:
    'This resource is answered as multipart/related; type="application/dicom" (transfer-syntax=* for the objects as stored).',
  frames:
    'Frames are answered as multipart/related; type="application/octet-stream" (transfer-syntax=* for the stored bitstream), or in the stored image media type.',
  metadata: 'Metadata is answered as application/dicom+json.',
  capabilities: 'The capabilities are answered as application/vnd.sun.wadl+xml or application/json.',
  rendered: 'Rendered images are answered as image/jpeg or image/png.',
  renderedMultipart: 'Rendered series and studies are answered as multipart/related; type="image/jpeg" or "image/png".',
  notAsStored: (stored: string, asked: string) =>
    `The stored object is in transfer syntax ${syntaxName(stored)} and cannot be sent as ${syntaxName(asked)} without loss or a codec this server lacks; ask for transfer-syntax=* to receive it as stored.`,
  cannotTranscode: (stored: string) =>
    `The stored object (transfer syntax ${syntaxName(stored)}) could not be re-encoded as Explicit VR Little Endian; ask for transfer-syntax=* to receive it as stored.`,
  tooLargeToTranscode: (stored: string, mib: number) =>
    `The stored object is in transfer syntax ${syntaxName(stored)}; objects over ${mib} MiB of pixel data are not transcoded here: ask for transfer-syntax=* to receive it as stored.`,
} as const;

/** What a retrieve range asks for: '*' (as stored) or a transfer syntax UID. */
export type Wanted = '*' | string;

/**
 * WADO-RS instance, series and study retrieve: the syntaxes acceptable, best first. A range
 * leaving the choice to us means as stored. 406 when no range is application/dicom (or open).
 */
export function retrieveSyntaxes(header: string | undefined): Wanted[] {
  const wanted: Wanted[] = [];
  for (const r of parseAccept(header)) {
    if (serverChoice(r)) wanted.push('*');
    else if (
      (r.type === 'multipart/related' && r.params.type === 'application/dicom') ||
      r.type === 'application/dicom'
    )
      wanted.push(r.params['transfer-syntax'] ?? EXPLICIT_LE);
  }
  if (!wanted.length) throw notAcceptable(AcceptMessages.retrieve);
  return wanted;
}

/** How one stored object is sent for `wanted`: as stored, transcoded to Explicit VR LE, or not at all. */
export function chooseSyntax(wanted: Wanted[], stored: string): 'stored' | 'explicit' | null {
  for (const w of wanted) {
    if (w === '*' || w === stored) return 'stored';
    if (w === EXPLICIT_LE && transcodableToExplicitLE(stored)) return 'explicit';
  }
  return null;
}

/** How frames are sent: their bytes as stored or decoded to native, and the media type of each part. */
export interface FramesChoice {
  decode: boolean;
  partType: string;
}

/** Default syntax of an image media type for frames (PS3.18 Table 8.7.3-5). */
const IMAGE_DEFAULT: Record<string, string> = {
  'image/jpeg': TransferSyntax.jpegBaseline,
  'image/jls': TransferSyntax.jpegLsLossless,
  'image/jp2': TransferSyntax.j2kLossless,
  'image/jphc': TransferSyntax.htj2kLossless,
  'image/dicom-rle': TransferSyntax.rle,
};

/**
 * WADO-RS frames: native pixel data is sent little endian as application/octet-stream; compressed
 * frames as their stored bitstream (in their image media type, or as application/octet-stream with
 * the stored transfer-syntax when the client asked for that type with `*`), or decoded to native
 * when the client asks for application/octet-stream without a syntax (Explicit VR Little Endian).
 */
export function chooseFrames(header: string | undefined, stored: string, encapsulated: boolean): FramesChoice {
  const native: FramesChoice = { decode: false, partType: `application/octet-stream; transfer-syntax=${EXPLICIT_LE}` };
  const asStored: FramesChoice = { decode: false, partType: `${frameMediaType(stored)}; transfer-syntax=${stored}` };
  let refusedSyntax: string | null = null;
  for (const r of parseAccept(header)) {
    const inner = r.type === 'multipart/related' ? r.params.type : r.type;
    const ts = r.params['transfer-syntax'];
    if (serverChoice(r)) return encapsulated ? asStored : native;
    if (inner === 'application/octet-stream') {
      const wanted = ts ?? EXPLICIT_LE;
      if (!encapsulated) {
        if (wanted === '*' || wanted === EXPLICIT_LE) return native;
      } else if (wanted === '*' || wanted === stored) {
        return { decode: false, partType: `application/octet-stream; transfer-syntax=${stored}` };
      } else if (wanted === EXPLICIT_LE && frameDecodable(stored)) {
        return { decode: true, partType: native.partType };
      }
      refusedSyntax = wanted;
    } else if (inner !== undefined && inner.startsWith('image/') && encapsulated) {
      const media = frameMediaType(stored);
      if (inner !== 'image/*' && inner !== media) continue;
      const wanted = ts ?? (inner === 'image/*' ? '*' : (IMAGE_DEFAULT[inner] ?? '*'));
      if (wanted === '*' || wanted === stored) return asStored;
      refusedSyntax = wanted;
    }
  }
  if (refusedSyntax && refusedSyntax !== '*') throw notAcceptable(AcceptMessages.notAsStored(stored, refusedSyntax));
  throw notAcceptable(AcceptMessages.frames);
}

/** application/dicom+json for metadata; application/json too (dicomweb clients send it). */
export function acceptsDicomJson(header: string | undefined): void {
  const ok = parseAccept(header).some((r) =>
    ['*/*', 'application/*', 'application/dicom+json', 'application/json'].includes(r.type),
  );
  if (!ok) throw notAcceptable(AcceptMessages.metadata);
}

export type RenderedType = 'image/jpeg' | 'image/png';

/**
 * Rendered resources: image/jpeg (the default) or image/png. For series and studies (multipart),
 * `multipart/related; type="image/…"` and the bare image types are both taken.
 */
export function renderedType(header: string | undefined, multipart: boolean): RenderedType {
  for (const r of parseAccept(header)) {
    const inner = r.type === 'multipart/related' ? (r.params.type ?? '*/*') : r.type;
    if (r.type === 'multipart/related' && !multipart) continue;
    if (inner === 'image/jpeg' || inner === 'image/png') return inner;
    if (inner === '*/*' || inner === 'image/*' || r.type === 'multipart/*') return 'image/jpeg';
  }
  throw notAcceptable(multipart ? AcceptMessages.renderedMultipart : AcceptMessages.rendered);
}

/** The capabilities document: WADL (PS3.18 Annex H) unless JSON is preferred. */
export function capabilitiesType(header: string | undefined): 'application/vnd.sun.wadl+xml' | 'application/json' {
  for (const r of parseAccept(header)) {
    if (r.type === 'application/json') return 'application/json';
    if (['application/vnd.sun.wadl+xml', 'application/xml', 'text/xml', 'application/*', '*/*'].includes(r.type))
      return 'application/vnd.sun.wadl+xml';
  }
  throw notAcceptable(AcceptMessages.capabilities);
}

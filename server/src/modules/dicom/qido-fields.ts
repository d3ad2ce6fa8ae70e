import { badRequest } from '../../errors.ts';
import { PROFILE, rangeAction } from './confidentiality-profile.ts';
import { calendarDate } from './dicom-core.ts';
import type { DicomJson } from './dicom-json.ts';
import { capText, textCapOf } from './text-caps.ts';

/**
 * Which attributes a QIDO-RS answer carries (PS3.18 §10.6.3.3): the level's default set, plus
 * those named by `includefield` (keywords or 8-digit tags), or every attribute of the sample
 * instance for `includefield=all`. Values come from the stored DICOM JSON of one instance of the
 * study or series; counts, modalities and URLs are computed.
 */
export type QidoLevel = 'studies' | 'series' | 'instances';

const STUDY = [
  '00080005', // SpecificCharacterSet
  '00080020', // StudyDate
  '00080030', // StudyTime
  '00080050', // AccessionNumber
  '00080090', // ReferringPhysicianName
  '00081030', // StudyDescription
  '00100010', // PatientName
  '00100020', // PatientID
  '00100030', // PatientBirthDate
  '00100040', // PatientSex
  '0020000D', // StudyInstanceUID
  '00200010', // StudyID
];
const SERIES = [
  '00080005',
  '00080060', // Modality
  '0008103E', // SeriesDescription
  '00080021', // SeriesDate
  '00080031', // SeriesTime
  '00180015', // BodyPartExamined
  '0020000D',
  '0020000E', // SeriesInstanceUID
  '00200011', // SeriesNumber
  '00400244', // PerformedProcedureStepStartDate
  '00400245', // PerformedProcedureStepStartTime
];
const INSTANCE = [
  '00080005',
  '00080016', // SOPClassUID
  '00080018', // SOPInstanceUID
  '00080060',
  '0020000D',
  '0020000E',
  '00200013', // InstanceNumber
  '00280008', // NumberOfFrames
  '00280010', // Rows
  '00280011', // Columns
  '00280100', // BitsAllocated
];
export const DEFAULT_FIELDS: Record<QidoLevel, readonly string[]> = {
  studies: STUDY,
  series: SERIES,
  instances: INSTANCE,
};

/** Most fields one request may name. */
export const MAX_INCLUDE_FIELDS = 200;

/** A DICOM keyword's tag as 8 hex digits, or undefined for a word that is not one. */
type KeywordTags = (keyword: string) => string | undefined;
let keywordTags: Promise<KeywordTags> | undefined;

/**
 * dcmjs's keyword dictionary, loaded by the first query that names an attribute by keyword: dcmjs in
 * the main thread costs ~14 MiB of memory (its source, code and dictionary), and only the DICOM
 * workers otherwise need it (docs/decisions.md › Memory of a server under load and at rest).
 */
function dictionary(): Promise<KeywordTags> {
  keywordTags ??= import('dcmjs').then(({ default: dcmjs }) => {
    const { nameMap } = (dcmjs.data as unknown as { DicomMetaDictionary: { nameMap: Record<string, { tag: string }> } })
      .DicomMetaDictionary;
    return (keyword) =>
      Object.hasOwn(nameMap, keyword) ? nameMap[keyword]!.tag.replace(/[(),]/g, '').toUpperCase() : undefined;
  });
  // A failed load is not kept: the next query that names a keyword tries again.
  keywordTags.catch(() => (keywordTags = undefined));
  return keywordTags;
}
const HEX_TAG = /^[0-9A-Fa-f]{8}$/;

/**
 * The tags `includefield` names ('all' for every attribute). Values may repeat the parameter or be
 * comma-separated; sequence paths (`A.B`) take their top-level attribute. Unknown keywords are
 * ignored, as PS3.18 §8.3.4 has servers do with values they do not support (the answer says so in a
 * Warning header); more than MAX_INCLUDE_FIELDS names is a 400.
 */
export async function includeFields(
  value: string | string[] | undefined,
): Promise<{ tags: 'all' | string[]; unknown: boolean }> {
  if (value === undefined) return { tags: [], unknown: false };
  const items = (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (items.length > MAX_INCLUDE_FIELDS)
    throw badRequest(`includefield names at most ${MAX_INCLUDE_FIELDS} attributes.`, [
      { field: 'includefield', message: `At most ${MAX_INCLUDE_FIELDS} attributes` },
    ]);
  if (items.some((v) => v.toLowerCase() === 'all')) return { tags: 'all', unknown: false };
  const tags: string[] = [];
  let unknown = false;
  const tops = items.map((item) => item.split('.')[0]!);
  const tagOf = tops.every((top) => HEX_TAG.test(top)) ? undefined : await dictionary();
  for (const top of tops) {
    const tag = HEX_TAG.test(top) ? top.toUpperCase() : tagOf?.(top);
    if (tag) tags.push(tag);
    else unknown = true;
  }
  return { tags, unknown };
}

/**
 * One QIDO result: the chosen attributes of the sample instance's data set (when there is one),
 * then the computed ones on top. Attributes the data set lacks are left out, except the defaults,
 * which are present (empty) as PS3.18 requires of a supported return key.
 */
export function qidoResult(
  level: QidoLevel,
  sample: DicomJson | null,
  include: 'all' | string[],
  computed: DicomJson,
): DicomJson {
  const out: DicomJson = {};
  if (sample) {
    if (include === 'all') {
      for (const [tag, attr] of Object.entries(sample)) out[tag] = attr;
    } else {
      for (const tag of include) if (sample[tag]) out[tag] = sample[tag];
    }
    for (const tag of DEFAULT_FIELDS[level]) out[tag] = sample[tag] ?? out[tag] ?? { vr: vrOf(tag) };
  }
  Object.assign(out, computed);
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((tag) => [tag, out[tag]!]),
  );
}

const VR: Record<string, string> = {
  '00080005': 'CS',
  '00080020': 'DA',
  '00080021': 'DA',
  '00080030': 'TM',
  '00080031': 'TM',
  '00080050': 'SH',
  '00080090': 'PN',
  '00081030': 'LO',
  '0008103E': 'LO',
  '00100010': 'PN',
  '00100020': 'LO',
  '00100030': 'DA',
  '00100040': 'CS',
  '00200010': 'SH',
  '00200011': 'IS',
  '00200013': 'IS',
  '00400244': 'DA',
  '00400245': 'TM',
  '00180015': 'CS',
  '00080060': 'CS',
  '00080016': 'UI',
  '00080018': 'UI',
  '0020000D': 'UI',
  '0020000E': 'UI',
  '00280008': 'IS',
  '00280010': 'US',
  '00280011': 'US',
  '00280100': 'US',
};
const vrOf = (tag: string) => VR[tag] ?? 'UN';

/**
 * Whether an attribute is one the Basic Confidentiality Profile (PS3.15 Table E.1-1) removes, empties
 * or replaces: names, IDs, dates, descriptions, private attributes. UIDs (mapped) and kept attributes
 * are not.
 */
export function isPhiTag(tag: string): boolean {
  const row = PROFILE.get(tag);
  if (row) return row.action === 'X' || row.action === 'Z' || row.action === 'D';
  if (Number.parseInt(tag.slice(0, 4), 16) % 2 === 1) return true;
  return rangeAction(tag) !== null;
}

/** Whether QIDO results at `level` with these includefield tags carry PHI from the stored data sets. */
export function returnsPhi(level: QidoLevel, include: 'all' | string[]): boolean {
  return include === 'all' || [...DEFAULT_FIELDS[level], ...include].some(isPhiTag);
}

/** A match on a sealed attribute (PS3.4 C.2.2.2): person names, accession number, study description. */
export interface TextFilter {
  tag: string;
  pattern: string;
  person: boolean;
  /** The attribute's VR: stored values are matched up to its cap (dicom-json.ts textCapOf). */
  vr: string;
}

const TEXT_KEYS: Array<[string, string, boolean, string]> = [
  ['PatientName', '00100010', true, 'PN'],
  ['AccessionNumber', '00080050', false, 'SH'],
  ['StudyDescription', '00081030', false, 'LO'],
];
/** Values of one attribute looked at when matching (all three have VM 1; a file may hold a few more). */
const MATCH_VALUES = 8;
/** Keys this server matches on, or reads as parameters; other DICOM attributes sent are named in a warning. */
const HANDLED = new Set([
  'StudyInstanceUID',
  '0020000D',
  'SeriesInstanceUID',
  '0020000E',
  'SOPInstanceUID',
  '00080018',
  'PatientID',
  '00100020',
  'Modality',
  '00080060',
  'ModalitiesInStudy',
  '00080061',
  'StudyDate',
  '00080020',
  ...TEXT_KEYS.flatMap(([keyword, tag]) => [keyword, tag]),
  'limit',
  'offset',
  'includefield',
  'fuzzymatching',
]);

/** The text filters of a query (an empty value is universal matching: no filter). */
export function textFiltersOf(query: Record<string, unknown>): TextFilter[] {
  const out: TextFilter[] = [];
  for (const [keyword, tag, person, vr] of TEXT_KEYS) {
    const value = query[keyword] ?? query[tag];
    if (typeof value === 'string' && value !== '' && value !== '*') out.push({ tag, pattern: value, person, vr });
  }
  return out;
}

/** DICOM attributes the query names for matching that this server does not match on (keywords, or tags as sent). */
export async function unmatchedKeys(query: Record<string, unknown>): Promise<string[]> {
  const keys = Object.keys(query).filter((key) => !HANDLED.has(key));
  const tagOf = keys.every((key) => HEX_TAG.test(key)) ? undefined : await dictionary();
  const out: string[] = [];
  for (const key of keys) {
    if (HEX_TAG.test(key)) out.push(key.toUpperCase());
    else if (tagOf?.(key)) out.push(key);
  }
  return out.slice(0, 10);
}

/** A string as indexable characters: itself, or its code points when it holds surrogate pairs (so `?` is one character). */
const charsOf = (s: string): string | string[] => (/[\uD800-\uDFFF]/.test(s) ? Array.from(s) : s);

/**
 * Whether `value` matches a DICOM wildcard pattern whole (`*` any run, `?` one character): the greedy
 * glob walk with one backtrack point, comparing in place, in time at most the product of their
 * lengths. No regular expression, so a pattern of many `*` cannot make matching explode; callers cap
 * the value (textMatcher), which bounds the product.
 */
export function globMatch(pattern: string, value: string): boolean {
  const p = charsOf(pattern);
  const v = charsOf(value);
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < v.length) {
    if (i < p.length && (p[i] === '?' || (p[i] !== '*' && p[i] === v[j]))) {
      i++;
      j++;
    } else if (i < p.length && p[i] === '*') {
      star = i++;
      mark = j;
    } else if (star >= 0) {
      i = star + 1;
      j = ++mark;
    } else return false;
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}

/**
 * The string values of an attribute as matched: a person name's alphabetic form, other values as
 * they are; at most MATCH_VALUES of them, each capped as stored values are (a copy stored before the
 * cap may hold megabytes).
 */
function textValues(json: DicomJson, tag: string, vr: string): string[] {
  const max = textCapOf(vr);
  return (json[tag]?.Value ?? []).slice(0, MATCH_VALUES).flatMap((v) => {
    if (typeof v === 'string') return [capText(v, max)];
    if (v && typeof v === 'object' && typeof (v as { Alphabetic?: unknown }).Alphabetic === 'string')
      return [capText((v as { Alphabetic: string }).Alphabetic, max)];
    return [];
  });
}

/**
 * Whether a data set matches every filter. Literal matching (fuzzymatching off): the whole value,
 * with `*` and `?` wildcards; person names regardless of case. Fuzzy (person names only): every
 * word of the pattern begins one of the name's parts (family, given, middle…), regardless of case.
 * Each value is capped before anything else is done with it, so one match costs at most the cap
 * times the pattern's length.
 */
export function textMatcher(filters: TextFilter[], fuzzy: boolean): (json: DicomJson | null) => boolean {
  const tests = filters.map((f) => {
    if (fuzzy && f.person) {
      const words = f.pattern
        .toLowerCase()
        .replace(/[*?]/g, '')
        .split(/[\s^,]+/)
        .filter(Boolean);
      return (values: string[]) =>
        values.some((name) => {
          const parts = name
            .toLowerCase()
            .split(/[\s^]+/)
            .filter(Boolean);
          return words.every((w) => parts.some((p) => p.startsWith(w)));
        });
    }
    const pattern = f.person ? f.pattern.toLowerCase() : f.pattern;
    // Trailing empty components of a person name (Doe^John^^^) do not count.
    return (values: string[]) =>
      values.some((v) => globMatch(pattern, f.person ? v.replace(/\^+$/, '').toLowerCase() : v.trim()));
  });
  return (json) => !!json && filters.every((f, i) => tests[i]!(textValues(json, f.tag, f.vr)));
}

/** A StudyDate match: one date or a range (PS3.4 C.2.2.2.5), as inclusive ISO bounds; null when malformed. */
export function studyDateRange(value: string): { from?: string; to?: string } | null {
  const iso = (d: string) => {
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(d);
    return m ? calendarDate(m[1]!, m[2]!, m[3]!) : null;
  };
  const range = /^(\d{8})?-(\d{8})?$/.exec(value);
  if (!range) {
    const day = iso(value);
    return day ? { from: day, to: day } : null;
  }
  const [, a, b] = range;
  if (!a && !b) return null;
  const from = a ? iso(a) : undefined;
  const to = b ? iso(b) : undefined;
  if (from === null || to === null) return null;
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
}

import { DicomPaths } from '@medshare/contracts/paths';
import { apiBlob } from '../../../lib/api-client';
import {
  type DicomJson,
  STACK_INCLUDE_FIELDS,
  type SeriesInstance,
  instanceOf,
  sortInstances,
} from '../utils/series-instances';

/** QIDO-RS pages: the most one answer may list (the server's limit). */
const QIDO_PAGE = 1000;

const seriesPath = (study: string, series: string) =>
  `${DicomPaths.dicomweb}/studies/${encodeURIComponent(study)}/series/${encodeURIComponent(series)}`;

async function dicomJson(path: string, query: Record<string, string | number>, signal?: AbortSignal) {
  // DICOMweb answers are bare DICOM JSON (no envelope); apiBlob sends the bearer header and applies the 401 rule.
  const blob = await apiBlob(path, { query, signal });
  const parsed: unknown = JSON.parse((await blob.text()) || '[]');
  return Array.isArray(parsed) ? (parsed as DicomJson[]) : [];
}

/**
 * The series' instances the caller may see, through QIDO-RS (GET …/series/{series}/instances, paged),
 * in stack order (`docs/product.md` › Stack viewer).
 */
export async function fetchSeriesInstances(study: string, series: string, signal?: AbortSignal) {
  const found: SeriesInstance[] = [];
  for (let offset = 0; ; offset += QIDO_PAGE) {
    const page = await dicomJson(
      `${seriesPath(study, series)}/instances`,
      { includefield: STACK_INCLUDE_FIELDS.join(','), limit: QIDO_PAGE, offset },
      signal,
    );
    for (const json of page) {
      const instance = instanceOf(json);
      if (instance) found.push(instance);
    }
    if (page.length < QIDO_PAGE) break;
  }
  return sortInstances(found);
}

/** WADO-RS series metadata: one DICOM JSON data set per instance (bulk data left out), keyed by SOP Instance UID. */
export async function fetchSeriesMetadata(study: string, series: string, signal?: AbortSignal) {
  const list = await dicomJson(`${seriesPath(study, series)}/metadata`, {}, signal);
  const bySop = new Map<string, DicomJson>();
  for (const json of list) {
    const sop = json['00080018']?.Value?.[0];
    if (typeof sop === 'string') bySop.set(sop, json);
  }
  return bySop;
}

/** The WADO-RS frame a stack image is read from (the engine's loader adds the bearer header). */
export function frameUrl(study: string, series: string, sop: string, frame: number): string {
  return `${seriesPath(study, series)}/instances/${encodeURIComponent(sop)}/frames/${frame}`;
}

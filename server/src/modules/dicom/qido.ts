import { LIST_MAX_WINDOW, type QidoQuery } from '@medshare/contracts';
import type { ImageRow } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { DicomEngine } from './dicom-engine.ts';
import type { DicomJson, JsonAttribute } from './dicom-json.ts';
import type { DicomRepository, InstanceFilter } from './dicom.repository.ts';
import { type DicomwebAccess, UID } from './dicomweb-access.ts';
import { MAX_QIDO_ANSWER_BYTES, QidoWarnings, WadoMessages } from './dicomweb-limits.ts';
import {
  type QidoLevel,
  includeFields,
  qidoResult,
  returnsPhi,
  studyDateRange,
  textFiltersOf,
  textMatcher,
  unmatchedKeys,
} from './qido-fields.ts';
import type { StoredDicom } from './stored-dicom.ts';

/** A matching key's value, or undefined for universal matching: empty, or `*` alone (PS3.4 C.2.2.2.3–4). */
const universalOrValue = (value: string) => (value === '' || value === '*' ? undefined : value);
const da = (iso: string | null) => (iso ? iso.replace(/-/g, '') : null);
const attr = (vr: string, value: unknown): JsonAttribute =>
  value === null || value === undefined || value === ''
    ? { vr }
    : { vr, Value: Array.isArray(value) ? value : [value] };

interface Deps {
  repo: DicomRepository;
  engine: DicomEngine;
  audit: AuditService;
  stored: StoredDicom;
  access: DicomwebAccess;
  /** The DICOMweb base URL results link to (RetrieveURL). */
  base: string;
}

/** QIDO-RS (PS3.18 §10.6) over the instances the caller may see. */
export function createQido({ repo, engine, audit, stored, access, base }: Deps) {
  const { viewerOf, auditEach } = access;
  const { dataSetsOf } = stored;

  /**
   * The filter of a QIDO query: a UID that is not a UID matches nothing rather than erroring.
   * ModalitiesInStudy (`CT` or a list, `CT\MR`) selects studies that have one of them; the studies'
   * modalities and counts still cover all their instances.
   */
  function filterOf(query: QidoQuery, path: { study?: string; series?: string }): InstanceFilter | null {
    const key = (keyword: string, tag: string) => {
      const value = query[keyword] ?? query[tag];
      return typeof value === 'string' ? universalOrValue(value) : undefined;
    };
    const studyUid = path.study ?? key('StudyInstanceUID', '0020000D');
    const seriesUid = path.series ?? key('SeriesInstanceUID', '0020000E');
    const sopUid = key('SOPInstanceUID', '00080018');
    for (const uid of [studyUid, seriesUid, sopUid]) if (uid !== undefined && !UID.test(uid)) return null;
    const patientId = key('PatientID', '00100020');
    const date = key('StudyDate', '00080020');
    const range = date ? studyDateRange(date) : null;
    if (date && !range)
      throw badRequest(WadoMessages.studyDate, [{ field: 'StudyDate', message: WadoMessages.studyDate }]);
    const inStudy = key('ModalitiesInStudy', '00080061')
      ?.split(/[\\,]/)
      .map((m) => m.trim())
      .filter(Boolean);
    return {
      studyUid,
      seriesUid,
      sopUid,
      modality: key('Modality', '00080060'),
      studyModalities: inStudy?.some((m) => m === '*') ? undefined : inStudy,
      patientKey: patientId === undefined ? undefined : (engine.patientKeyOf(patientId) ?? undefined),
      studyDateFrom: range?.from,
      studyDateTo: range?.to,
    };
  }

  const studyUrl = (s: string) => `${base}/studies/${s}`;
  const seriesUrl = (s: string, se: string) => `${studyUrl(s)}/series/${se}`;
  const instanceUrl = (s: string, se: string, i: string) => `${seriesUrl(s, se)}/instances/${i}`;

  return {
    /**
     * QIDO-RS at study, series or instance level: the level's default attributes (patient and study
     * attributes from the stored metadata of one instance of each result) plus `includefield`.
     * Offset paging within the first LIST_MAX_WINDOW results. Audited (the query's values are not recorded).
     */
    async search(
      actor: Actor,
      level: QidoLevel,
      path: { study?: string; series?: string },
      query: QidoQuery,
    ): Promise<{ items: DicomJson[]; warnings: string[] }> {
      if (query.offset >= LIST_MAX_WINDOW)
        throw badRequest(WadoMessages.offset, [{ field: 'offset', message: `Must be below ${LIST_MAX_WINDOW}` }]);
      const fields = await includeFields(query.includefield);
      const filter = filterOf(query, path);
      const texts = textFiltersOf(query);
      const fuzzy = query.fuzzymatching?.toLowerCase() === 'true';
      const viewer = viewerOf(actor);
      const warnings: string[] = [];
      type Candidate = { sample: ImageRow | undefined; computed: DicomJson };
      /** One page of results at the level (samples looked up for studies and series). */
      const candidates = async (f: InstanceFilter, take: number, skip: number): Promise<Candidate[]> => {
        if (level === 'studies') {
          const found = await repo.studies(viewer, f, take, skip);
          const samples = new Map((await repo.byIds(found.map((r) => r.sample_id))).map((r) => [r.id, r]));
          return found.map((r) => ({
            sample: samples.get(r.sample_id),
            computed: {
              '00080020': attr('DA', da(r.study_date)),
              '00080061': attr('CS', r.modalities.length ? r.modalities : null),
              '00081190': attr('UR', studyUrl(r.study_uid!)),
              '0020000D': attr('UI', r.study_uid),
              '00201206': attr('IS', r.series),
              '00201208': attr('IS', r.instances),
            },
          }));
        }
        if (level === 'series') {
          const found = await repo.series(viewer, f, take, skip);
          const samples = new Map((await repo.byIds(found.map((r) => r.sample_id))).map((r) => [r.id, r]));
          return found.map((r) => ({
            sample: samples.get(r.sample_id),
            computed: {
              '00080060': attr('CS', r.modality),
              '00081190': attr('UR', seriesUrl(r.study_uid!, r.series_uid!)),
              '00180015': attr('CS', r.body_part),
              '0020000D': attr('UI', r.study_uid),
              '0020000E': attr('UI', r.series_uid),
              '00201209': attr('IS', r.instances),
            },
          }));
        }
        const found = await repo.instances(viewer, f, take, skip);
        return found.map((r) => ({
          sample: r,
          computed: {
            '00080016': attr('UI', r.dicom_sop_class_uid),
            '00080018': attr('UI', r.dicom_sop_instance_uid),
            '00080060': attr('CS', r.dicom_modality),
            '00081190': attr('UR', instanceUrl(r.dicom_study_uid!, r.dicom_series_uid!, r.dicom_sop_instance_uid!)),
            '00083002': attr('UI', r.dicom_transfer_syntax),
            '0020000D': attr('UI', r.dicom_study_uid),
            '0020000E': attr('UI', r.dicom_series_uid),
            '00280008': attr('IS', r.dicom_frames),
            '00280010': attr('US', r.dicom_rows),
            '00280011': attr('US', r.dicom_columns),
            '00280100': attr('US', r.dicom_bits_allocated),
          },
        }));
      };
      /** Each candidate with its sample's data set, read one at a time (dataSetsOf). */
      async function* withJson(rows: Candidate[]): AsyncGenerator<[Candidate, DicomJson | null]> {
        const sets = dataSetsOf(
          rows.flatMap((r) => (r.sample ? [r.sample] : [])),
          actor.userId,
          'null',
        );
        try {
          for (const row of rows) yield [row, row.sample ? ((await sets.next()).value ?? null) : null];
        } finally {
          await sets.return(null); // a page that ends early leaves the rest unread
        }
      }
      const page: Array<{ item: DicomJson; sample: ImageRow | undefined }> = [];
      let pageBytes = 0;
      /** Adds a result unless the answer would pass MAX_QIDO_ANSWER_BYTES (the first always goes in). */
      const add = (row: Candidate, json: DicomJson | null): boolean => {
        const item = qidoResult(level, json, fields.tags, row.computed);
        const bytes = Buffer.byteLength(JSON.stringify(item));
        if (page.length && pageBytes + bytes > MAX_QIDO_ANSWER_BYTES) return false;
        pageBytes += bytes;
        page.push({ item, sample: row.sample });
        return true;
      };
      if (filter) {
        let more = false;
        if (!texts.length) {
          // One row more than asked tells whether more results follow (PS3.18 §10.6.3.3.1 warning).
          const rows = await candidates(filter, query.limit + 1, query.offset);
          more = rows.length > query.limit;
          for await (const [row, json] of withJson(rows.slice(0, query.limit)))
            if (!add(row, json)) {
              more = true;
              break;
            }
        } else {
          // Names, accession numbers and descriptions are sealed PHI, never in columns: the caller's
          // candidates (at most the list window) are matched on their stored metadata, one data set
          // at a time, keeping only the page's results.
          const all = await candidates(filter, LIST_MAX_WINDOW + 1, 0);
          if (all.length > LIST_MAX_WINDOW) throw badRequest(WadoMessages.tooBroad);
          const matches = textMatcher(texts, fuzzy);
          let matched = 0;
          for await (const [row, json] of withJson(all)) {
            if (!matches(json)) continue;
            if (matched >= query.offset + query.limit || (matched >= query.offset && !add(row, json))) {
              more = true;
              break;
            }
            matched++;
          }
        }
        if (more) warnings.push(QidoWarnings.more);
      }
      const ignored = await unmatchedKeys(query);
      if (ignored.length) warnings.push(QidoWarnings.notMatched(ignored));
      if (fields.unknown) warnings.push(QidoWarnings.unknownFields);
      await audit.record({
        userId: actor.userId,
        action: 'dicomweb.query',
        table: 'images',
        recordId: null,
        ip: actor.ip,
        reason: `level=${level} results=${page.length}`,
      });
      // Results that carry PHI from stored data sets: one row per instance whose data set gave them.
      if (returnsPhi(level, fields.tags))
        await auditEach(
          actor,
          'dicomweb.query',
          page.flatMap((r) => (r.sample ? [r.sample] : [])),
          () => `level=${level} result`,
        );
      return { items: page.map((r) => r.item), warnings };
    },
  };
}

import {
  ImagePaths,
  LIST_MAX_WINDOW,
  type ListStudiesQuery,
  type Pagination,
  type StudyDetail,
  StudyMessages,
  type StudySeries,
  type StudyShare,
  type StudyShareBody,
  type StudySummary,
} from '@medshare/contracts';
import type { Logger } from 'pino';
import type { Db } from '../../db/db.ts';
import { conflict, forbidden, loggedMessage, notFound, tooLarge } from '../../errors.ts';
import { assertInWindow, windowedPagination } from '../../http/list-window.ts';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { DicomJson } from '../dicom/dicom-json.ts';
import { METADATA_PURPOSE, unpackMetadata } from '../dicom/dicom-metadata.ts';
import { spansPatients } from '../images/study-instance.ts';
import type { SharingService } from '../sharing/sharing.service.ts';
import { cardAccess, presentStudy } from './study-presenter.ts';
import { type StudyEntry, type StudyViewer, createStudiesRepository } from './studies.repository.ts';

interface Deps {
  db: Db;
  /** Opens the sealed DICOM metadata (descriptions, series and instance numbers are inside it). */
  store: Pick<EncryptedStore, 'openValue'>;
  audit: AuditService;
  sharing: SharingService;
  log: Logger;
  /** Cards of a list reachable by offset paging and counted (LIST_MAX_WINDOW; smaller in tests). */
  listWindow?: number;
}

/** The most instances one study page lists (a study of the size has up to 2 000). */
export const MAX_STUDY_INSTANCES = 5_000;
/**
 * The most images one study share covers (413 above it): as many as one WADO-RS retrieve serves
 * (dicomweb-limits.ts MAX_RETRIEVE_INSTANCES), so that a recipient can always fetch the whole share.
 */
export const MAX_SHARED_STUDY_INSTANCES = 10_000;
/**
 * The most images a de-identified study share covers: each is a fresh copy made while the request
 * waits (about 7 ms of worker time each, two at a time) and held until they commit together.
 */
export const MAX_DEIDENTIFIED_STUDY_INSTANCES = MAX_STUDY_INSTANCES;
/** The most cards of one study the study page reads to find the viewer's own or verified one. */
const MAX_STUDY_CARDS = 100;
/** Sealed metadata is opened this many instances at a time, so a large study is never held whole. */
const METADATA_BATCH = 500;

/** What the study page reads from an instance's sealed metadata (never stored in a column: free text). */
interface InstanceAttributes {
  studyDescription: string | null;
  seriesDescription: string | null;
  seriesNumber: number | null;
  instanceNumber: number | null;
}

const text = (json: DicomJson, tag: string): string | null => {
  const v = json[tag]?.Value?.[0];
  return typeof v === 'string' && v.trim() ? v.trim() : null;
};
const integer = (json: DicomJson, tag: string): number | null => {
  const v = json[tag]?.Value?.[0];
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v.trim()) : Number.NaN;
  return Number.isSafeInteger(n) ? n : null;
};
const byNumberThenUid = (a: { n: number | null; uid: string }, b: { n: number | null; uid: string }) =>
  (a.n ?? Number.MAX_SAFE_INTEGER) - (b.n ?? Number.MAX_SAFE_INTEGER) || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);

/**
 * Studies (`docs/architecture.md` › Studies and DICOMweb): the DICOM images with one Study Instance
 * UID that the caller may see, as cards, as a page of series, and shared whole under one code (the
 * sharing module keeps the code and the mail).
 */
export function createStudiesService({ db, store, audit, sharing, log, listWindow = LIST_MAX_WINDOW }: Deps) {
  const repo = createStudiesRepository(db);
  const viewerOf = (actor: Actor): StudyViewer => ({
    userId: actor.userId,
    all: actor.permissions.has('image:view_all'),
  });

  function attributesOf(
    image: { id: string; wrapped_key: string; key_id: string },
    sealed: Uint8Array | undefined,
  ): InstanceAttributes | null {
    if (!sealed) return null;
    try {
      const { json } = unpackMetadata(
        store.openValue({ wrappedKey: image.wrapped_key, keyId: image.key_id }, METADATA_PURPOSE, image.id, sealed),
      );
      return {
        studyDescription: text(json, '00081030'),
        seriesDescription: text(json, '0008103E'),
        seriesNumber: integer(json, '00200011'),
        instanceNumber: integer(json, '00200013'),
      };
    } catch (err) {
      // A card or a page without descriptions is still right; the file itself answers its own reads.
      log.warn({ imageId: image.id, problem: loggedMessage(err) }, 'DICOM metadata of a study instance cannot be read');
      return null;
    }
  }

  /** The cards of these entries, in their order. */
  async function cards(actor: Actor, entries: StudyEntry[]): Promise<StudySummary[]> {
    const viewer = viewerOf(actor);
    const [own, shared] = await Promise.all([
      repo.ownAggregates(
        viewer,
        entries.filter((e) => e.via === null).map((e) => e.study_uid),
      ),
      repo.sharedAggregates(
        actor.userId,
        entries.flatMap((e) => (e.via === null ? [] : [e.via])),
      ),
    ]);
    const aggregate = new Map([...own, ...shared].map((a) => [a.key, a]));
    const [newest, shares, groups] = await Promise.all([
      repo.newestImages([...aggregate.values()].map((a) => a.newest_id)),
      repo.sharesWithCreator(shared.flatMap((a) => (a.group_id === null && a.share_id ? [a.share_id] : []))),
      repo.groupsWithCreator([...new Set(shared.flatMap((a) => (a.group_id ? [a.group_id] : [])))]),
    ]);
    const newestById = new Map(newest.map((n) => [n.id, n]));
    const shareById = new Map(shares.map((s) => [s.id, s]));
    const groupById = new Map(groups.map((g) => [g.id, g]));
    const rows = entries.flatMap((entry) => {
      const agg = aggregate.get(entry.via ?? entry.study_uid);
      const image = agg && newestById.get(agg.newest_id);
      return agg && image ? [{ entry, agg, image, access: cardAccess(entry, agg, shareById, groupById) }] : [];
    });
    // The Study Description is sealed with the files: opened only for cards whose content the viewer sees.
    const sealed = await repo.sealedMetadata(rows.filter((r) => r.access.content).map((r) => r.image.id));
    return rows.map(({ entry, agg, image, access }) =>
      presentStudy(
        entry,
        agg,
        image,
        access,
        access.content ? (attributesOf(image, sealed.get(image.id))?.studyDescription ?? null) : null,
      ),
    );
  }

  /**
   * The study's images the actor may share (at most `max` + 1, so that a caller can tell there are
   * more), or the refusal: 403 when they see it only through a share, else 404.
   */
  async function manageable(actor: Actor, studyUid: string, max: number) {
    const viewer = viewerOf(actor);
    const rows = await repo.manageableImages(viewer, studyUid, max + 1);
    if (rows.length) return rows;
    if ((await repo.entriesOfStudy(viewer, studyUid, 1)).length)
      throw forbidden('Only the uploader or an administrator can share this study');
    throw notFound(StudyMessages.notFound);
  }

  return {
    /** One card per study (and per share that brought one), newest first; audited like the image lists. */
    async list(actor: Actor, query: ListStudiesQuery): Promise<{ items: StudySummary[]; pagination: Pagination }> {
      const offset = (query.page - 1) * query.limit;
      assertInWindow(offset, 'studies', 'older studies stay reachable by their UID', listWindow);
      const { entries, total } = await repo.listEntries(viewerOf(actor), query.limit, offset, listWindow + 1);
      const items = await cards(actor, entries);
      // A page names patients and sharers beside captions: a read of other people's data.
      await audit.record({
        userId: actor.userId,
        action: 'studies.list.read',
        table: 'images',
        recordId: null,
        ip: actor.ip,
        reason: `page=${query.page} listed=${items.length}`,
      });
      return { items, pagination: windowedPagination(query.page, query.limit, total, listWindow) };
    },

    /**
     * The study page: every instance whose content the caller may see, by series (sorted by Series
     * Number, instances by Instance Number). 404 when there is none. Audited.
     */
    async study(actor: Actor, studyUid: string): Promise<StudyDetail> {
      const viewer = viewerOf(actor);
      const [entries, instances] = await Promise.all([
        repo.entriesOfStudy(viewer, studyUid, MAX_STUDY_CARDS),
        repo.visibleInstances(viewer, studyUid, MAX_STUDY_INSTANCES),
      ]);
      const summaries = instances.length ? await cards(actor, entries) : [];
      const primary =
        summaries.find((s) => s.accessState === 'owner') ?? summaries.find((s) => s.accessState === 'verified');
      if (!primary) {
        await audit.recordQuietly({
          userId: actor.userId,
          action: 'study.read',
          table: 'images',
          recordId: null,
          ip: actor.ip,
          status: 'failure',
          reason: 'not visible',
        });
        throw notFound(StudyMessages.notFound);
      }
      const attributes = new Map<string, InstanceAttributes | null>();
      for (let i = 0; i < instances.length; i += METADATA_BATCH) {
        const batch = instances.slice(i, i + METADATA_BATCH);
        const sealed = await repo.sealedMetadata(batch.map((b) => b.id));
        for (const instance of batch) attributes.set(instance.id, attributesOf(instance, sealed.get(instance.id)));
      }
      const bySeries = new Map<string, typeof instances>();
      for (const instance of instances) {
        const list = bySeries.get(instance.series_uid) ?? [];
        list.push(instance);
        bySeries.set(instance.series_uid, list);
      }
      const series: StudySeries[] = [...bySeries.entries()].map(([seriesUid, list]) => {
        const sorted = list
          .map((i) => ({ i, n: attributes.get(i.id)?.instanceNumber ?? null, uid: i.sop_uid }))
          .sort(byNumberThenUid);
        const withThumb = sorted.filter(({ i }) => i.thumbnail_status === 'ready');
        // The middle slice shows what a series is better than its first (often a scout's edge).
        const thumb = withThumb[Math.floor(withThumb.length / 2)]?.i;
        const described = sorted.map(({ i }) => attributes.get(i.id)).find((a) => a);
        return {
          seriesUid,
          modality: sorted.find(({ i }) => i.modality)?.i.modality ?? null,
          description: described?.seriesDescription ?? null,
          number: described?.seriesNumber ?? null,
          instanceCount: sorted.length,
          thumbnailUrl: thumb ? ImagePaths.thumbnail(thumb.id) : null,
          instances: sorted.map(({ i, n }) => ({
            imageId: i.id,
            sopInstanceUid: i.sop_uid,
            instanceNumber: n,
            frames: i.frames,
          })),
        };
      });
      series.sort((a, b) => byNumberThenUid({ n: a.number, uid: a.seriesUid }, { n: b.number, uid: b.seriesUid }));
      const studyDescription =
        primary.description ?? instances.map((i) => attributes.get(i.id)?.studyDescription).find((d) => d) ?? null;
      await audit.record({
        userId: actor.userId,
        action: 'study.read',
        table: 'images',
        recordId: series[0]?.instances[0]?.imageId ?? null,
        ip: actor.ip,
        reason: `series=${series.length} instances=${instances.length}`,
      });
      return {
        ...primary,
        studyUid,
        description: studyDescription,
        seriesCount: series.length,
        instanceCount: instances.length,
        series,
      };
    },

    /** Shares every image of the study the actor manages under one sharing id and one code. */
    async share(actor: Actor, studyUid: string, body: StudyShareBody): Promise<StudyShare> {
      if (!actor.permissions.has('image:share')) throw forbidden();
      const max = body.deidentify ? MAX_DEIDENTIFIED_STUDY_INSTANCES : MAX_SHARED_STUDY_INSTANCES;
      const rows = await manageable(actor, studyUid, max);
      if (rows.length > max) throw tooLarge(StudyMessages.tooManyInstances(max, Boolean(body.deidentify)));
      // One study share, one patient's images (study-instance.ts › spansPatients).
      if (spansPatients(rows)) throw conflict(StudyMessages.severalPatients);
      return sharing.shareStudy(
        actor,
        {
          studyUid,
          caption: rows[0]!.caption,
          images: rows.map((r) => ({
            id: r.id,
            uploaderId: r.uploader_id,
            patientId: r.patient_id,
            seriesUid: r.dicom_series_uid!,
            sopUid: r.dicom_sop_instance_uid!,
            modality: r.dicom_modality,
          })),
        },
        body,
      );
    },

    /** The study shares of a study the actor manages; never codes. Audited. */
    async shares(actor: Actor, studyUid: string): Promise<StudyShare[]> {
      await manageable(actor, studyUid, 0);
      const shares = await sharing.listStudyShares(actor, studyUid);
      await audit.record({
        userId: actor.userId,
        action: 'share.list.read',
        table: 'share_groups',
        recordId: null,
        ip: actor.ip,
        reason: `study shares listed=${shares.length}`,
      });
      return shares;
    },

    /** Ends a study share: every instance closes at once. */
    revokeShare: (actor: Actor, studyUid: string, id: string): Promise<StudyShare> =>
      sharing.revokeStudyShare(actor, studyUid, id),
  };
}
export type StudiesService = ReturnType<typeof createStudiesService>;

import type { AuditAction } from '@medshare/contracts';
import type { ImageRow } from '../../db/schema.ts';
import { notFound, tooLarge } from '../../errors.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { DicomRepository, Viewer } from './dicom.repository.ts';
import { MAX_RETRIEVE_INSTANCES, WadoMessages } from './dicomweb-limits.ts';

/** Which study, series or instance a WADO-RS request names. */
export interface Target {
  study: string;
  series?: string | undefined;
  instance?: string | undefined;
}
export const levelOf = (t: Target) => (t.instance ? 'instance' : t.series ? 'series' : 'study');

export const UID = /^[0-9]+(\.[0-9]+)*$/;

/**
 * Which instances a DICOMweb caller sees (the repository's viewer filter), the 404s that are audited
 * as failures, and the audit row per instance served.
 */
export function createDicomwebAccess({ repo, audit }: { repo: DicomRepository; audit: AuditService }) {
  const viewerOf = (actor: Actor): Viewer => ({ userId: actor.userId, all: actor.permissions.has('image:view_all') });

  /** A 404 for what the caller does not see (or that is not there), audited as a failed `action`. */
  async function notVisible(actor: Actor, action: AuditAction, message: string): Promise<never> {
    await audit.recordQuietly({
      userId: actor.userId,
      action,
      table: 'images',
      recordId: null,
      ip: actor.ip,
      status: 'failure',
      reason: 'not visible',
    });
    throw notFound(message);
  }

  async function findInstance(actor: Actor, study: string, series: string, sop: string, action: AuditAction) {
    const found =
      UID.test(study) && UID.test(series) && UID.test(sop)
        ? await repo.instance(viewerOf(actor), { studyUid: study, seriesUid: series, sopUid: sop })
        : undefined;
    return found ?? notVisible(actor, action, 'Instance not found');
  }

  /**
   * The visible instances a WADO-RS request names (one for an instance), newest upload of each SOP
   * instance UID; 404 (audited as a failed `action`) when the caller sees none.
   */
  async function visibleInstances(actor: Actor, target: Target, action: AuditAction): Promise<ImageRow[]> {
    if (target.instance) return [await findInstance(actor, target.study, target.series ?? '', target.instance, action)];
    const valid = UID.test(target.study) && (target.series === undefined || UID.test(target.series));
    const rows = valid
      ? await repo.retrievable(
          viewerOf(actor),
          { studyUid: target.study, seriesUid: target.series },
          MAX_RETRIEVE_INSTANCES + 1,
        )
      : [];
    if (!rows.length) return notVisible(actor, action, target.series ? 'Series not found' : 'Study not found');
    if (rows.length > MAX_RETRIEVE_INSTANCES) throw tooLarge(WadoMessages.tooManyInstances);
    return rows;
  }

  /** One audit row per image served; concurrent appends go in batches (audit.service batchedAppender). */
  async function auditEach(actor: Actor, action: AuditAction, rows: ImageRow[], reason: (row: ImageRow) => string) {
    await Promise.all(
      rows.map((row) =>
        audit.record({
          userId: actor.userId,
          action,
          table: 'images',
          recordId: row.id,
          ip: actor.ip,
          reason: reason(row),
        }),
      ),
    );
  }

  return { viewerOf, findInstance, visibleInstances, auditEach };
}
export type DicomwebAccess = ReturnType<typeof createDicomwebAccess>;

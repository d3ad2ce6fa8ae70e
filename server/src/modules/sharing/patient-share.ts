import { type RawBuilder, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/db.ts';
import { errorMessage, isUniqueViolation } from '../../errors.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { imageSharedMail, studySharedMail } from '../../mail/templates.ts';
import type { AuditEvent } from '../audit/audit.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { GROUP_MEMBER_CODE } from './share-state.ts';
import { createSharingRepository } from './sharing.repository.ts';

/** What an upload for a patient hands over: the image about to be inserted and the patient's code hash. */
export interface PatientShareInput {
  uploaderId: string;
  patientId: string;
  imageId: string;
  /** The Study Instance UID of a DICOM instance of a study; null for a file with a share of its own. */
  studyUid: string | null;
  /**
   * The patient's code hash, asked for only when this upload opens a share (argon2, ~20 ms of CPU): an
   * instance joining an open study share has no code of its own (`docs/architecture.md` › Sharing).
   */
  codeHash: () => Promise<string>;
  ip: string | null;
  /** Read the open study share from the database, not from what this process remembers (a retry). */
  fresh?: boolean;
}

/** An uploader's images of one study for one patient: the key of the patient's study share. */
export interface StudyOfPatient {
  uploaderId: string;
  patientId: string;
  studyUid: string;
}

/** SQL the upload's one statement runs to write the patient's share with the image (audit.inStatement's pattern). */
export interface ShareCtes {
  /** CTEs that must come first, before the audit CTEs (the joined study share's lock, an opened one's insert). */
  lead: RawBuilder<unknown> | null;
  /** CTEs that write the share rows; they follow the image's own insert. */
  ctes: RawBuilder<unknown>;
  /** Read by the statement's query: fails it whole when the study share it joins closed meanwhile. */
  applied: RawBuilder<boolean>;
}

/** The patient's share of one upload: a share of its own, a study share it opens, or an open one it joins. */
export interface PatientSharePlan extends ShareCtes {
  /** The id the patient is mailed (the study share's for an image of a study). */
  sharingId: string;
  /** What this upload mails: an image share's code, a study share's code, or nothing (it joins one). */
  opens: 'image' | 'study' | null;
  /** The audit rows of the share (share.create), appended with the upload's. */
  events: AuditEvent[];
  /** The audit rows are appended only if this holds (the joined study share is still open). */
  auditWhen: RawBuilder<boolean> | undefined;
  /** The joined study share, whose row `lead` locks: locked first in a group commit as well. */
  lockFirst: string | null;
}

/** The statement's own failure when the joined study share was revoked or locked after it was read. */
const CLOSED = 'patient study share closed: ';
/** How many uploader, patient and study keys the open study share is remembered for (the oldest forgotten first). */
const REMEMBERED_GROUPS = 10_000;

/**
 * The patient's own share of an upload (`docs/architecture.md` › Sharing), for the upload pipeline:
 * which share an image uploaded for a patient gets and what its mail says, kept in the sharing
 * module beside the other share rules (codes, study shares, mails).
 *
 * A DICOM instance of a study joins the patient's open study share of that study. The join does not
 * copy the state it read: the insert reads the study share's row again, under a share lock, and takes
 * its verification and lock from there. A revoke, verify or lock takes that row's update lock first
 * (sharing.repository.ts), so either it waits for the joining row and then updates it too, or the
 * join waits for it and sees its outcome: a study share revoked (or locked) meanwhile fails the
 * statement whole, and the upload plans again (`retryable`), opening a new share.
 */
export function createPatientShares({
  db,
  mailer,
  settings,
  publicUrl,
}: {
  db: Db;
  mailer: Mailer;
  settings: SettingsService;
  publicUrl: string;
}) {
  const repo = createSharingRepository(db);
  /**
   * The open patient study share of each uploader, patient and study, as this process last saw it
   * committed or read it: the next instance joins it without reading it first, and once it is known
   * the study's uploads no longer wait for one another
   * (`docs/decisions.md` › Ingest of a study: what waits for what). Nothing is taken on trust: the
   * join's statement reads the row again under its share lock, and one revoked or locked meanwhile
   * fails it (`retryable`); the retry reads afresh.
   */
  const openGroups = new Map<string, string>();
  const keyOf = (s: StudyOfPatient) => `${s.uploaderId}|${s.patientId}|${s.studyUid}`;
  const remember = (key: string, groupId: string) => {
    openGroups.delete(key);
    openGroups.set(key, groupId);
    if (openGroups.size > REMEMBERED_GROUPS) openGroups.delete(openGroups.keys().next().value!);
  };

  return {
    /** Whether this process has seen the patient's study share of this study open (it may have closed since). */
    knownOpen: (study: StudyOfPatient): boolean => openGroups.has(keyOf(study)),

    /** An upload's statement committed with this plan: its study share is open. */
    committed(study: StudyOfPatient, plan: PatientSharePlan): void {
      if (plan.opens !== 'image') remember(keyOf(study), plan.sharingId);
    },

    async plan(input: PatientShareInput): Promise<PatientSharePlan> {
      const { uploaderId, patientId, imageId, studyUid, codeHash, ip } = input;
      const shareId = randomUUID();
      const created = (table: string, recordId: string, reason: string): AuditEvent => ({
        userId: uploaderId,
        action: 'share.create',
        table,
        recordId,
        ip,
        reason,
      });
      const row = (groupId: string | null, hash: string) => ({
        id: shareId,
        image_id: imageId,
        created_by: uploaderId,
        created_for: patientId,
        // An image of a study share has no code of its own: the study share's opens it.
        code_hash: groupId ? GROUP_MEMBER_CODE : hash,
        expires_at: null,
        is_patient_share: true,
        group_id: groupId,
      });
      if (!studyUid)
        return {
          sharingId: shareId,
          opens: 'image',
          lead: null,
          ctes: sql`patient_share AS (${db.insertInto('shares').values(row(null, await codeHash()))})`,
          applied: sql<boolean>`true`,
          events: [created('shares', shareId, `image=${imageId} patient share`)],
          auditWhen: undefined,
          lockFirst: null,
        };
      const key = keyOf({ uploaderId, patientId, studyUid });
      const known = input.fresh ? undefined : openGroups.get(key);
      const open = known ? { id: known } : await repo.openPatientGroup(uploaderId, patientId, studyUid);
      if (!open) {
        // Remembered once its row has committed (`committed`), not before: a join planned meanwhile would fail.
        openGroups.delete(key);
        const groupId = randomUUID();
        const group = {
          id: groupId,
          study_uid: studyUid,
          created_by: uploaderId,
          created_for: patientId,
          code_hash: await codeHash(),
          expires_at: null,
          is_patient_share: true,
        };
        return {
          sharingId: groupId,
          opens: 'study',
          // Inserted before the audit head is taken (auditWhen reads it): a study share of the same
          // key being made meanwhile makes this insert wait for it, and it must not wait holding the
          // head that the other then needs.
          lead: sql`patient_group AS (${db.insertInto('share_groups').values(group).returning('id')})`,
          ctes: sql`patient_share AS (${db.insertInto('shares').values(row(groupId, GROUP_MEMBER_CODE))})`,
          applied: sql<boolean>`true`,
          events: [
            created('share_groups', groupId, `patient study share image=${imageId}`),
            created('shares', shareId, `image=${imageId} patient share study share=${groupId}`),
          ],
          auditWhen: sql<boolean>`EXISTS (SELECT 1 FROM patient_group)`,
          lockFirst: null,
        };
      }
      remember(key, open.id);
      const member = row(open.id, GROUP_MEMBER_CODE);
      return {
        sharingId: open.id,
        opens: null,
        // Locked before the audit head (auditWhen reads it), in the order revoke takes them: no deadlock.
        lead: sql`patient_group AS (SELECT id, verified_at, locked_at FROM share_groups
          WHERE id = ${open.id}::uuid AND revoked_at IS NULL AND (locked_at IS NULL OR verified_at IS NOT NULL)
          FOR SHARE)`,
        ctes: sql`patient_share AS (INSERT INTO shares
            (id, image_id, created_by, created_for, code_hash, expires_at, is_patient_share, group_id, verified_at, locked_at)
          SELECT ${member.id}::uuid, ${member.image_id}::uuid, ${member.created_by}::uuid, ${member.created_for}::uuid,
            ${member.code_hash}, NULL, true, g.id, g.verified_at, g.locked_at
          FROM patient_group g
          RETURNING id)`,
        // Not a constant expression, so that the planner does not fold the failing branch ahead of time.
        applied: sql<boolean>`(SELECT CASE WHEN count(*) = 1 THEN true
          ELSE (${CLOSED} || count(*))::int::boolean END FROM patient_share)`,
        events: [created('shares', shareId, `image=${imageId} patient share study share=${open.id}`)],
        auditWhen: sql<boolean>`EXISTS (SELECT 1 FROM patient_group)`,
        lockFirst: open.id,
      };
    },

    /**
     * The upload's statement failed for a reason a new plan resolves: another server opened the
     * patient's study share first (join it), or the one it joined was revoked or locked (open another).
     */
    retryable: (plan: PatientSharePlan, err: unknown): boolean =>
      (plan.opens === 'study' && isUniqueViolation(err)) || (plan.opens === null && errorMessage(err).includes(CLOSED)),

    /** Mails the code of the share this upload opened (none when it joined an open study share). */
    async mail(
      plan: PatientSharePlan,
      m: {
        to: { email: string; firstname: string };
        sharedBy: string;
        code: string;
        caption: string;
        modality: string | null;
      },
    ): Promise<void> {
      if (!plan.opens) return;
      const { displayLocale, displayTimeZone } = await settings.effective();
      const common = {
        recipientName: m.to.firstname,
        sharedBy: m.sharedBy,
        caption: m.caption,
        sharingId: plan.sharingId,
        code: m.code,
        expiresAt: null,
        display: { locale: displayLocale, timeZone: displayTimeZone },
        publicUrl,
      };
      const mail =
        plan.opens === 'study'
          ? studySharedMail({
              ...common,
              study: { modalities: m.modality ? [m.modality] : [], deidentified: false },
            })
          : imageSharedMail(common);
      await mailer.send({ to: m.to.email, ...mail, devCode: m.code });
    },
  };
}
export type PatientShares = ReturnType<typeof createPatientShares>;

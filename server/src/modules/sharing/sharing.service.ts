import {
  type AuditAction,
  type Share,
  type StudyShare,
  type StudyShareBody,
  StudyMessages,
  type ShareRequestBody,
  type ShareVerifyBody,
  type ShareVerifyResponseData,
  SharingMessages,
} from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type PasswordHasher, generateCode } from '../../crypto/passwords.ts';
import type { Db } from '../../db/db.ts';
import { badRequest, conflict, forbidden, isUniqueViolation, notFound, tooManyRequests } from '../../errors.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { imageSharedMail, studySharedMail } from '../../mail/templates.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { StudyCopies } from '../dicom/study-copies.ts';
import type { AccessEnded } from '../images/content-access.ts';
import type { ImagesService } from '../images/images.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { MAX_SHARE_ATTEMPTS, isLive, shareState } from './share-state.ts';
import {
  type GroupCounts,
  type ShareGroupWithPeople,
  type ShareWithPeople,
  createSharingRepository,
} from './sharing.repository.ts';

interface Deps {
  db: Db;
  images: ImagesService;
  hasher: PasswordHasher;
  mailer: Mailer;
  audit: AuditService;
  settings: SettingsService;
  log: Logger;
  publicUrl: string;
  /** DICOM module: the de-identified copy to share instead of the image (made on first use). */
  deidentify?: (actor: Actor, imageId: string) => Promise<{ id: string; uploaderId: string; patientId: string | null }>;
  /**
   * DICOM module (dicom/study-copies.ts): de-identified copies of a study's images, every UID mapped
   * under the share's id (so study and series UIDs agree across the copy), stored by this service's
   * transaction together with the share and every audit row.
   */
  studyCopies?: StudyCopies;
  /** A share ended (revoked): called after the commit; publishes the `access` event (images/content-access.ts). */
  onAccessEnded?: (ended: AccessEnded) => void;
}

/** The most study shares of one study its manager's list shows (newest first). */
export const MAX_LISTED_STUDY_SHARES = 200;

/** An image of a study, as the studies module hands it over for a study share (the actor manages it). */
export interface StudyImage {
  id: string;
  uploaderId: string;
  patientId: string | null;
  seriesUid: string;
  sopUid: string;
  modality: string | null;
}

/** Audit rows one statement appends inside a transaction (the audit module's batch bound). */
const AUDIT_CHUNK = 64;

function presentShare(s: ShareWithPeople): Share {
  return {
    id: s.id,
    imageId: s.image_id,
    recipient: {
      id: s.created_for,
      firstname: s.recipient_firstname,
      lastname: s.recipient_lastname,
      role: s.recipient_role,
    },
    createdBy: { id: s.created_by, firstname: s.creator_firstname, lastname: s.creator_lastname },
    state: shareState(s),
    isPatientShare: s.is_patient_share,
    studyShareId: s.group_id,
    expiresAt: s.expires_at?.toISOString() ?? null,
    verifiedAt: s.verified_at?.toISOString() ?? null,
    revokedAt: s.revoked_at?.toISOString() ?? null,
    createdAt: s.created_at.toISOString(),
  };
}

function presentGroup(g: ShareGroupWithPeople, counts: GroupCounts | undefined): StudyShare {
  return {
    id: g.id,
    studyUid: g.study_uid,
    recipient: {
      id: g.created_for,
      firstname: g.recipient_firstname,
      lastname: g.recipient_lastname,
      role: g.recipient_role,
    },
    createdBy: { id: g.created_by, firstname: g.creator_firstname, lastname: g.creator_lastname },
    state: shareState(g),
    deidentified: g.deidentified,
    isPatientShare: g.is_patient_share,
    seriesCount: counts?.series ?? 0,
    instanceCount: counts?.instances ?? 0,
    expiresAt: g.expires_at?.toISOString() ?? null,
    verifiedAt: g.verified_at?.toISOString() ?? null,
    revokedAt: g.revoked_at?.toISOString() ?? null,
    createdAt: g.created_at.toISOString(),
  };
}

/** Shares of images under a sharing id and a mailed 6-digit code (`docs/architecture.md` › Sharing). */
export function createSharingService({
  db,
  images,
  hasher,
  mailer,
  audit,
  settings,
  log,
  publicUrl,
  deidentify,
  studyCopies,
  onAccessEnded,
}: Deps) {
  const repo = createSharingRepository(db);
  /** Its callbacks may also append audit rows that commit with the change (`audit.transactor`). */
  const transaction = audit.transactor(db, (trx) => ({
    sharing: createSharingRepository(trx),
    copies: studyCopies?.on(trx) ?? null,
  }));

  /** Appends many audit rows inside a transaction, a bounded statement at a time. */
  async function auditIn(sharing: typeof repo, events: Parameters<AuditService['inStatement']>[0]) {
    for (let i = 0; i < events.length; i += AUDIT_CHUNK)
      await sharing.appendAudit(audit.inStatement(events.slice(i, i + AUDIT_CHUNK)));
  }

  /**
   * A study share's code (`docs/architecture.md` › Sharing): the same rules as an image share's
   * (recipient only, five tries, expiry), counted on the group; verifying or locking writes the
   * group and every instance row in one transaction.
   */
  /**
   * A verify whose share (`now`, read again) was revoked or expired while its code was checked: it is
   * answered, and its failure recorded, as for a share that had ended before its check.
   */
  async function endedMeanwhile(
    now: Parameters<typeof shareState>[0] | undefined,
    fail: (reason: string) => Promise<unknown>,
  ): Promise<never> {
    if (now && shareState(now) === 'expired') {
      await fail('expired meanwhile');
      throw badRequest(SharingMessages.expired);
    }
    await fail('revoked meanwhile');
    throw notFound(SharingMessages.notFound);
  }

  async function verifyGroup(actor: Actor, groupId: string, body: ShareVerifyBody): Promise<ShareVerifyResponseData> {
    const failGroup = (reason: string) =>
      audit.recordQuietly({
        userId: actor.userId,
        action: 'share.verify',
        table: 'share_groups',
        recordId: groupId,
        ip: actor.ip,
        status: 'failure',
        reason,
      });
    const group = await repo.getGroup(groupId);
    const counts = group ? (await repo.groupCounts([group.id])).get(group.id) : undefined;
    if (!group || group.created_for !== actor.userId || !counts?.sample_image_id) {
      await hasher.verify(null, body.verificationCode);
      await failGroup('not the recipient or no such share');
      throw notFound(SharingMessages.notFound);
    }
    const state = shareState(group);
    if (state === 'revoked') {
      await failGroup('revoked');
      throw notFound(SharingMessages.notFound);
    }
    if (state === 'expired') {
      await failGroup('expired');
      throw badRequest(SharingMessages.expired);
    }
    const lock = () => transaction.run(({ sharing }) => sharing.lockGroup(group.id, new Date()));
    if (state === 'locked') {
      await failGroup('locked');
      throw tooManyRequests(SharingMessages.locked);
    }
    const attempt = await repo.takeGroupAttempt(group.id);
    if (attempt === null) {
      await lock();
      await failGroup('locked');
      throw tooManyRequests(SharingMessages.locked);
    }
    if (!(await hasher.verify(group.code_hash, body.verificationCode))) {
      if (attempt >= MAX_SHARE_ATTEMPTS) {
        await lock();
        await failGroup('wrong code; locked');
        throw tooManyRequests(SharingMessages.locked);
      }
      await failGroup('wrong code');
      throw badRequest(SharingMessages.wrongCode, [
        { field: 'verificationCode', code: 'invalid_code', message: SharingMessages.wrongCode },
      ]);
    }
    const verifiedAt = await transaction.run(async ({ sharing, audit: auditInTx }) => {
      const at = await sharing.verifyGroup(group.id);
      if (!at) return null;
      await auditInTx([
        {
          userId: actor.userId,
          action: 'share.verify',
          table: 'share_groups',
          recordId: group.id,
          ip: actor.ip,
          reason: `study share instances=${counts.instances}`,
        },
      ]);
      return at;
    });
    if (!verifiedAt) return endedMeanwhile(await repo.getGroup(group.id), failGroup);
    return {
      sharingId: group.id,
      imageId: counts.sample_image_id,
      studyUid: counts.sample_study_uid,
      instanceCount: counts.instances,
      verifiedAt: verifiedAt.toISOString(),
      expiresAt: group.expires_at?.toISOString() ?? null,
    };
  }

  /** A study share the actor manages (an uploader of its images, or an admin); 404 / 403 like an image share. */
  async function groupToManage(actor: Actor, id: string) {
    const group = await repo.getGroup(id);
    const counts = group ? (await repo.groupCounts([group.id])).get(group.id) : undefined;
    if (!group) throw notFound(SharingMessages.notFound);
    const manages =
      group.created_by === actor.userId ||
      actor.permissions.has('image:view_all') ||
      (counts?.uploader_ids.includes(actor.userId) ?? false);
    if (!manages) {
      if (group.created_for === actor.userId) throw forbidden('Only the sender can revoke a share');
      throw notFound(SharingMessages.notFound);
    }
    return { group, counts };
  }

  /** Revokes a study share; one revoked already is left as it is and not recorded again. */
  async function revokeGroup(actor: Actor, group: ShareGroupWithPeople): Promise<void> {
    const revoked = await transaction.run(async ({ sharing }) => {
      if (!(await sharing.revokeGroup(group.id, new Date()))) return false;
      await sharing.appendAudit(
        audit.inStatement([
          {
            userId: actor.userId,
            action: 'share.revoke',
            table: 'share_groups',
            recordId: group.id,
            ip: actor.ip,
            reason: 'study share',
          },
        ]),
      );
      return true;
    });
    if (revoked) onAccessEnded?.({ userIds: [group.created_for], imageIds: [] });
  }

  return {
    async shareImage(actor: Actor, body: ShareRequestBody): Promise<Share> {
      if (!actor.permissions.has('image:share')) throw forbidden();
      const managed = await images.imageToManage(actor, body.imagemetadataId);
      const recipient = await images.userBrief(body.createdfor);
      if (!recipient) throw badRequest('User not found', [{ field: 'createdfor', message: 'User not found' }]);
      if (body.deidentify && !deidentify) throw badRequest('De-identified sharing is not available');
      // De-identified: the share points at the copy (no patient link), made once per source image.
      const image = body.deidentify && deidentify ? await deidentify(actor, managed.id) : managed;
      if (recipient.id === actor.userId) throw conflict('You cannot share an image with yourself');
      if (!recipient.active || !recipient.approved) throw conflict('This user is not active and cannot receive shares');
      if (recipient.id === image.uploaderId) throw conflict('The uploader already has access to this image');
      // The image's own patient gets the never-expiring patient share back; others get a time limit.
      const isPatientShare = recipient.id === image.patientId;
      const { shareExpiryHours, shareExpiryMaxHours } = await settings.effective();
      const hours = Math.min(body.expiresInHours ?? shareExpiryHours, shareExpiryMaxHours);
      const expiresAt = isPatientShare ? null : new Date(Date.now() + hours * 3_600_000);
      const alreadyShared = () => conflict('This image is already shared with this user');
      const pairShare = async () => (await repo.listForImage(image.id)).find((s) => s.created_for === recipient.id);
      let existing = await pairShare();
      if (existing && isLive(existing)) throw alreadyShared();
      const code = generateCode();
      const codeHash = await hasher.hash(code);
      const id = randomUUID();
      const share = {
        id,
        imageId: image.id,
        createdBy: actor.userId,
        createdFor: recipient.id,
        codeHash,
        expiresAt,
        isPatientShare,
      };
      const event = (action: AuditAction, recordId: string, reason: string) => ({
        userId: actor.userId,
        action,
        table: 'shares',
        recordId,
        ip: actor.ip,
        reason,
      });
      // Racing requests for the same pair: one insert wins (and alone mails), the others get 409.
      // A second try only when the dead share this one meant to replace went away meanwhile.
      for (let attempt = 0; ; attempt++) {
        const replacing = existing && !isLive(existing) ? existing.id : null;
        const events = [
          ...(replacing ? [event('share.delete', replacing, `image=${image.id}; replaced by a new share`)] : []),
          event('share.create', id, `image=${image.id} expires=${expiresAt ? `${hours}h` : 'never'}`),
        ];
        if (await repo.createAudited(share, replacing, (created) => audit.inStatement(events, created))) break;
        existing = await pairShare();
        if (attempt >= 1 || (existing && isLive(existing))) throw alreadyShared();
      }
      const sharer = await images.userBrief(actor.userId);
      const contact = await images.contactOf(recipient.id);
      try {
        // The caption of the shared row: a de-identified copy's is neutral, never the source's.
        const caption = (await repo.captionOf(image.id)) ?? '';
        const { displayLocale, displayTimeZone } = await settings.effective();
        const mail = imageSharedMail({
          recipientName: contact.firstname,
          sharedBy: sharer ? `${sharer.firstname} ${sharer.lastname}` : 'A MedShare user',
          caption,
          sharingId: id,
          code,
          expiresAt,
          display: { locale: displayLocale, timeZone: displayTimeZone },
          publicUrl,
        });
        await mailer.send({ to: contact.email, ...mail, devCode: code });
      } catch (err) {
        // A share whose code never reached anyone is useless: take it back (audited) and say so.
        await repo
          .deleteAudited(id, (deleted) =>
            audit.inStatement(
              [{ ...event('share.delete', id, `image=${image.id}; mail failed`), status: 'failure' as const }],
              deleted,
            ),
          )
          .catch((deleteErr: unknown) =>
            log.error({ err: deleteErr, shareId: id }, 'could not withdraw an unmailed share'),
          );
        throw err;
      }
      const created = await repo.getLive(id);
      // Gone already: the image was deleted (or the share withdrawn) between the insert and now.
      if (!created) throw notFound(SharingMessages.notFound);
      return presentShare(created);
    },

    /** Only the recipient; five wrong codes lock the share. */
    async verifyShare(actor: Actor, body: ShareVerifyBody): Promise<ShareVerifyResponseData> {
      const fail = (reason: string) =>
        audit.recordQuietly({
          userId: actor.userId,
          action: 'share.verify',
          table: 'shares',
          recordId: body.sharingRequestId,
          ip: actor.ip,
          status: 'failure',
          reason,
        });
      const share = await repo.getLive(body.sharingRequestId);
      // A study share's id, or one of its instance rows: the group's code and tries decide.
      if (share?.group_id && share.created_for === actor.userId) return verifyGroup(actor, share.group_id, body);
      if (!share) return verifyGroup(actor, body.sharingRequestId, body);
      if (share.created_for !== actor.userId) {
        // The same time as a real check, so that probing ids learns nothing from the answer time.
        await hasher.verify(null, body.verificationCode);
        await fail('not the recipient or no such share');
        throw notFound(SharingMessages.notFound);
      }
      const state = shareState(share);
      if (state === 'revoked') {
        await fail('revoked');
        throw notFound(SharingMessages.notFound);
      }
      if (state === 'expired') {
        await fail('expired');
        throw badRequest(SharingMessages.expired);
      }
      if (state === 'locked') {
        await fail('locked');
        throw tooManyRequests(SharingMessages.locked);
      }
      const attempt = await repo.takeAttempt(share.id);
      if (attempt === null) {
        await repo.lock(share.id);
        await fail('locked');
        throw tooManyRequests(SharingMessages.locked);
      }
      if (!(await hasher.verify(share.code_hash, body.verificationCode))) {
        if (attempt >= MAX_SHARE_ATTEMPTS) {
          await repo.lock(share.id);
          await fail('wrong code; locked');
          throw tooManyRequests(SharingMessages.locked);
        }
        await fail('wrong code');
        throw badRequest(SharingMessages.wrongCode, [
          { field: 'verificationCode', code: 'invalid_code', message: SharingMessages.wrongCode },
        ]);
      }
      const verified = await transaction.run(async ({ sharing, audit: auditInTx }) => {
        const row = await sharing.markVerified(share.id);
        if (!row) return null;
        await auditInTx([
          {
            userId: actor.userId,
            action: 'share.verify',
            table: 'shares',
            recordId: share.id,
            ip: actor.ip,
            reason: `image=${share.image_id}`,
          },
        ]);
        return row;
      });
      if (!verified) return endedMeanwhile(await repo.getLive(share.id), fail);
      return {
        sharingId: share.id,
        imageId: share.image_id,
        verifiedAt: new Date(verified.verified_at!).toISOString(),
        expiresAt: share.expires_at?.toISOString() ?? null,
      };
    },

    async listShares(actor: Actor, imageId: string): Promise<Share[]> {
      const image = await images.imageToManage(actor, imageId);
      // With its de-identified copy's shares: the copy is listed to its recipients only, so its shares are managed here.
      const shares = await repo.listForImage(image.id, true);
      await audit.record({
        userId: actor.userId,
        action: 'share.list.read',
        table: 'shares',
        recordId: image.id,
        ip: actor.ip,
        reason: `image=${image.id} listed=${shares.length}`,
      });
      return shares.map(presentShare);
    },

    /**
     * Ends a share at once; content reads through it stop with the next request. An instance row
     * of a study share ends the whole study share (one code opened them together).
     */
    async revokeShare(actor: Actor, id: string): Promise<Share> {
      const share = await repo.getLive(id);
      if (!share) throw notFound(SharingMessages.notFound);
      const manages = share.uploader_id === actor.userId || actor.permissions.has('image:view_all');
      if (!manages) {
        if (share.created_for === actor.userId) throw forbidden('Only the sender can revoke a share');
        throw notFound(SharingMessages.notFound);
      }
      if (share.group_id) {
        const group = await repo.getGroup(share.group_id);
        if (group) await revokeGroup(actor, group);
        return presentShare((await repo.getLive(id))!);
      }
      // The revoke and its audit row commit together, as a study share's do (revokeGroup). A share
      // revoked already (a second click, two admins) is answered as it is, not recorded again.
      const revoked = await transaction.run(async ({ sharing }) => {
        if (!(await sharing.revoke(id))) return false;
        await sharing.appendAudit(
          audit.inStatement([
            {
              userId: actor.userId,
              action: 'share.revoke',
              table: 'shares',
              recordId: id,
              ip: actor.ip,
              reason: `image=${share.image_id}`,
            },
          ]),
        );
        return true;
      });
      if (revoked) {
        onAccessEnded?.({ userIds: [share.created_for], imageIds: [] });
        log.debug({ shareId: id }, 'share revoked');
      }
      return presentShare((await repo.getLive(id))!);
    },

    /**
     * A whole study under one sharing id and one code (`docs/architecture.md` › Sharing): the same
     * rules, expiry, audit and mail as an image share. `images` are the study's images the actor
     * manages (the studies module decides which); one share row per image points at the group.
     * A live share of any of them to the recipient refuses the whole study (409); dead ones are
     * replaced. Nothing is half-stored: the group and its rows commit together or not at all.
     */
    async shareStudy(
      actor: Actor,
      study: { studyUid: string; caption: string; images: StudyImage[] },
      body: StudyShareBody,
    ): Promise<StudyShare> {
      if (!actor.permissions.has('image:share')) throw forbidden();
      if (!study.images.length) throw notFound(StudyMessages.notFound);
      const recipient = await images.userBrief(body.createdfor);
      if (!recipient) throw badRequest('User not found', [{ field: 'createdfor', message: 'User not found' }]);
      if (body.deidentify && !studyCopies) throw badRequest('De-identified sharing is not available');
      if (recipient.id === actor.userId) throw conflict('You cannot share a study with yourself');
      if (!recipient.active || !recipient.approved) throw conflict('This user is not active and cannot receive shares');
      if (study.images.some((i) => i.uploaderId === recipient.id))
        throw conflict('The uploader already has access to this study');
      const id = randomUUID();
      const deidentified = Boolean(body.deidentify && studyCopies);
      const isPatientShare = !deidentified && study.images.every((i) => i.patientId === recipient.id);
      const { shareExpiryHours, shareExpiryMaxHours } = await settings.effective();
      const hours = Math.min(body.expiresInHours ?? shareExpiryHours, shareExpiryMaxHours);
      const expiresAt = isPatientShare ? null : new Date(Date.now() + hours * 3_600_000);
      // A de-identified share shares fresh copies: nobody has a share of them yet.
      const existing = deidentified
        ? []
        : await repo.sharesOfImagesTo(
            study.images.map((i) => i.id),
            recipient.id,
          );
      if (existing.some(isLive)) throw conflict(StudyMessages.alreadyShared);
      const code = generateCode();
      const codeHash = await hasher.hash(code);
      const series = new Set(study.images.map((i) => i.seriesUid)).size;
      // Each uploader's (and patient's) copy of an instance counts (images/study-instance.ts instanceCopyKeySql).
      const instances = new Set(study.images.map((i) => `${i.sopUid}|${i.uploaderId}|${i.patientId ?? ''}`)).size;
      const event = (action: AuditAction, table: string, recordId: string, reason: string) => ({
        userId: actor.userId,
        action,
        table,
        recordId,
        ip: actor.ip,
        reason,
      });
      const group = {
        id,
        studyUid: study.studyUid,
        createdBy: actor.userId,
        createdFor: recipient.id,
        codeHash,
        expiresAt,
        isPatientShare,
        deidentified,
      };
      // De-identified: every instance's copy, its UIDs mapped under this share's id; blobs only, for now.
      const copies = deidentified
        ? await studyCopies!.prepare(
            actor,
            study.images.map((i) => i.id),
            id,
          )
        : null;
      const imageIds = copies ? copies.ids : study.images.map((i) => i.id);
      try {
        // The copies' rows, the group, its rows and every audit row (the copies' included) commit together.
        await transaction
          .run(async ({ sharing, copies: copyRows }) => {
            await sharing.deleteShares(existing.map((s) => s.id));
            await sharing.insertGroup(group);
            if (copies) await copyRows!.insert(copies, id);
            // A share that raced this one in took an image first: the whole study share is refused.
            if ((await sharing.insertMembers(group, imageIds)) !== imageIds.length)
              throw conflict(StudyMessages.alreadyShared);
            await auditIn(sharing, [
              ...(copies?.events ?? []),
              ...existing.map((s) =>
                event('share.delete', 'shares', s.id, `image=${s.image_id}; replaced by a study share`),
              ),
              event(
                'share.create',
                'share_groups',
                id,
                `study share images=${imageIds.length} series=${series} expires=${expiresAt ? `${hours}h` : 'never'}${deidentified ? ' deidentified' : ''}`,
              ),
            ]);
          })
          // The patient's open share of this study was made meanwhile (share_groups_patient_key).
          .catch((err: unknown) => {
            throw isUniqueViolation(err) ? conflict(StudyMessages.alreadyShared) : err;
          });
      } catch (err) {
        if (copies) await studyCopies!.discard(copies);
        throw err;
      }
      const sharer = await images.userBrief(actor.userId);
      const contact = await images.contactOf(recipient.id);
      try {
        const { displayLocale, displayTimeZone } = await settings.effective();
        const modalities = [...new Set(study.images.flatMap((i) => (i.modality ? [i.modality] : [])))].sort();
        const mail = studySharedMail({
          recipientName: contact.firstname,
          sharedBy: sharer ? `${sharer.firstname} ${sharer.lastname}` : 'A MedShare user',
          // A de-identified copy is named neutrally, never by the source's caption (free text).
          caption: deidentified ? `De-identified ${modalities.join('/') || 'DICOM'} study` : study.caption,
          sharingId: id,
          code,
          expiresAt,
          display: { locale: displayLocale, timeZone: displayTimeZone },
          publicUrl,
          study: { modalities, series, instances, deidentified },
        });
        await mailer.send({ to: contact.email, ...mail, devCode: code });
      } catch (err) {
        // A share whose code never reached anyone is useless: take it back (audited) and say so. Its
        // de-identified copies go with it (rows with the group's row, then their blobs).
        const withdrawn = await transaction
          .run(async ({ sharing }) => {
            await sharing.deleteGroup(id);
            await sharing.appendAudit(
              audit.inStatement([
                {
                  ...event(
                    'share.delete',
                    'share_groups',
                    id,
                    `study share; mail failed${copies ? `; copies removed=${copies.ids.length}` : ''}`,
                  ),
                  status: 'failure' as const,
                },
              ]),
            );
            return true;
          })
          .catch((deleteErr: unknown) => {
            log.error({ err: deleteErr, shareId: id }, 'could not withdraw an unmailed study share');
            return false;
          });
        if (copies && withdrawn) {
          // Rows of the copies read in the meantime go before their blobs do.
          onAccessEnded?.({ userIds: [], imageIds: copies.ids });
          await studyCopies!.discard(copies);
        }
        throw err;
      }
      if (copies) studyCopies!.committed(copies);
      const created = await repo.getGroup(id);
      if (!created) throw notFound(SharingMessages.notFound);
      return presentGroup(created, (await repo.groupCounts([id])).get(id));
    },

    /** The study shares of a study whose images the actor manages (the studies module checked the study). */
    async listStudyShares(actor: Actor, studyUid: string): Promise<StudyShare[]> {
      const manager = { userId: actor.userId, all: actor.permissions.has('image:view_all') };
      const groups = await repo.listGroupsForStudy(studyUid, manager, MAX_LISTED_STUDY_SHARES);
      const counts = await repo.groupCounts(groups.map((g) => g.id));
      return groups.map((g) => presentGroup(g, counts.get(g.id)));
    },

    /** Ends a study share: every instance closes at once. */
    async revokeStudyShare(actor: Actor, studyUid: string, id: string): Promise<StudyShare> {
      const { group } = await groupToManage(actor, id);
      if (group.study_uid !== studyUid) throw notFound(SharingMessages.notFound);
      await revokeGroup(actor, group);
      const after = (await repo.getGroup(id))!;
      return presentGroup(after, (await repo.groupCounts([id])).get(id));
    },

    /** Users-module hook, inside the deleting transaction: study shares to a deleted account end. */
    onUserDeleted: async (event: { userId: string }, trx: Db): Promise<void> => {
      await createSharingRepository(trx).revokeGroupsTo(event.userId, new Date());
    },
  };
}
export type SharingService = ReturnType<typeof createSharingService>;

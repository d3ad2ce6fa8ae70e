import {
  type Share,
  type ShareRequestBody,
  type ShareVerifyBody,
  type ShareVerifyResponseData,
  SharingMessages,
} from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type PasswordHasher, generateCode } from '../../crypto/passwords.ts';
import type { Db } from '../../db/db.ts';
import { badRequest, conflict, forbidden, notFound, tooManyRequests } from '../../errors.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { imageSharedMail } from '../../mail/templates.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/auth.service.ts';
import type { ImagesService } from '../images/images.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { MAX_SHARE_ATTEMPTS, isLive, shareState } from './share-state.ts';
import { type ShareWithPeople, createSharingRepository } from './sharing.repository.ts';

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
}

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
    expiresAt: s.expires_at?.toISOString() ?? null,
    verifiedAt: s.verified_at?.toISOString() ?? null,
    revokedAt: s.revoked_at?.toISOString() ?? null,
    createdAt: s.created_at.toISOString(),
  };
}

/** Shares of images under a sharing id and a mailed 6-digit code (DESIGN §8). */
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
}: Deps) {
  const repo = createSharingRepository(db);

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
      const existing = (await repo.listForImage(image.id)).find((s) => s.created_for === recipient.id);
      if (existing && isLive(existing)) throw conflict('This image is already shared with this user');

      // The image's own patient gets the never-expiring patient share back; others get a time limit.
      const isPatientShare = recipient.id === image.patientId;
      const { shareExpiryHours, shareExpiryMaxHours } = await settings.effective();
      const hours = Math.min(body.expiresInHours ?? shareExpiryHours, shareExpiryMaxHours);
      const expiresAt = isPatientShare ? null : new Date(Date.now() + hours * 3_600_000);
      const code = generateCode();
      const codeHash = await hasher.hash(code);
      const id = randomUUID();
      await db
        .transaction()
        .execute((trx) =>
          createSharingRepository(trx).replace({
            id,
            imageId: image.id,
            createdBy: actor.userId,
            createdFor: recipient.id,
            codeHash,
            expiresAt,
            isPatientShare,
          }),
        )
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === '23505')
            throw conflict('This image is already shared with this user');
          throw err;
        });
      const sharer = await images.userBrief(actor.userId);
      const contact = await images.contactOf(recipient.id);
      try {
        const mail = imageSharedMail(
          contact.firstname,
          sharer ? `${sharer.firstname} ${sharer.lastname}` : 'A MedShare user',
          id,
          code,
          expiresAt,
          `${publicUrl}/view-images`,
        );
        await mailer.send({ to: contact.email, ...mail, devCode: code });
      } catch (err) {
        // A share whose code never reached anyone is useless: take it back and say so.
        await repo.delete(id);
        await audit.recordQuietly({
          userId: actor.userId,
          action: 'share.create',
          table: 'shares',
          recordId: id,
          ip: actor.ip,
          status: 'failure',
          reason: 'mail failed',
        });
        throw err;
      }
      await audit.record({
        userId: actor.userId,
        action: 'share.create',
        table: 'shares',
        recordId: id,
        ip: actor.ip,
        reason: `image=${image.id} expires=${expiresAt ? `${hours}h` : 'never'}`,
      });
      return presentShare((await repo.getLive(id))!);
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
      if (!share || share.created_for !== actor.userId) {
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
          { field: 'verificationCode', message: SharingMessages.wrongCode },
        ]);
      }
      const { verified_at } = await repo.markVerified(share.id);
      await audit.record({
        userId: actor.userId,
        action: 'share.verify',
        table: 'shares',
        recordId: share.id,
        ip: actor.ip,
        reason: `image=${share.image_id}`,
      });
      return {
        sharingId: share.id,
        imageId: share.image_id,
        verifiedAt: new Date(verified_at!).toISOString(),
        expiresAt: share.expires_at?.toISOString() ?? null,
      };
    },

    async listShares(actor: Actor, imageId: string): Promise<Share[]> {
      const image = await images.imageToManage(actor, imageId);
      return (await repo.listForImage(image.id)).map(presentShare);
    },

    /** Ends a share at once; content reads through it stop with the next request. */
    async revokeShare(actor: Actor, id: string): Promise<Share> {
      const share = await repo.getLive(id);
      if (!share) throw notFound(SharingMessages.notFound);
      const manages = share.uploader_id === actor.userId || actor.permissions.has('image:view_all');
      if (!manages) {
        if (share.created_for === actor.userId) throw forbidden('Only the sender can revoke a share');
        throw notFound(SharingMessages.notFound);
      }
      await repo.revoke(id);
      await audit.record({
        userId: actor.userId,
        action: 'share.revoke',
        table: 'shares',
        recordId: id,
        ip: actor.ip,
        reason: `image=${share.image_id}`,
      });
      log.debug({ shareId: id }, 'share revoked');
      return presentShare((await repo.getLive(id))!);
    },
  };
}
export type SharingService = ReturnType<typeof createSharingService>;

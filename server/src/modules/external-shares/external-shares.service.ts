import {
  type ExternalLinkStatus,
  type ExternalShare,
  type ExternalShareCreateBody,
  type ExternalShareIssued,
  type ExternalShareList,
  type ExternalShareListQuery,
  ExternalShareMessages,
  type ExternalShareListState,
  type ExternalShareState,
  type ExternalView,
  StudyMessages,
} from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type PasswordHasher, generateCode, generateLinkToken, sha256Hex } from '../../crypto/passwords.ts';
import type { Db } from '../../db/db.ts';
import type { ImageRow } from '../../db/schema.ts';
import { createTransactor } from '../../db/transactor.ts';
import { AppError, badRequest, conflict, forbidden, notFound, tooManyRequests, unauthenticated } from '../../errors.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { externalShareMail } from '../../mail/templates.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import { canSeeEverything } from '../images/access-policy.ts';
import type { ContentAnswer, ContentVariant, ImagesService } from '../images/images.service.ts';
import { dicomItem } from '../images/image-presenter.ts';
import { spansPatients } from '../images/study-instance.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { CREDENTIAL_HOURS, type LinkCredentials } from './link-credential.ts';
import { type ExternalShareWithSharer, createExternalSharesRepository } from './external-shares.repository.ts';

/** Wrong codes that lock a link (the sharer may re-issue it). */
export const MAX_LINK_ATTEMPTS = 5;
/** The default life of a link, when the sharer names none (never past the setting). */
export const DEFAULT_LINK_HOURS = 72;
/** The most images one study link opens. */
export const MAX_LINK_IMAGES = 2000;
/** The most shares the sharer's list shows (newest first). */
export const MAX_LISTED = 200;

interface Deps {
  db: Db;
  images: ImagesService;
  hasher: PasswordHasher;
  mailer: Mailer;
  audit: AuditService;
  settings: SettingsService;
  credentials: LinkCredentials;
  log: Logger;
  publicUrl: string;
  /** The DICOM module's de-identified copy of an image (made on first use, reused after). */
  deidentify: (actor: Actor, imageId: string) => Promise<{ id: string }>;
}

/** A link holder's credential once the code was right: the cookie's value and until when it holds. */
export interface LinkSession {
  credential: string;
  expiresAt: Date;
  view: ExternalView;
}

export function stateOf(
  share: Pick<ExternalShareWithSharer, 'revoked_at' | 'expires_at' | 'locked_at'>,
  now = Date.now(),
): ExternalShareState {
  if (share.revoked_at) return 'revoked';
  if (share.expires_at.getTime() <= now) return 'expired';
  if (share.locked_at) return 'locked';
  return 'active';
}

const gone = (state: 'revoked' | 'expired') =>
  state === 'revoked'
    ? new AppError(410, 'link_revoked', ExternalShareMessages.revokedLink)
    : new AppError(410, 'link_expired', ExternalShareMessages.expiredLink);

/**
 * Shares with someone who has no account (`docs/architecture.md` › Sharing with someone without an
 * account): a mailed link (hashed token) and a code the sharer passes on by another channel.
 */
export function createExternalSharesService(deps: Deps) {
  const { db, images, hasher, mailer, audit, settings, credentials, log, publicUrl } = deps;
  const repo = createExternalSharesRepository(db);
  const transaction = createTransactor(db, (trx) => ({ shares: createExternalSharesRepository(trx) }));

  /**
   * The state the sharer's list shows: the link's own, unless its sharer's standing ends or pauses
   * what it opens (`opening`: how many of its images it still opens, `standingImageIds`).
   */
  function listStateOf(s: ExternalShareWithSharer, opening: number): ExternalShareListState {
    const state = stateOf(s);
    if (state === 'revoked' || state === 'expired') return state;
    if (s.sharer_deleted_at !== null || opening === 0) return 'ended';
    if (!s.sharer_active) return 'paused';
    return state;
  }

  function present(s: ExternalShareWithSharer, imageCount: number, opening: number): ExternalShare {
    return {
      id: s.id,
      sharedBy: { id: s.created_by, firstname: s.sharer_firstname, lastname: s.sharer_lastname },
      kind: s.study_uid ? 'study' : 'image',
      imageId: s.source_image_id,
      studyUid: s.study_uid,
      caption: s.caption,
      recipientEmail: s.recipient_email,
      state: listStateOf(s, opening),
      viewOnly: s.view_only,
      deidentified: s.deidentified,
      imageCount,
      views: s.views,
      lastViewedAt: s.last_viewed_at?.toISOString() ?? null,
      expiresAt: s.expires_at.toISOString(),
      revokedAt: s.revoked_at?.toISOString() ?? null,
      lockedAt: s.locked_at?.toISOString() ?? null,
      createdAt: s.created_at.toISOString(),
    };
  }

  /** Shares as their list shows them: with how many images each holds and still opens. */
  async function presentAll(rows: ExternalShareWithSharer[]): Promise<ExternalShare[]> {
    const ids = rows.map((r) => r.id);
    const [counts, opening] = await Promise.all([repo.imageCounts(ids), repo.standingCounts(ids)]);
    return rows.map((r) => present(r, counts.get(r.id) ?? 0, opening.get(r.id) ?? 0));
  }

  /** The audit reason of a link holder's act: which share, whose link (the recipient's e-mail). */
  const holderReason = (s: Pick<ExternalShareWithSharer, 'id' | 'recipient_email'>, extra?: string) =>
    [`external share ${s.id}`, `recipient=${s.recipient_email}`, extra].filter(Boolean).join('; ');

  async function mailLink(
    share: ExternalShareWithSharer | { id: string },
    input: {
      to: string;
      sharedBy: string;
      kind: 'image' | 'study';
      deidentified: boolean;
      token: string;
      expiresAt: Date;
    },
  ) {
    const { displayLocale, displayTimeZone } = await settings.effective();
    await mailer.send({
      to: input.to,
      ...externalShareMail({
        sharedBy: input.sharedBy,
        kind: input.kind,
        deidentified: input.deidentified,
        link: `${publicUrl}/x#${input.token}`,
        expiresAt: input.expiresAt,
        display: { locale: displayLocale, timeZone: displayTimeZone },
      }),
    });
    log.info({ externalShareId: share.id }, 'external share link mailed');
  }

  /**
   * The sharer's own share, or 404 (another's shares are not theirs to know). With `orManager`, also
   * any share for those who manage every image (`image:view_all`): an administrator may revoke a
   * link that should not stay open, but never re-issue one (that would hand them its new code).
   */
  async function ownShare(actor: Actor, id: string, orManager = false) {
    const share = /^[0-9a-f-]{36}$/i.test(id) ? await repo.getById(id) : undefined;
    const manages = orManager && canSeeEverything(actor);
    if (!share || (share.created_by !== actor.userId && !manages)) throw notFound('Share not found');
    return share;
  }

  /**
   * A link is its sharer's act and opens no more than they could share now: not once their account
   * is deactivated or deleted (deletion also revokes it for good), and only the images they still
   * see as their own (`standingImageIds`). Read on every request, so the end is immediate.
   */
  const sharerStands = (share: ExternalShareWithSharer) => share.sharer_active && share.sharer_deleted_at === null;

  /** The share a presented link token names, or 404 (a guess learns nothing else). */
  async function shareOfToken(token: string) {
    const share = await repo.getByTokenHash(sha256Hex(token));
    if (!share) throw notFound(ExternalShareMessages.invalidLink);
    return share;
  }

  /** The share a link holder's credential opens, read again now: ended, re-issued or forged → refused. */
  async function holderShare(credential: string | null) {
    const claims = credential ? await credentials.verify(credential) : null;
    if (!claims) throw unauthenticated(ExternalShareMessages.noSession, 'no_link_session');
    const share = await repo.getById(claims.shareId);
    if (!share || share.generation !== claims.generation)
      throw unauthenticated(ExternalShareMessages.noSession, 'no_link_session');
    const state = stateOf(share);
    if (state === 'revoked' || state === 'expired') throw gone(state);
    if (state === 'locked') throw tooManyRequests(ExternalShareMessages.lockedLink);
    if (!sharerStands(share)) throw gone('revoked');
    return share;
  }

  /** The images the link still opens (its sharer could still share them), as the holder's viewer lists them. */
  async function viewOf(share: ExternalShareWithSharer): Promise<ExternalView> {
    const ids = await repo.standingImageIds(share);
    const rows = new Map((await images.liveByIds(ids)).map((r) => [r.id, r]));
    return {
      kind: share.study_uid ? 'study' : 'image',
      title: share.caption,
      sharedBy: `${share.sharer_firstname} ${share.sharer_lastname}`.trim(),
      viewOnly: share.view_only,
      deidentified: share.deidentified,
      expiresAt: share.expires_at.toISOString(),
      images: ids.flatMap((id) => {
        const row = rows.get(id);
        if (!row) return [];
        return [
          {
            id: row.id,
            contentType: row.content_type,
            // Never the UIDs: the viewer needs none, and they can identify a study.
            dicom: row.content_type === 'application/dicom' ? dicomItem(row, false) : null,
            hasThumbnail: row.thumbnail_status === 'ready',
          },
        ];
      }),
    };
  }

  return {
    async create(actor: Actor, body: ExternalShareCreateBody): Promise<ExternalShareIssued> {
      const { externalShareMaxHours } = await settings.effective();
      const hours = body.expiresInHours ?? Math.min(DEFAULT_LINK_HOURS, externalShareMaxHours);
      if (hours > externalShareMaxHours) {
        const message = ExternalShareMessages.expiryTooLong(externalShareMaxHours);
        throw badRequest(message, [{ field: 'expiresInHours', code: 'too_big', message }]);
      }
      let sources: ImageRow[];
      if (body.imageId) sources = [await images.ownImage(actor, body.imageId)];
      else {
        sources = await images.ownStudyImages(actor, body.studyUid!, MAX_LINK_IMAGES);
        if (!sources.length) throw notFound(ExternalShareMessages.noImages);
        if (sources.length > MAX_LINK_IMAGES)
          throw new AppError(413, 'too_large', `A link opens at most ${MAX_LINK_IMAGES} images`);
        // As a study share: one link, one patient's images (study-instance.ts › spansPatients).
        if (spansPatients(sources)) throw conflict(StudyMessages.severalPatients);
      }
      const dicom = sources.every((s) => s.content_type === 'application/dicom');
      if (body.deidentify && !dicom) throw badRequest('Only DICOM images can be de-identified');
      // De-identified: the DICOM module's copies (sharing's machinery), made before anything is stored.
      const shared = body.deidentify
        ? await Promise.all(sources.map(async (s) => (await deps.deidentify(actor, s.id)).id))
        : sources.map((s) => s.id);
      const modality = sources.find((s) => s.dicom_modality)?.dicom_modality ?? 'DICOM';
      const caption = body.deidentify
        ? `De-identified ${modality} ${body.studyUid ? 'study' : 'image'}`
        : sources[0]!.caption;

      const id = randomUUID();
      const token = generateLinkToken();
      const code = generateCode();
      const codeHash = await hasher.hash(code);
      const expiresAt = new Date(Date.now() + hours * 3_600_000);
      await transaction.run(async ({ shares }) => {
        await shares.create(
          {
            id,
            created_by: actor.userId,
            recipient_email: body.recipientEmail,
            source_image_id: body.imageId ?? null,
            study_uid: body.studyUid ?? null,
            caption,
            token_hash: sha256Hex(token),
            code_hash: codeHash,
            view_only: body.viewOnly,
            deidentified: body.deidentify,
            expires_at: expiresAt,
          },
          shared,
        );
        await shares.appendAudit(
          audit.inStatement([
            {
              userId: actor.userId,
              action: 'external_share.create',
              table: 'external_shares',
              recordId: id,
              ip: actor.ip,
              reason: `images=${shared.length} hours=${hours}${body.viewOnly ? ' view-only' : ''}${body.deidentify ? ' de-identified' : ''}`,
            },
          ]),
        );
      });
      const share = (await repo.getById(id))!;
      try {
        await mailLink(share, {
          to: body.recipientEmail,
          sharedBy: `${share.sharer_firstname} ${share.sharer_lastname}`,
          kind: share.study_uid ? 'study' : 'image',
          deidentified: share.deidentified,
          token,
          expiresAt,
        });
      } catch (err) {
        // A link nobody received must not stay open.
        await transaction.run(async ({ shares }) => {
          await shares.delete(id);
          await shares.appendAudit(
            audit.inStatement([
              {
                userId: actor.userId,
                action: 'external_share.revoke',
                table: 'external_shares',
                recordId: id,
                ip: actor.ip,
                status: 'failure',
                reason: 'mail failed; share removed',
              },
            ]),
          );
        });
        throw err;
      }
      return { share: present(share, shared.length, shared.length), code };
    },

    /** The caller's links, or with `all` every user's (image:view_all only; 403 otherwise). */
    async list(actor: Actor, scope: ExternalShareListQuery['scope'] = 'mine'): Promise<ExternalShareList> {
      if (scope === 'all' && !canSeeEverything(actor)) throw forbidden();
      const [rows, { externalShareMaxHours }] = await Promise.all([
        scope === 'all' ? repo.listAll(MAX_LISTED) : repo.listByCreator(actor.userId, MAX_LISTED),
        settings.effective(),
      ]);
      const items = await presentAll(rows);
      // Everyone's links (recipients' addresses, captions, sharers) are others' data: audited before the answer.
      if (scope === 'all')
        await audit.record({
          userId: actor.userId,
          action: 'external_share.list.read',
          table: 'external_shares',
          ip: actor.ip,
          reason: `scope=all listed=${items.length}`,
        });
      return { items, maxHours: externalShareMaxHours };
    },

    async revoke(actor: Actor, id: string): Promise<ExternalShare> {
      const share = await ownShare(actor, id, true);
      await transaction.run(async ({ shares }) => {
        const at = await shares.revoke(share.id, new Date());
        if (!at) return;
        await shares.appendAudit(
          audit.inStatement([
            {
              userId: actor.userId,
              action: 'external_share.revoke',
              table: 'external_shares',
              recordId: share.id,
              ip: actor.ip,
              reason: share.created_by === actor.userId ? null : `link of user ${share.created_by}`,
            },
          ]),
        );
      });
      const after = (await repo.getById(share.id))!;
      return (await presentAll([after]))[0]!;
    },

    /** A new link and code for an active or locked share: the old link and its sessions end at once. */
    async reissue(actor: Actor, id: string): Promise<ExternalShareIssued> {
      const share = await ownShare(actor, id);
      const state = stateOf(share);
      const ended = () => new AppError(409, 'conflict', 'This share has ended: share again instead.');
      if (state === 'revoked' || state === 'expired') throw ended();
      const token = generateLinkToken();
      const code = generateCode();
      const codeHash = await hasher.hash(code);
      await transaction.run(async ({ shares }) => {
        // Revoked or expired since the read above: no new link is made, mailed or recorded.
        if (!(await shares.reissue(share.id, sha256Hex(token), codeHash))) throw ended();
        await shares.appendAudit(
          audit.inStatement([
            {
              userId: actor.userId,
              action: 'external_share.reissue',
              table: 'external_shares',
              recordId: share.id,
              ip: actor.ip,
              reason: `was ${state}`,
            },
          ]),
        );
      });
      await mailLink(share, {
        to: share.recipient_email,
        sharedBy: `${share.sharer_firstname} ${share.sharer_lastname}`,
        kind: share.study_uid ? 'study' : 'image',
        deidentified: share.deidentified,
        token,
        expiresAt: share.expires_at,
      });
      const after = (await repo.getById(share.id))!;
      return { share: (await presentAll([after]))[0]!, code };
    },

    /** What a link says before its code: whether it still opens and until when; nothing about the content. */
    async linkStatus(token: string): Promise<ExternalLinkStatus> {
      const share = await shareOfToken(token);
      const state = stateOf(share);
      // A link whose sharer no longer stands, or that opens nothing any more, says so before its code.
      const ended =
        (state === 'active' || state === 'locked') &&
        (!sharerStands(share) || !(await repo.standingImageIds(share)).length);
      return { state: ended ? 'revoked' : state, expiresAt: share.expires_at.toISOString() };
    },

    /** The link and its code: a credential for this share alone (five wrong codes lock it). */
    async redeem(token: string, code: string, ip: string | null): Promise<LinkSession> {
      const share = await repo.getByTokenHash(sha256Hex(token));
      const fail = (reason: string) =>
        audit.recordQuietly({
          userId: null,
          action: 'external_share.redeem',
          table: 'external_shares',
          recordId: share?.id ?? null,
          ip,
          status: 'failure',
          reason: share ? holderReason(share, reason) : reason,
        });
      if (!share) {
        // The same work as a wrong code, so timing does not tell a live link from a guess.
        await hasher.verify(null, code);
        await fail('unknown link');
        throw notFound(ExternalShareMessages.invalidLink);
      }
      const state = stateOf(share);
      if (state === 'revoked' || state === 'expired') {
        await fail(state);
        throw gone(state);
      }
      if (state === 'locked') {
        await fail('locked');
        throw tooManyRequests(ExternalShareMessages.lockedLink);
      }
      if (!sharerStands(share)) {
        await fail('sharer no longer active');
        throw gone('revoked');
      }
      // Before the code is counted: a link that opens nothing spends no try.
      if (!(await repo.standingImageIds(share)).length) {
        await fail('the sharer no longer sees what it shared');
        throw gone('revoked');
      }
      const attempt = await repo.takeAttempt(share.id, share.generation, MAX_LINK_ATTEMPTS);
      if (attempt === null) {
        await repo.lock(share.id, new Date());
        await fail('locked');
        throw tooManyRequests(ExternalShareMessages.lockedLink);
      }
      if (!(await hasher.verify(share.code_hash, code))) {
        if (attempt >= MAX_LINK_ATTEMPTS) {
          await repo.lock(share.id, new Date());
          await fail('wrong code; locked');
          throw tooManyRequests(ExternalShareMessages.lockedLink);
        }
        await fail('wrong code');
        throw badRequest(ExternalShareMessages.wrongCode, [
          { field: 'code', code: 'invalid_code', message: ExternalShareMessages.wrongCode },
        ]);
      }
      await repo.giveBackAttempt(share.id);
      const view = await viewOf(share);
      const expiresAt = new Date(Math.min(share.expires_at.getTime(), Date.now() + CREDENTIAL_HOURS * 3_600_000));
      const credential = await credentials.sign({ shareId: share.id, generation: share.generation }, expiresAt);
      await audit.record({
        userId: null,
        action: 'external_share.redeem',
        table: 'external_shares',
        recordId: share.id,
        ip,
        reason: holderReason(share),
      });
      return { credential, expiresAt, view };
    },

    /** The shared images and the share's terms, for the link holder's viewer. */
    async view(credential: string | null, ip: string | null): Promise<ExternalView> {
      const share = await holderShare(credential);
      const view = await viewOf(share);
      if (!view.images.length) throw gone('revoked');
      await repo.countView(share.id, new Date());
      await audit.record({
        userId: null,
        action: 'external_share.list.read',
        table: 'external_shares',
        recordId: share.id,
        ip,
        reason: holderReason(share, `images=${view.images.length}`),
      });
      return view;
    },

    /** Users-module hook, inside the deleting transaction: the deleted account's links end for good. */
    onUserDeleted: async (event: { userId: string }, trx: Db): Promise<void> => {
      await createExternalSharesRepository(trx).revokeByCreator(event.userId, new Date());
    },

    /** One shared image's bytes (inline; an attachment only when the share allows downloads), audited first. */
    async open(
      credential: string | null,
      imageId: string,
      variant: ContentVariant,
      download: boolean,
      ip: string | null,
    ): Promise<ContentAnswer> {
      const share = await holderShare(credential);
      if (download && share.view_only) throw forbidden(ExternalShareMessages.viewOnly);
      const id = imageId.toLowerCase();
      if (!/^[0-9a-f-]{36}$/.test(id) || !(await repo.standingImageIds(share, id)).length) {
        // Nothing of the link opens any more (its sharer lost what they shared): say so, as the view does.
        if (!(await repo.standingImageIds(share)).length) throw gone('revoked');
        throw notFound('Image not found');
      }
      const answer = await images.openForLinkHolder(id, variant, download, {
        action: 'external_share.view',
        ip,
        reason: holderReason(share, variant === 'thumbnail' ? 'thumbnail' : download ? 'download' : 'view'),
      });
      return answer;
    },
  };
}
export type ExternalSharesService = ReturnType<typeof createExternalSharesService>;

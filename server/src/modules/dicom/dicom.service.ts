import { type DicomMetadata, DicomMessages } from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../db/db.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import { dicomItem } from '../images/image-presenter.ts';
import type { ImagesService } from '../images/images.service.ts';
import { capabilitiesType } from './accept.ts';
import { capabilitiesJson, capabilitiesWadl } from './capabilities.ts';
import type { DicomEngine } from './dicom-engine.ts';
import { createDicomRepository } from './dicom.repository.ts';
import { createDicomwebAccess } from './dicomweb-access.ts';
import { createQido } from './qido.ts';
import { createStoredDicom } from './stored-dicom.ts';
import { deidentifiedCopyRow } from './study-copies.ts';
import { createWado } from './wado.ts';

interface Deps {
  db: Db;
  store: EncryptedStore;
  engine: DicomEngine;
  images: ImagesService;
  audit: AuditService;
  log: Logger;
  publicUrl: string;
}

/**
 * De-identified sharing, DICOM metadata and read-only DICOMweb over images the caller may see:
 * the capabilities here, QIDO-RS in qido.ts, WADO-RS in wado.ts, both over stored-dicom.ts (the
 * stored objects and their sealed metadata) and dicomweb-access.ts (who sees which instance).
 */
export function createDicomService({ db, store, engine, images, audit, log, publicUrl }: Deps) {
  const repo = createDicomRepository(db);
  /** A copy's row, its sealed metadata and its audit row: one transaction (docs/security.md › Audit trail). */
  const copying = audit.transactor(db, (trx) => ({ dicom: createDicomRepository(trx) }));
  const base = `${publicUrl}/api/dicomweb`;
  const stored = createStoredDicom({ store, repo, engine, log });
  const access = createDicomwebAccess({ repo, audit });
  const { loader, sealMetadata, metadataOf } = stored;

  return {
    /**
     * The Capabilities Description (PS3.18 §8.9): WADL by default, JSON when asked for it; 406 for
     * anything else. It names no object: anyone may read it.
     */
    capabilities(accept: string | undefined): { type: string; body: string } {
      const wanted = capabilitiesType(accept);
      return wanted === 'application/json'
        ? { type: wanted, body: JSON.stringify(capabilitiesJson(base)) }
        : { type: wanted, body: capabilitiesWadl(base) };
    },

    /** Non-PHI attributes for anyone who may see the item; PHI only for viewers of the content. Audited. */
    async metadata(actor: Actor, id: string): Promise<DicomMetadata> {
      const access = await images.accessTo(actor, id);
      if (!access || access.image.content_type !== 'application/dicom' || !access.image.dicom_kind) {
        await audit.recordQuietly({
          userId: actor.userId,
          action: 'dicom.metadata',
          table: 'images',
          recordId: access ? access.image.id : null,
          ip: actor.ip,
          status: 'failure',
          reason: access ? 'not dicom' : 'not visible',
        });
        throw notFound(access ? 'This image is not a DICOM object' : 'Image not found');
      }
      const { image, content } = access;
      let phi: DicomMetadata['phi'] = null;
      if (content) phi = (await metadataOf(image, actor.userId)).phi;
      await audit.record({
        userId: actor.userId,
        action: 'dicom.metadata',
        table: 'images',
        recordId: image.id,
        ip: actor.ip,
        reason: content ? 'with phi' : 'without phi',
      });
      return {
        imageId: image.id,
        // Everyone who may see the item sees its caption on the image card already.
        caption: image.caption,
        sopClassUid: image.dicom_sop_class_uid,
        dicom: dicomItem(image, content),
        phi,
      };
    },

    /**
     * For the sharing module: the de-identified copy of a DICOM image the actor manages, made on
     * first use and reused afterwards (one copy per source). Refused (409) when the image is
     * flagged with burned-in annotation.
     */
    async deidentifiedCopyFor(
      actor: Actor,
      sourceId: string,
    ): Promise<{ id: string; uploaderId: string; patientId: null }> {
      const access = await images.accessTo(actor, sourceId);
      if (!access) throw notFound('Image not found');
      const source = access.image;
      if (source.content_type !== 'application/dicom' || !source.dicom_kind) throw badRequest(DicomMessages.notDicom);
      if (source.deidentified) return { id: source.id, uploaderId: source.uploader_id, patientId: null };
      if (source.dicom_burned_in) throw conflict(DicomMessages.burnedIn);
      const existing = await repo.liveCopyOf(source.id);
      if (existing) return { id: existing.id, uploaderId: existing.uploader_id, patientId: null };

      const copy = await engine.deidentify(loader(source), source.uploader_id, actor.userId);
      if (copy.burnedInAnnotation) throw conflict(DicomMessages.burnedIn);
      const id = randomUUID();
      const stored = await store.putBuffer(id, Buffer.from(copy.bytes));
      let made: { id: string; uploader_id: string } | undefined;
      try {
        const columns = engine.columnsOf(copy.summary, null);
        made = await copying.run(async ({ dicom, audit: auditInTx }) => {
          // One copy per source: shares of one image made at once wait here for each other, and the
          // later ones take the first one's copy (and so meet its share of the pair: 409).
          if (!(await dicom.lockLiveImage(source.id))) throw notFound('Image not found');
          const first = await dicom.liveCopyOf(source.id);
          if (first) return first;
          await dicom.insertImage(deidentifiedCopyRow(id, source, stored, columns));
          await dicom.saveMetadata(
            id,
            sealMetadata({ id, wrapped_key: stored.wrappedKey, key_id: stored.keyId }, copy.metadata),
          );
          await auditInTx([
            {
              userId: actor.userId,
              action: 'dicom.deidentify',
              table: 'images',
              recordId: id,
              ip: actor.ip,
              reason: `source=${source.id} profile=PS3.15-E-basic`,
            },
          ]);
          return { id, uploader_id: source.uploader_id };
        });
      } finally {
        // Rolled back, or another request's copy taken: no row points at this blob (a row without
        // its metadata would be reused forever).
        if (made?.id !== id) await store.storage.delete(id).catch(() => undefined);
      }
      if (made.id !== id) return { id: made.id, uploaderId: made.uploader_id, patientId: null };
      if (copy.summary.kind === 'image') images.enqueueThumbnail(id);
      return { id, uploaderId: source.uploader_id, patientId: null };
    },

    ...createQido({ repo, engine, audit, stored, access, base }),
    ...createWado({ engine, audit, stored, access }),
  };
}
export type DicomService = ReturnType<typeof createDicomService>;

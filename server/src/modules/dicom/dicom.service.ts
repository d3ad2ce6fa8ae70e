import { type DicomMetadata, DicomMessages, type QidoQuery } from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { IntegrityError } from '../../crypto/envelope.ts';
import type { Db } from '../../db/db.ts';
import type { ImageRow } from '../../db/schema.ts';
import { AppError, badRequest, conflict, notFound } from '../../errors.ts';
import type { EncryptedStore } from '../../storage/encrypted-store.ts';
import { BlobNotFoundError } from '../../storage/storage.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/auth.service.ts';
import type { ImagesService } from '../images/images.service.ts';
import { frameMediaType } from './dicom-core.ts';
import type { DicomEngine } from './dicom-engine.ts';
import type { DicomJson, JsonAttribute } from './dicom-json.ts';
import { type InstanceFilter, type Viewer, createDicomRepository } from './dicom.repository.ts';

interface Deps {
  db: Db;
  store: EncryptedStore;
  engine: DicomEngine;
  images: ImagesService;
  audit: AuditService;
  log: Logger;
  publicUrl: string;
}

export interface Part {
  contentType: string;
  bytes: Uint8Array;
}

const UID = /^[0-9]+(\.[0-9]+)*$/;
const da = (iso: string | null) => (iso ? iso.replace(/-/g, '') : null);
const attr = (vr: string, value: unknown): JsonAttribute =>
  value === null || value === undefined || value === ''
    ? { vr }
    : { vr, Value: Array.isArray(value) ? value : [value] };

/** De-identified sharing, DICOM metadata and read-only DICOMweb (QIDO-RS, WADO-RS) over images the caller may see. */
export function createDicomService({ db, store, engine, images, audit, log, publicUrl }: Deps) {
  const repo = createDicomRepository(db);
  const base = `${publicUrl}/api/dicomweb`;
  const viewerOf = (actor: Actor): Viewer => ({ userId: actor.userId, all: actor.permissions.has('image:view_all') });

  async function readBlob(image: ImageRow): Promise<Buffer> {
    try {
      const stream = await store.open(
        image.storage_key,
        { wrappedKey: image.wrapped_key, keyId: image.key_id },
        { sha256: image.sha256, size: image.size_bytes },
      );
      return Buffer.concat(await stream.toArray());
    } catch (err) {
      if (err instanceof IntegrityError || err instanceof BlobNotFoundError) {
        log.error({ imageId: image.id, problem: err.message }, 'stored DICOM object cannot be read');
        throw new AppError(500, 'integrity_failed', 'The stored file could not be read or failed its integrity check.');
      }
      throw err;
    }
  }

  /** The filter of a QIDO query: a UID that is not a UID matches nothing rather than erroring. */
  function filterOf(query: QidoQuery, path: { study?: string; series?: string }): InstanceFilter | null {
    const studyUid = path.study ?? query.StudyInstanceUID ?? query['0020000D'];
    const seriesUid = path.series ?? query.SeriesInstanceUID ?? query['0020000E'];
    const sopUid = query.SOPInstanceUID ?? query['00080018'];
    for (const uid of [studyUid, seriesUid, sopUid]) if (uid !== undefined && !UID.test(uid)) return null;
    const patientId = query.PatientID ?? query['00100020'];
    return {
      studyUid,
      seriesUid,
      sopUid,
      modality: query.Modality ?? query['00080060'] ?? query.ModalitiesInStudy ?? query['00080061'],
      patientKey: patientId === undefined ? undefined : (engine.patientKeyOf(patientId) ?? undefined),
    };
  }

  const studyUrl = (s: string) => `${base}/studies/${s}`;
  const seriesUrl = (s: string, se: string) => `${studyUrl(s)}/series/${se}`;
  const instanceUrl = (s: string, se: string, i: string) => `${seriesUrl(s, se)}/instances/${i}`;

  async function findInstance(actor: Actor, study: string, series: string, sop: string, action: string) {
    const found =
      UID.test(study) && UID.test(series) && UID.test(sop)
        ? await repo.instance(viewerOf(actor), { studyUid: study, seriesUid: series, sopUid: sop })
        : undefined;
    if (!found) {
      await audit.recordQuietly({
        userId: actor.userId,
        action,
        table: 'images',
        recordId: null,
        ip: actor.ip,
        status: 'failure',
        reason: 'not visible',
      });
      throw notFound('Instance not found');
    }
    return found;
  }

  return {
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
      if (content) phi = (await engine.inspect(await readBlob(image))).phi;
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
        sopClassUid: image.dicom_sop_class_uid,
        dicom: {
          kind: image.dicom_kind ?? 'document',
          modality: image.dicom_modality,
          bodyPart: image.dicom_body_part,
          studyDate: image.dicom_study_date,
          rows: image.dicom_rows,
          columns: image.dicom_columns,
          frames: image.dicom_frames,
          bitsAllocated: image.dicom_bits_allocated,
          bitsStored: image.dicom_bits_stored,
          photometricInterpretation: image.dicom_photometric,
          transferSyntaxUid: image.dicom_transfer_syntax,
          deidentified: image.deidentified,
          studyInstanceUid: content ? image.dicom_study_uid : null,
          seriesInstanceUid: content ? image.dicom_series_uid : null,
          sopInstanceUid: content ? image.dicom_sop_instance_uid : null,
        },
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

      const copy = await engine.deidentify(await readBlob(source), source.uploader_id);
      if (copy.burnedInAnnotation) throw conflict(DicomMessages.burnedIn);
      const id = randomUUID();
      const stored = await store.putBuffer(id, Buffer.from(copy.bytes));
      try {
        const columns = engine.columnsOf(copy.summary, null);
        await repo.insertImage({
          id,
          uploader_id: source.uploader_id,
          patient_id: null,
          // The source caption is free text and may name the patient: the copy gets a neutral one.
          caption: `De-identified ${source.dicom_modality ?? 'DICOM'} image`,
          content_type: 'application/dicom',
          original_name: 'deidentified.dcm',
          size_bytes: stored.size,
          sha256: stored.sha256,
          storage_key: id,
          wrapped_key: stored.wrappedKey,
          key_id: stored.keyId,
          enc_format: stored.format,
          thumbnail_status: columns.dicom_kind === 'image' ? 'pending' : 'none',
          ...columns,
          deidentified: true,
          source_image_id: source.id,
        });
      } catch (err) {
        await store.storage.delete(id).catch(() => undefined);
        throw err;
      }
      if (copy.summary.kind === 'image') images.enqueueThumbnail(id);
      await audit.record({
        userId: actor.userId,
        action: 'dicom.deidentify',
        table: 'images',
        recordId: id,
        ip: actor.ip,
        reason: `source=${source.id} profile=PS3.15-E-basic`,
      });
      return { id, uploaderId: source.uploader_id, patientId: null };
    },

    /** QIDO-RS at study, series or instance level. Audited (the query's UIDs are not recorded). */
    async search(
      actor: Actor,
      level: 'studies' | 'series' | 'instances',
      path: { study?: string; series?: string },
      query: QidoQuery,
    ): Promise<DicomJson[]> {
      const filter = filterOf(query, path);
      const viewer = viewerOf(actor);
      let answer: DicomJson[] = [];
      if (filter) {
        if (level === 'studies') {
          const rows = await repo.studies(viewer, filter, query.limit, query.offset);
          answer = rows.map((r) => ({
            '00080020': attr('DA', da(r.study_date)),
            '00080061': attr('CS', r.modalities.length ? r.modalities : null),
            '00081190': attr('UR', studyUrl(r.study_uid!)),
            '0020000D': attr('UI', r.study_uid),
            '00201206': attr('IS', r.series),
            '00201208': attr('IS', r.instances),
          }));
        } else if (level === 'series') {
          const rows = await repo.series(viewer, filter, query.limit, query.offset);
          answer = rows.map((r) => ({
            '00080060': attr('CS', r.modality),
            '00081190': attr('UR', seriesUrl(r.study_uid!, r.series_uid!)),
            '00180015': attr('CS', r.body_part),
            '0020000D': attr('UI', r.study_uid),
            '0020000E': attr('UI', r.series_uid),
            '00201209': attr('IS', r.instances),
          }));
        } else {
          const rows = await repo.instances(viewer, filter, query.limit, query.offset);
          answer = rows.map((r) => ({
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
          }));
        }
      }
      await audit.record({
        userId: actor.userId,
        action: 'dicomweb.query',
        table: 'images',
        recordId: null,
        ip: actor.ip,
        reason: `level=${level} results=${answer.length}`,
      });
      return answer;
    },

    /** WADO-RS instance: the stored object (a Part 10 file; a bare data set is sent as stored). */
    async instance(actor: Actor, study: string, series: string, sop: string): Promise<Part[]> {
      const image = await findInstance(actor, study, series, sop, 'dicomweb.instance');
      const bytes = await readBlob(image);
      await audit.record({
        userId: actor.userId,
        action: 'dicomweb.instance',
        table: 'images',
        recordId: image.id,
        ip: actor.ip,
      });
      return [{ contentType: 'application/dicom', bytes }];
    },

    /** WADO-RS metadata: the data set in the DICOM JSON model, bulk data (pixel data) left out. */
    async instanceMetadata(actor: Actor, study: string, series: string, sop: string): Promise<DicomJson[]> {
      const image = await findInstance(actor, study, series, sop, 'dicomweb.metadata');
      const json = await engine.json(await readBlob(image));
      await audit.record({
        userId: actor.userId,
        action: 'dicomweb.metadata',
        table: 'images',
        recordId: image.id,
        ip: actor.ip,
      });
      return [json];
    },

    /**
     * WADO-RS frames (1-based list). Native pixel data: application/octet-stream, little endian,
     * transfer-syntax=1.2.840.10008.1.2.1. Encapsulated: each frame's compressed bitstream as
     * stored, with its media type and transfer-syntax in the part header.
     */
    async frames(actor: Actor, study: string, series: string, sop: string, list: string): Promise<Part[]> {
      const numbers = list.split(',').map((s) => Number(s.trim()));
      if (!numbers.length || numbers.length > 1000 || numbers.some((n) => !Number.isInteger(n) || n < 1))
        throw badRequest('Frames are a comma-separated list of frame numbers starting at 1.');
      const image = await findInstance(actor, study, series, sop, 'dicomweb.frames');
      if (image.dicom_kind !== 'image') throw badRequest('This instance has no pixel data.');
      if (numbers.some((n) => n > (image.dicom_frames ?? 1))) throw badRequest('Frame number out of range.');
      const result = await engine.frames(await readBlob(image), numbers);
      await audit.record({
        userId: actor.userId,
        action: 'dicomweb.frames',
        table: 'images',
        recordId: image.id,
        ip: actor.ip,
        reason: `frames=${numbers.length}`,
      });
      const type = result.encapsulated
        ? `${frameMediaType(result.transferSyntaxUid)}; transfer-syntax=${result.transferSyntaxUid}`
        : 'application/octet-stream; transfer-syntax=1.2.840.10008.1.2.1';
      return result.frames.map((bytes) => ({ contentType: type, bytes }));
    },
  };
}
export type DicomService = ReturnType<typeof createDicomService>;

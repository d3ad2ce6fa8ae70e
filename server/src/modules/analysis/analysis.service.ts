import {
  type Analysis,
  type AnalysisFindings,
  AnalysisFindingsSchema,
  type AnalysisHistoryQuery,
  type AnalysisResult,
  AnalysisTexts,
  ImageContentTypeSchema,
  type Pagination,
  type PermissionName,
  cleanFindings,
} from '@medshare/contracts';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { FieldEncryption } from '../../crypto/field-encryption.ts';
import type { Db } from '../../db/db.ts';
import type { AnalysisRow } from '../../db/schema.ts';
import { AppError, badRequest, forbidden, loggedMessage } from '../../errors.ts';
import { paginationOf } from '../../http/envelope.ts';
import type { AuditService } from '../audit/audit.service.ts';
import type { Actor } from '../auth/actor.ts';
import type { ImagesService } from '../images/images.service.ts';
import { analysisInputOf } from './analysis-input.ts';
import type { DicomDecoder } from './dicom-input.ts';
import { createAnalysisRepository } from './analysis.repository.ts';
import type { AnalysisProvider } from './providers/provider.ts';

const RUN: PermissionName = 'analysis:run';

interface Deps {
  db: Db;
  images: Pick<ImagesService, 'openContent'>;
  dicom: DicomDecoder;
  audit: AuditService;
  encryption: FieldEncryption;
  provider: AnalysisProvider;
  log: Logger;
}

/**
 * Lets go of content only its access check was needed for. A stream (a large file): reading one
 * chunk first starts the decrypting generator, so destroying it also closes the blob underneath (a
 * stream destroyed before its first read would leave the file handle to the garbage collector).
 */
async function release(body: Buffer | Readable): Promise<void> {
  if (Buffer.isBuffer(body)) return;
  try {
    for await (const _chunk of body) break;
  } catch {
    // Only the access check mattered; a read problem shows up when the content is really read.
  }
}

/** Binds a sealed result to its row and image: copied elsewhere it no longer opens. */
const resultAad = (id: string, imageId: string) => `medshare:analysis:v1:${id}:${imageId}`;

export function createAnalysisService({ db, images, dicom, audit, encryption, provider, log }: Deps) {
  const repo = createAnalysisRepository(db);
  /** Runs started by GET for an image with no stored result: concurrent callers share one run. */
  const firstRuns = new Map<string, Promise<Analysis>>();

  /**
   * The permission, then the image's content rules (ImagesService.openContent: uploader, admin,
   * verified patient or recipient; 404 for everyone else, audited there as an image read).
   */
  async function openImage(actor: Actor, imageId: string) {
    if (!actor.permissions.has(RUN)) throw forbidden();
    return images.openContent(actor, imageId, 'content', false);
  }

  async function present(row: AnalysisRow): Promise<Analysis> {
    const json = await encryption.open(
      { keyId: row.result_key_id, nonce: row.result_nonce, ciphertext: row.result_ciphertext },
      resultAad(row.id, row.image_id),
    );
    const findings = AnalysisFindingsSchema.parse(JSON.parse(json));
    return {
      id: row.id,
      imageId: row.image_id,
      timestamp: row.created_at.toISOString(),
      provider: row.provider,
      model: row.model,
      disclaimer: AnalysisTexts.disclaimer,
      ...cleanFindings(findings),
    };
  }

  async function run(actor: Actor, opened: Awaited<ReturnType<typeof openImage>>, imageId: string): Promise<Analysis> {
    const auditRun = (status: 'success' | 'failure', recordId: string | null, detail: string) =>
      audit[status === 'success' ? 'record' : 'recordQuietly']({
        userId: actor.userId,
        action: 'analysis.run',
        table: 'analyses',
        recordId,
        ip: actor.ip,
        status,
        reason: `provider=${provider.name} model=${provider.model} image=${imageId}${detail}`,
      });
    let findings: AnalysisFindings;
    try {
      const bytes = Buffer.isBuffer(opened.body) ? opened.body : Buffer.concat(await opened.body.toArray());
      const type = ImageContentTypeSchema.safeParse(opened.contentType);
      if (!type.success) throw badRequest(AnalysisTexts.undecodable);
      const input = await analysisInputOf(bytes, type.data, dicom, actor.userId);
      findings = cleanFindings(
        await provider.analyze(input).catch((err: unknown) => {
          if (err instanceof AppError) throw err;
          // The provider could not read the pixels (a file sharp or the DICOM decoder refuses).
          log.warn({ imageId, problem: loggedMessage(err) }, 'analysis input could not be decoded');
          throw badRequest(AnalysisTexts.undecodable);
        }),
      );
    } catch (err) {
      await auditRun('failure', null, ` error=${err instanceof AppError ? err.code : 'internal'}`);
      throw err;
    }
    const id = randomUUID();
    const sealed = encryption.seal(JSON.stringify(findings), resultAad(id, imageId));
    const row = await repo.create({
      id,
      image_id: imageId,
      requested_by: actor.userId,
      provider: provider.name,
      model: provider.model,
      result_key_id: sealed.keyId,
      result_nonce: sealed.nonce,
      result_ciphertext: sealed.ciphertext,
      created_at: new Date(),
    });
    await auditRun('success', id, '');
    return present(row);
  }

  async function auditView(actor: Actor, analysis: Analysis) {
    await audit.record({
      userId: actor.userId,
      action: 'analysis.view',
      table: 'analyses',
      recordId: analysis.id,
      ip: actor.ip,
      reason: `provider=${analysis.provider} image=${analysis.imageId}`,
    });
  }

  return {
    /** The newest stored analysis of the image, or a first run of the configured provider. */
    async getAnalysis(actor: Actor, imageId: string): Promise<AnalysisResult> {
      const opened = await openImage(actor, imageId);
      const latest = await repo.latestForImage(imageId);
      const pending = firstRuns.get(imageId);
      if (latest || pending) {
        await release(opened.body);
        const analysis = latest ? await present(latest) : await pending!;
        await auditView(actor, analysis);
        return { ...analysis, reused: true };
      }
      const started = run(actor, opened, imageId).finally(() => firstRuns.delete(imageId));
      firstRuns.set(imageId, started);
      return { ...(await started), reused: false };
    },

    /** Re-run: always a fresh analysis, stored beside the earlier ones. */
    async rerun(actor: Actor, imageId: string): Promise<AnalysisResult> {
      const opened = await openImage(actor, imageId);
      return { ...(await run(actor, opened, imageId)), reused: false };
    },

    /** Every stored analysis of the image, newest first. */
    async history(
      actor: Actor,
      imageId: string,
      query: AnalysisHistoryQuery,
    ): Promise<{ items: Analysis[]; pagination: Pagination }> {
      const opened = await openImage(actor, imageId);
      await release(opened.body);
      const { rows, total } = await repo.listForImage(imageId, query.limit, (query.page - 1) * query.limit);
      const items = await Promise.all(rows.map(present));
      await audit.record({
        userId: actor.userId,
        action: 'analysis.history',
        table: 'analyses',
        recordId: null,
        ip: actor.ip,
        reason: `image=${imageId} listed=${items.length}`,
      });
      return { items, pagination: paginationOf(query.page, query.limit, total) };
    },
  };
}
export type AnalysisService = ReturnType<typeof createAnalysisService>;

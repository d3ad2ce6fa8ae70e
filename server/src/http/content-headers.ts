import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { freeWhenSent } from '../storage/free-buffer.ts';

/**
 * The policy of every answer that carries stored user bytes. `sandbox` (no allow-* tokens) gives a
 * document opened from such an answer an opaque origin with no script, forms, popups or plugins:
 * a `%PDF-` file holding HTML, or a PDF with JavaScript, can never act as the app's origin.
 * The app itself never navigates to these URLs (they need the bearer header): it fetches them and
 * shows a blob: URL, whose document follows the app's own policy (docs/decisions.md).
 */
export const STORED_CONTENT_CSP = [
  'sandbox',
  "default-src 'none'",
  "script-src 'none'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Private, never cached, never sniffed, sandboxed: the headers of stored bytes sent as they are. */
export function storedContentHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('cache-control', 'private, no-store')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', STORED_CONTENT_CSP);
}

/** A stored object's answer: its bytes and what the headers say of them (images.service.ts › ContentAnswer). */
export interface StoredContent {
  /**
   * A file up to WHOLE_READ_MAX_BYTES is read and checked whole before the answer (images.service.ts ›
   * bodyOfChecked); a larger one is a stream whose checks fail it before its end.
   */
  body: Buffer | Readable;
  /** A whole read's plaintext pieces, made for this answer alone and freed once sent (freeWhenSent); none for a stream. */
  owned: readonly Buffer[];
  contentType: string;
  size: number;
  disposition: string;
}

/** Sends a stored object with storedContentHeaders, and frees its plaintext once it has gone out. */
export function sendStoredContent(reply: FastifyReply, content: StoredContent): FastifyReply {
  freeWhenSent(reply.raw, content.owned);
  return storedContentHeaders(reply)
    .header('content-type', content.contentType)
    .header('content-length', String(content.size))
    .header('content-disposition', content.disposition)
    .send(content.body);
}

import type { FastifyReply } from 'fastify';

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

import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

type Directives = NonNullable<Exclude<HelmetOptions['contentSecurityPolicy'], boolean | undefined>['directives']>;

/**
 * Helmet's headers on every answer, built once. (@fastify/helmet built a helmet middleware, parsing
 * the policy, and made two nonces on every request: ≈ 4.5 % of the main thread's CPU per image read in
 * the retrieval profile, bench/RESULTS.md › Issue 16.) Answers are API JSON and file bytes, which
 * need no nonce; the HTML pages take one each through `withStyleNonce`.
 */
export function registerSecurityHeaders(
  app: FastifyInstance,
  options: { directives: Directives; hsts: HelmetOptions['strictTransportSecurity'] },
): { withStyleNonce(reply: FastifyReply): string } {
  const common = { strictTransportSecurity: options.hsts, crossOriginEmbedderPolicy: false } as const;
  const apply = helmet({ ...common, contentSecurityPolicy: { useDefaults: false, directives: options.directives } });
  app.addHook('onRequest', (request, reply, done) => {
    apply(request.raw as IncomingMessage, reply.raw as ServerResponse, (err?: unknown) =>
      done(err as Error | undefined),
    );
  });

  const styleSrc = options.directives.styleSrc as string[];
  return {
    /** A fresh nonce for the page's inline styles, and the same policy allowing it (this answer only). */
    withStyleNonce(reply: FastifyReply): string {
      const nonce = randomBytes(16).toString('hex');
      const policy = helmet.contentSecurityPolicy({
        useDefaults: false,
        directives: { ...options.directives, styleSrc: [...styleSrc, `'nonce-${nonce}'`] },
      });
      policy(reply.request.raw, reply.raw, () => {});
      return nonce;
    },
  };
}

import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { existsSync, readFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { type AppContext, createAppContext } from './app-context.ts';
import type { Config } from './config.ts';
import { tooManyRequests } from './errors.ts';
import { registerErrorHandler } from './http/error-handler.ts';
import { loggerOptions } from './http/logger.ts';
import { refuseNulCharacters } from './http/no-nul.ts';
import { registerRefusalAudit } from './http/refusal-audit.ts';
import { indexHtmlByPath } from './http/route-preloads.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { type Metrics, registerMetrics } from './http/metrics.ts';
import { capConnectionsPerAddress, limitSlowBodies, serverTimeouts } from './http/slow-clients.ts';
import { sharedRateLimitStore } from './http/rate-limit-store.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { analysisRoutes } from './modules/analysis/analysis.routes.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { dicomMetadataRoutes, dicomwebRoutes } from './modules/dicom/dicom.routes.ts';
import { stowRoutes } from './modules/dicom/stow.routes.ts';
import { imagesRoutes } from './modules/images/images.routes.ts';
import { messagesRoutes } from './modules/messages/messages.routes.ts';
import { rolesRoutes } from './modules/roles/roles.routes.ts';
import { settingsRoutes } from './modules/settings/settings.routes.ts';
import { sharingRoutes } from './modules/sharing/sharing.routes.ts';
import { studiesRoutes } from './modules/studies/studies.routes.ts';
import { externalLinkRoutes, externalSharesRoutes } from './modules/external-shares/external-shares.routes.ts';
import { adminRoutes, usersRoutes } from './modules/users/users.routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
    /** Served by main.ts on METRICS_PORT (http/metrics.ts), never on the public port. */
    metrics: Metrics;
  }
}

const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));
const NONCE_PLACEHOLDER = /__CSP_NONCE__/g;

/** The whole app as one Fastify instance: plugins first, then routes, then the SPA. */
export async function buildApp(config: Config, options: { logStream?: Writable } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logStream ? { ...loggerOptions(config), stream: options.logStream } : loggerOptions(config),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Slow clients (headers, bodies, idle keep-alive) must not hold sockets: docs/security.md.
    ...serverTimeouts(config.http),
    // Field names and message texts of the product use these; the ids come from our own UUIDs.
    routerOptions: { maxParamLength: 200 },
    ajv: undefined,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  const ctx = await createAppContext(config, app.log as unknown as Logger);
  app.decorate('ctx', ctx);
  app.decorateRequest('actor', null);
  app.addHook('onClose', async () => ctx.close());

  registerErrorHandler(app);
  registerRefusalAudit(app, ctx.services.audit);
  refuseNulCharacters(app);
  capConnectionsPerAddress(app.server, config.http.maxConnectionsPerIp);
  limitSlowBodies(app, config.http);
  // API answers carry PHI: no browser or proxy may keep a copy, whichever path answered (route,
  // error handler, 404, rate limiter). Content answers already say 'private, no-store'.
  app.addHook('onSend', async (request, reply, payload) => {
    if (isApiPath(request.url) && !String(reply.getHeader('cache-control') ?? '').includes('no-store')) {
      reply.header('cache-control', 'no-store');
    }
    return payload;
  });

  const { withStyleNonce } = registerSecurityHeaders(app, {
    directives: {
      defaultSrc: ["'self'"],
      // 'wasm-unsafe-eval' lets the DICOM viewer compile its WebAssembly codecs; it does not allow eval() or inline script.
      scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'blob:', 'data:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'"],
      mediaSrc: ["'self'", 'blob:'],
      workerSrc: ["'self'", 'blob:'],
      frameSrc: ["'self'", 'blob:'],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      ...(config.publicUrl?.startsWith('https:') ? { upgradeInsecureRequests: [] } : {}),
    },
    hsts: { maxAge: 31_536_000, includeSubDomains: true },
  });

  // With REDIS_URL the counters live in Redis, so a limit holds across instances; the prefix is this
  // database's channel name, so deployments (and parallel test runs) sharing a Redis never mix.
  const limiterRedis = config.redisUrl
    ? new Redis(config.redisUrl, {
        connectTimeout: 1_000,
        commandTimeout: 500,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
      })
    : null;
  if (limiterRedis) {
    limiterRedis.on('error', () => undefined); // outages are logged once by the event bus
    app.addHook('onClose', async () => limiterRedis.disconnect());
  }
  await app.register(rateLimit, {
    global: false,
    ...(limiterRedis
      ? { store: sharedRateLimitStore(limiterRedis, `${ctx.realtime.channel.replace(/:events$/, '')}:rate-limit:`) }
      : {}),
    errorResponseBuilder: (_req, context) =>
      tooManyRequests('Too many requests. Please slow down and try again shortly.', context.ttl / 1000),
  });

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'MedShare API',
        version: '1.0.0',
        description: 'Secure medical image sharing. Envelope and errors per docs/architecture.md › API conventions.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  app.decorate('metrics', registerMetrics(app));
  // Not here: on METRICS_PORT only. Without this route the SPA fallback would answer it with a page.
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) =>
    reply.status(404).send({ success: false, code: 'not_found', message: 'Route GET /metrics not found' }),
  );

  app.get('/api/health', { schema: { tags: ['health'], summary: 'The process is up' } }, async () => ({
    success: true,
    data: { status: 'ok' },
  }));
  app.get(
    '/api/ready',
    { schema: { tags: ['health'], summary: 'The database (and storage) answer' } },
    async (_request, reply) => {
      try {
        await sql`select 1`.execute(ctx.database.db);
      } catch {
        return reply.status(503).send({ success: false, code: 'unavailable', message: 'The database is unavailable' });
      }
      try {
        await ctx.services.images.checkStorage();
      } catch {
        return reply.status(503).send({ success: false, code: 'unavailable', message: 'Blob storage is unavailable' });
      }
      return {
        success: true,
        data: { status: 'ready', database: ctx.database.kind, storage: ctx.config.storage.driver },
      };
    },
  );

  await app.register(authRoutes(ctx), { prefix: '/api/auth' });
  await app.register(usersRoutes(ctx), { prefix: '/api/users' });
  await app.register(adminRoutes(ctx), { prefix: '/api/admin' });
  await app.register(rolesRoutes(ctx), { prefix: '/api/roles' });
  await app.register(settingsRoutes(ctx), { prefix: '/api/appsetting' });
  await app.register(auditRoutes(ctx), { prefix: '/api/audit' });
  await app.register(messagesRoutes(ctx), { prefix: '/api/message' });
  await app.register(imagesRoutes(ctx), { prefix: '/api' });
  await app.register(sharingRoutes(ctx), { prefix: '/api/sharing' });
  await app.register(studiesRoutes(ctx), { prefix: '/api/studies' });
  await app.register(externalSharesRoutes(ctx), { prefix: '/api/external-shares' });
  await app.register(externalLinkRoutes(ctx), { prefix: '/api/external' });
  await app.register(dicomMetadataRoutes(ctx), { prefix: '/api' });
  await app.register(dicomwebRoutes(ctx), { prefix: '/api/dicomweb' });
  await app.register(stowRoutes(ctx), { prefix: '/api/dicomweb' });
  await app.register(analysisRoutes(ctx), { prefix: '/api/analysis' });

  await registerWebApp(app, config.webDist ?? DEFAULT_WEB_DIST, withStyleNonce);
  return app;
}

/**
 * Serves the built SPA; index.html gets a fresh CSP nonce per response for Emotion's style tags.
 * The static first pages get their own file when the build made it (`/` landing.html, `/login`
 * login.html: index.html with the page prerendered in it and a boot script in place of the app's entry,
 * web/build/prerender.ts; docs/decisions.md › Static first pages), its inline styles stamped with the
 * same nonce. Every other path gets index.html with its page's chunks preloaded (http/route-preloads.ts).
 */
async function registerWebApp(app: FastifyInstance, dist: string, withStyleNonce: (reply: FastifyReply) => string) {
  const indexPath = `${dist}/index.html`;
  if (!existsSync(indexPath)) {
    app.log.warn({ dist }, 'web app not built; serving the API only (run npm run build -w web)');
    return;
  }
  const indexHtml = readFileSync(indexPath, 'utf8');
  const staticPage = (file: string) =>
    existsSync(`${dist}/${file}`) ? readFileSync(`${dist}/${file}`, 'utf8') : indexHtml;
  const staticPages = { '/': staticPage('landing.html'), '/login': staticPage('login.html') };
  const indexFor = indexHtmlByPath(dist, indexHtml);
  await app.register(fastifyStatic, {
    root: dist,
    index: false,
    wildcard: false,
    // The build writes .br and .gz beside each asset (web/build/precompress.ts); sent by Accept-Encoding.
    preCompressed: true,
    setHeaders: (reply, path) => {
      reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const sendIndex = (reply: FastifyReply, template = indexHtml) => {
    const html = template.replace(NONCE_PLACEHOLDER, withStyleNonce(reply));
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').header('vary', 'accept-encoding');
    // The nonce makes each answer unique, so it cannot be compressed at build time like the assets.
    // gzip (level 6) takes about a millisecond for the 67 KB landing page and sends 12 KB.
    if (!/\bgzip\b/.test(String(reply.request.headers['accept-encoding'] ?? ''))) return reply.send(html);
    return reply.header('content-encoding', 'gzip').send(gzipSync(html));
  };
  for (const [path, html] of Object.entries(staticPages))
    app.get(path, { schema: { hide: true } }, (_request, reply) => sendIndex(reply, html));
  app.get('/*', { schema: { hide: true } }, (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (isApiPath(path)) {
      return reply
        .status(404)
        .send({ success: false, code: 'not_found', message: `Route ${request.method} ${path} not found` });
    }
    return sendIndex(reply, indexFor(path));
  });
}

function isApiPath(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
}

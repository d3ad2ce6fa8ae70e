import { AUDIT_REFUSAL_ACTION } from '@medshare/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuditScope, auditScope } from '../modules/audit/audit-scope.ts';
import type { AuditService } from '../modules/audit/audit.service.ts';
import { bearerToken } from './auth-hooks.ts';

declare module 'fastify' {
  interface FastifyRequest {
    auditScope: AuditScope | null;
  }
}

const REFUSALS = new Set([401, 403, 404]);
// The most specific first: a DICOM instance rather than its study.
const ID_PARAMS = ['id', 'userId', 'imageId', 'instance', 'series', 'study'] as const;

export interface RefusalBudget {
  /** Rows one actor (or, for a refused token, one address) may add per minute. */
  perKeyPerMinute: number;
  /** Rows the whole process may add per minute. */
  perMinute: number;
  /** Distinct keys tracked per minute; past it only the process budget applies. */
  maxKeys: number;
}
export const REFUSAL_BUDGET: RefusalBudget = { perKeyPerMinute: 30, perMinute: 600, maxKeys: 10_000 };

/**
 * Every 401/403/404 of an API route answered to a signed-in caller, or to a bearer token that was
 * refused (expired, revoked, forged), gets one `access.denied` row: route pattern (never the raw
 * URL), method, status and the target id, before the answer leaves. Callers without any token are
 * not recorded (nothing names them, and anyone could fill the chain); sign-in failures are audited
 * by the auth module. A request whose service already recorded a failure row (a wrong share code,
 * an image that is not visible) gets no second one.
 *
 * Bounded so that refusals cannot flood the chain: `perKeyPerMinute` rows per actor (or address),
 * `perMinute` per process; what is left out is counted into the key's next row (`suppressed=N`)
 * and logged.
 */
export function registerRefusalAudit(app: FastifyInstance, audit: AuditService, budget = REFUSAL_BUDGET) {
  let windowStart = Date.now();
  let total = 0;
  const perKey = new Map<string, { rows: number; suppressed: number }>();

  /** Whether a row for `key` fits this minute's budget; how many were left out before it. */
  function admit(key: string, log: FastifyRequest['log']): { ok: boolean; suppressed: number } {
    const now = Date.now();
    if (now - windowStart >= 60_000) {
      windowStart = now;
      total = 0;
      // Counts of keys that were suppressed carry over, so that their next row names them.
      for (const [k, v] of perKey) if (v.suppressed === 0) perKey.delete(k);
      for (const v of perKey.values()) v.rows = 0;
    }
    let entry = perKey.get(key);
    if (!entry && perKey.size < budget.maxKeys) perKey.set(key, (entry = { rows: 0, suppressed: 0 }));
    if (total >= budget.perMinute || (entry && entry.rows >= budget.perKeyPerMinute)) {
      if (entry && entry.suppressed++ === 0) log.warn({ key }, 'refusal audit budget spent; counting instead');
      return { ok: false, suppressed: 0 };
    }
    total++;
    const suppressed = entry?.suppressed ?? 0;
    if (entry) {
      entry.rows++;
      entry.suppressed = 0;
    }
    return { ok: true, suppressed };
  }

  app.decorateRequest('auditScope', null);
  app.addHook('onRequest', async (request) => {
    request.auditScope = { failureRecorded: false };
  });
  // Entered after the body is parsed: the parser's stream callbacks would lose an earlier context.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.auditScope) auditScope.run(request.auditScope, done);
    else done();
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const status = reply.statusCode;
    const route = request.routeOptions.url;
    if (!REFUSALS.has(status) || !route?.startsWith('/api') || request.auditScope?.failureRecorded) return payload;
    const actor = request.actor;
    if (!actor && (status !== 401 || bearerToken(request) === null)) return payload;
    const key = actor ? `user:${actor.userId}` : `ip:${request.ip}`;
    const { ok, suppressed } = admit(key, request.log);
    if (!ok) return payload;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const target = ID_PARAMS.map((p) => params[p]).find((v): v is string => typeof v === 'string');
    let code: string | undefined;
    if (typeof payload === 'string' && payload.length < 4096) {
      try {
        code = (JSON.parse(payload) as { code?: unknown }).code as string | undefined;
      } catch {
        code = undefined;
      }
    }
    await audit.recordQuietly({
      userId: actor?.userId ?? null,
      action: AUDIT_REFUSAL_ACTION,
      recordId: target ? target.slice(0, 200) : null,
      ip: actor?.ip ?? request.ip,
      status: 'failure',
      reason: [
        `${request.method} ${route} ${status}`,
        typeof code === 'string' ? `code=${code.slice(0, 40)}` : null,
        suppressed ? `suppressed=${suppressed}` : null,
      ]
        .filter(Boolean)
        .join('; '),
    });
    return payload;
  });
}

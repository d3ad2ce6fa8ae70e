import { AuthFailure, type PermissionName } from '@medshare/contracts';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { forbidden, unauthenticated } from '../errors.ts';
import type { Actor } from '../modules/auth/actor.ts';
import type { AuthService } from '../modules/auth/auth.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor | null;
  }
}

/** Bearer header only: a token in a URL would end up in logs and browser history (ASVS 14.2.1). */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]{10,4096})$/.exec(header);
  return match ? match[1]! : '';
}

export function createAuthHooks(auth: AuthService) {
  const authenticate: preHandlerAsyncHookHandler = async (request: FastifyRequest, _reply: FastifyReply) => {
    const token = bearerToken(request);
    if (token === null) throw unauthenticated(AuthFailure.missing);
    if (token === '') throw unauthenticated(AuthFailure.invalid, 'invalid_token');
    request.actor = await auth.authenticate(token, request.ip);
  };

  /** Authenticates, then requires every listed permission. */
  function requirePermission(...permissions: PermissionName[]): preHandlerAsyncHookHandler {
    return async function (this: unknown, request, reply) {
      await authenticate.call(this as never, request, reply);
      const actor = request.actor!;
      if (!permissions.every((p) => actor.permissions.has(p))) throw forbidden();
    };
  }

  return { authenticate, requirePermission };
}
export type AuthHooks = ReturnType<typeof createAuthHooks>;

export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw unauthenticated(AuthFailure.missing);
  return request.actor;
}

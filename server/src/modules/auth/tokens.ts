import { AuthFailure } from '@medshare/contracts';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { unauthenticated } from '../../errors.ts';

const ISSUER = 'medshare';
const AUDIENCE = 'medshare-api';

export interface TokenClaims {
  sub: string;
  sid: string;
}

/**
 * Each part of a compact JWT in the one encoding we issue: base64url without padding. The last
 * character of a part carries spare bits that decoders ignore, and some accept `=`, so several
 * strings decode to the same bytes; only the canonical one is a token.
 */
function isCanonical(token: string): boolean {
  const parts = token.split('.');
  return (
    parts.length === 3 &&
    parts.every(
      (part) => /^[A-Za-z0-9_-]+$/.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part,
    )
  );
}

/** Verified tokens remembered (up to this many, the oldest dropped first): the signature check costs more than a request's own work. */
const VERIFIED_CACHE_SIZE = 10_000;

export function createTokenSigner(secret: Buffer) {
  // Token → its claims and expiry (ms). Only tokens that passed every check get in, and a hit is
  // the same bytes that passed, so it proves what the signature check proved; expiry is checked
  // on every use, and the session behind the token is still looked up on every request.
  const verified = new Map<string, TokenClaims & { expiresAt: number }>();

  return {
    sign: (claims: TokenClaims, expiresAt: Date) =>
      new SignJWT({ sid: claims.sid })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.sub)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(secret),

    /** Only HS256 with our secret, issuer and audience; `alg: none` and other algorithms are refused. */
    async verify(token: string): Promise<TokenClaims> {
      const known = verified.get(token);
      if (known) {
        if (known.expiresAt > Date.now()) return { sub: known.sub, sid: known.sid };
        verified.delete(token);
        throw unauthenticated(AuthFailure.expired, 'token_expired');
      }
      if (!isCanonical(token)) throw unauthenticated(AuthFailure.invalid, 'invalid_token');
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
        });
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number')
          throw unauthenticated(AuthFailure.invalid, 'invalid_token');
        if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
        verified.set(token, { sub: payload.sub, sid: payload.sid, expiresAt: payload.exp * 1000 });
        return { sub: payload.sub, sid: payload.sid };
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) throw unauthenticated(AuthFailure.expired, 'token_expired');
        throw unauthenticated(AuthFailure.invalid, 'invalid_token');
      }
    },
  };
}
export type TokenSigner = ReturnType<typeof createTokenSigner>;

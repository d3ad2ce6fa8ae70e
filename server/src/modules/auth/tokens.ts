import { AuthFailure } from '@medshare/contracts';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { unauthenticated } from '../../errors.ts';

const ISSUER = 'medshare';
const AUDIENCE = 'medshare-api';

export interface TokenClaims {
  sub: string;
  sid: string;
}

export function createTokenSigner(secret: Buffer) {
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
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
        });
        if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string')
          throw unauthenticated(AuthFailure.invalid, 'invalid_token');
        return { sub: payload.sub, sid: payload.sid };
      } catch (err) {
        if (err instanceof joseErrors.JWTExpired) throw unauthenticated(AuthFailure.expired, 'token_expired');
        throw unauthenticated(AuthFailure.invalid, 'invalid_token');
      }
    },
  };
}
export type TokenSigner = ReturnType<typeof createTokenSigner>;

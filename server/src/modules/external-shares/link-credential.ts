import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

/** The cookie a link holder's browser sends back, only to /api/external (`docs/security.md`). */
export const LINK_COOKIE = 'medshare_link';
export const LINK_COOKIE_PATH = '/api/external';

/** How long a code, once entered, opens the share in that browser (never past the share's end). */
export const CREDENTIAL_HOURS = 2;

const ISSUER = 'medshare';
const AUDIENCE = 'medshare-external-link';

export interface LinkClaims {
  shareId: string;
  generation: number;
}

/**
 * A short-lived credential scoped to one external share: its own key (derived, so it can never pass as a
 * session token, whose audience also differs), the share's id and generation, an expiry. The share row
 * is read again on every request, so revocation, expiry and re-issue hold on the next one.
 */
export function createLinkCredentials(secret: Buffer) {
  const key = createHash('sha256').update('medshare external link credential\0').update(secret).digest();
  return {
    sign: (claims: LinkClaims, expiresAt: Date) =>
      new SignJWT({ gen: claims.generation })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.shareId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(key),

    /** The claims, or null for anything not issued by us, altered or expired. */
    async verify(token: string): Promise<LinkClaims | null> {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE });
        if (typeof payload.sub !== 'string' || typeof payload.gen !== 'number') return null;
        return { shareId: payload.sub, generation: payload.gen };
      } catch {
        return null;
      }
    },
  };
}
export type LinkCredentials = ReturnType<typeof createLinkCredentials>;

/** The cookie's value from a Cookie header (the first: browsers send the most specific path first). */
export function linkCookieOf(header: string | undefined): string | null {
  if (!header) return null;
  let found: string | null = null;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === LINK_COOKIE && rest.length) found ??= rest.join('=');
  }
  return found;
}

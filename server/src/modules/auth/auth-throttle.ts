import { createHash } from 'node:crypto';
import type { Db } from '../../db/db.ts';
import { tooManyRequests } from '../../errors.ts';
import { addressBlock } from '../../http/client-address.ts';
import { createAuthThrottleRepository } from './auth-throttle.repository.ts';

/**
 * Password tries are counted per (e-mail, client address) and per client address, never per
 * account alone: someone else's wrong guesses cannot lock an owner out from their own device, and
 * an e-mail with no account is counted exactly like one with an account, so a 429 tells nothing.
 */
export interface ThrottleLimits {
  /** Every this-many-th try of one e-mail from one address locks that pair. */
  pairEvery: number;
  /** The first lock of a pair; each further lock doubles it, up to `pairLockMaxMinutes`. */
  pairLockMinutes: number;
  pairLockMaxMinutes: number;
  /** A pair's count is forgotten this long after its last try or the end of its lock. */
  pairForgetMinutes: number;
  /** Wrong passwords an address may send per hour, whatever the e-mails. */
  addressPerHour: number;
  /** Sign-in codes re-sent per account per hour; a locked or used code does not give any back. */
  resendsPerHour: number;
  /** "Someone tried to register with your e-mail" mails per account per hour. */
  registrationNoticesPerHour: number;
}

export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = {
  pairEvery: 5,
  pairLockMinutes: 15,
  pairLockMaxMinutes: 24 * 60,
  pairForgetMinutes: 24 * 60,
  addressPerHour: 100,
  resendsPerHour: 3,
  registrationNoticesPerHour: 3,
};

export const THROTTLED_MESSAGE = 'Too many failed sign-in attempts. Try again later.';
const PRUNE_INTERVAL_MS = 60_000;

/** Keys are hashes: the table never holds an e-mail or an address. */
export const keyOf = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('base64url');

export function createAuthThrottle(db: Db, limits: ThrottleLimits = DEFAULT_THROTTLE_LIMITS) {
  const repo = createAuthThrottleRepository(db);
  // By address block (an IPv6 address's /64): each address of a /64 counted apart gave one client
  // a fresh budget per address (three addresses of one /64, fifteen passwords checked).
  const pairKey = (email: string, ip: string | null) => keyOf('password', email.toLowerCase(), addressBlock(ip) ?? '-');
  const addressKey = (ip: string | null) => keyOf('address', addressBlock(ip) ?? '-');
  let prunedAt = 0;

  async function pruneNowAndThen() {
    if (Date.now() - prunedAt < PRUNE_INTERVAL_MS) return;
    prunedAt = Date.now();
    await repo.prune();
  }

  const secondsUntil = (at: Date | null) => Math.max(1, ((at?.getTime() ?? Date.now()) - Date.now()) / 1000);

  return {
    limits,

    /**
     * Takes one password try for this e-mail from this address before the password is checked (so
     * parallel guesses cannot outrun a lock); throws 429 when either the pair or the address is spent.
     */
    async takePasswordTry(email: string, ip: string | null): Promise<void> {
      await pruneNowAndThen();
      const address = await repo.hitWindow(addressKey(ip), 3_600);
      if (address.hits > limits.addressPerHour)
        throw tooManyRequests(THROTTLED_MESSAGE, secondsUntil(address.windowEndsAt));
      const pair = await repo.takeLockedTry(pairKey(email, ip), {
        every: limits.pairEvery,
        baseMinutes: limits.pairLockMinutes,
        maxMinutes: limits.pairLockMaxMinutes,
        forgetMinutes: limits.pairForgetMinutes,
      });
      if (!pair) {
        // No password was checked: the address keeps this try.
        await repo.giveBack(addressKey(ip));
        throw tooManyRequests(THROTTLED_MESSAGE, secondsUntil(await repo.lockedUntil(pairKey(email, ip))));
      }
    },

    /** A right password: the pair starts afresh and the try does not count against the address. */
    async passwordAccepted(email: string, ip: string | null): Promise<void> {
      await repo.forget(pairKey(email, ip));
      await repo.giveBack(addressKey(ip));
    },

    /** After a reset through the mailbox, this device may sign in again at once. */
    forgetPair: (email: string, ip: string | null) => repo.forget(pairKey(email, ip)),

    /**
     * A sign-in of this account passed the password (or set it, at registration): codes may be
     * re-sent for `seconds` from now, and not longer, however often they are re-sent meanwhile.
     */
    passwordSignIn: (userId: string, seconds: number) => repo.mark(keyOf('signin', userId), seconds),
    inPasswordSignIn: (userId: string) => repo.isMarked(keyOf('signin', userId)),

    /**
     * Counts one "someone tried to register with your e-mail" mail to an account; false when the
     * hour's are spent. Registrations come from anyone: without it, anyone could fill an owner's
     * mailbox at the route's rate (20 a minute per address).
     */
    async takeRegistrationNotice(userId: string): Promise<boolean> {
      const { hits } = await repo.hitWindow(keyOf('register-notice', userId), 3_600);
      return hits <= limits.registrationNoticesPerHour;
    },

    /** Counts one code resend of an account; false when the hour's budget is spent. */
    async takeResend(userId: string): Promise<boolean> {
      const { hits } = await repo.hitWindow(keyOf('resend', userId), 3_600);
      return hits <= limits.resendsPerHour;
    },
  };
}
export type AuthThrottle = ReturnType<typeof createAuthThrottle>;

import { hash, verify } from '@node-rs/argon2';

// Algorithm.Argon2id; the enum is a const enum that erasable TypeScript cannot import.
const ARGON2ID = 2;
import { createHash, randomBytes, randomInt } from 'node:crypto';

export interface HashCost {
  memoryCost: number;
  timeCost: number;
}

/** argon2id with explicit OWASP parameters (m ≥ 19 MiB, t = 2, p = 1). */
export function createPasswordHasher(cost: HashCost) {
  const options = { algorithm: ARGON2ID, memoryCost: cost.memoryCost, timeCost: cost.timeCost, parallelism: 1 };
  // Verifying against this when an account does not exist keeps login time independent of it.
  const dummy = hash(randomBytes(16).toString('hex'), options);
  return {
    hash: (secret: string) => hash(secret, options),
    async verify(stored: string | null, secret: string): Promise<boolean> {
      if (!stored) {
        await verify(await dummy, secret).catch(() => false);
        return false;
      }
      try {
        return await verify(stored, secret);
      } catch {
        return false;
      }
    },
  };
}
export type PasswordHasher = ReturnType<typeof createPasswordHasher>;

/** A 6-digit code from the CSPRNG. */
export function generateCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** An opaque high-entropy token for links; stored as SHA-256 only. */
export function generateLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}

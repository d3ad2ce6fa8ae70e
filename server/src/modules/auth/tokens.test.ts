import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTokenSigner } from './tokens.ts';

const claims = { sub: '6f1c1a52-55b8-4b8e-9d35-2f0d1b7c9a10', sid: '0b8e1f44-2c7d-4a51-8e3b-5d6a7c8b9e01' };

afterEach(() => vi.useRealTimers());

describe('token signer', () => {
  it('accepts its own token, again from the verified cache, and refuses every altered copy', async () => {
    const signer = createTokenSigner(randomBytes(32));
    const token = await signer.sign(claims, new Date(Date.now() + 60_000));
    expect(await signer.verify(token)).toEqual(claims);
    expect(await signer.verify(token)).toEqual(claims);
    const [header, payload, signature] = token.split('.');
    const flipped = signature!.slice(0, -2) + (signature!.slice(-2) === 'AA' ? 'AB' : 'AA');
    await expect(signer.verify(`${header}.${payload}.${flipped}`)).rejects.toMatchObject({ code: 'invalid_token' });
    const otherPayload = Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url');
    await expect(signer.verify(`${header}.${otherPayload}.${signature}`)).rejects.toMatchObject({
      code: 'invalid_token',
    });
    await expect(createTokenSigner(randomBytes(32)).verify(token)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('accepts only the canonical encoding: no variant last characters, no padding', async () => {
    const signer = createTokenSigner(randomBytes(32));
    const token = await signer.sign(claims, new Date(Date.now() + 60_000));
    const parts = token.split('.');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const variants: string[] = [];
    parts.forEach((part, i) => {
      const at = (p: string) => parts.map((q, j) => (j === i ? p : q)).join('.');
      // Same bytes, other text: a last character differing only in the bits the decoder drops.
      for (const c of alphabet) {
        const other = part.slice(0, -1) + c;
        if (other !== part && Buffer.from(other, 'base64url').equals(Buffer.from(part, 'base64url')))
          variants.push(at(other));
      }
      variants.push(at(`${part}=`), at(`${part}==`));
    });
    // The HS256 signature (32 bytes in 43 characters) has 2 spare bits: 3 variants of its last character.
    expect(variants.filter((v) => v.split('.')[2]!.length === 43 && v.split('.')[2] !== parts[2]).length).toBe(3);
    for (const variant of variants) {
      await expect(signer.verify(variant), variant).rejects.toMatchObject({ code: 'invalid_token' });
    }
    // And still after the canonical token is in the verified cache.
    expect(await signer.verify(token)).toEqual(claims);
    for (const variant of variants)
      await expect(signer.verify(variant)).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuses a cached token once it has expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-23T10:00:00Z'));
    const signer = createTokenSigner(randomBytes(32));
    const token = await signer.sign(claims, new Date('2026-11-23T10:15:00Z'));
    expect(await signer.verify(token)).toEqual(claims);
    vi.setSystemTime(new Date('2026-11-23T10:14:59Z'));
    expect(await signer.verify(token)).toEqual(claims);
    vi.setSystemTime(new Date('2026-11-23T10:15:00Z'));
    await expect(signer.verify(token)).rejects.toMatchObject({ code: 'token_expired' });
    await expect(signer.verify(token)).rejects.toMatchObject({ code: 'token_expired' });
  });
});

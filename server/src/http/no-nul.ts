import type { FastifyInstance } from 'fastify';
import { validationFailed } from '../errors.ts';

/**
 * PostgreSQL text cannot hold U+0000, so a NUL that reached a query answered 500. A NUL anywhere
 * in the path, query or JSON body is bad input: 400 before any route sees it.
 */
export function refuseNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const field = nulIn(request.params, '') ?? nulIn(request.query, '') ?? nulIn(request.body, '');
    if (field !== null)
      throw validationFailed([{ field: field || 'body', message: 'Text must not contain NUL characters' }]);
  });
}

/** The dotted name of the first string holding a NUL, or null. */
function nulIn(value: unknown, at: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? at : null;
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || depth > 32) return null;
  for (const [key, item] of Object.entries(value)) {
    const name = at ? `${at}.${key}` : key;
    const found = key.includes('\u0000') ? name : nulIn(item, name, depth + 1);
    if (found !== null) return found;
  }
  return null;
}

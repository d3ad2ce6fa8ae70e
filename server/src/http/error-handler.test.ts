import { ErrorResponseSchema } from '@medshare/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { badRequest } from '../errors.ts';
import { registerErrorHandler } from './error-handler.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  app.withTypeProvider<ZodTypeProvider>().post(
    '/check',
    {
      schema: {
        body: z.strictObject({
          token: z.string().min(20),
          code: z.string().regex(/^\d{6}$/, 'Code must be exactly 6 digits'),
          firstname: z.string().trim().min(1, 'First name is required'),
          email: z.email(),
          age: z.number().int().optional(),
        }),
      },
    },
    async () => ({ ok: true }),
  );
  app.post('/domain', async () => {
    throw badRequest('Invalid or expired code', [{ field: 'code', message: 'Invalid or expired code' }]);
  });
  await app.ready();
});

afterAll(() => app.close());

describe('field error codes (docs/product.md › Messages and errors)', () => {
  it("gives zod's own wording its issue code, and a schema's own message 'rejected'", async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/check',
      payload: { token: 'short', code: '12', firstname: ' ', email: 'nope', age: 'x', extra: 1 },
    });
    expect(res.statusCode).toBe(400);
    const body = ErrorResponseSchema.parse(res.json());
    expect(body.code).toBe('validation_failed');
    const byField = Object.fromEntries((body.errors ?? []).map((e) => [e.field, e]));
    expect(byField.token).toEqual({
      field: 'token',
      code: 'too_small',
      message: 'Too small: expected string to have >=20 characters',
    });
    expect(byField.code).toEqual({ field: 'code', code: 'rejected', message: 'Code must be exactly 6 digits' });
    expect(byField.firstname).toEqual({ field: 'firstname', code: 'rejected', message: 'First name is required' });
    expect(byField.email?.code).toBe('invalid_format');
    expect(byField.age?.code).toBe('invalid_type');
    expect(byField.extra).toEqual({ field: 'extra', code: 'unrecognized_keys', message: 'Unknown field' });
  });

  it("marks the server's own field errors 'rejected' unless they carry a code", async () => {
    const res = await app.inject({ method: 'POST', url: '/domain' });
    expect(res.statusCode).toBe(400);
    expect(ErrorResponseSchema.parse(res.json()).errors).toEqual([
      { field: 'code', code: 'rejected', message: 'Invalid or expired code' },
    ]);
  });
});

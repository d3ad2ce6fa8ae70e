import {
  AuthMessages,
  ConfirmBodySchema,
  ConfirmResponseDataSchema,
  ErrorResponseSchema,
  ForgotPasswordBodySchema,
  LoginBodySchema,
  LoginResponseDataSchema,
  MessageOnlyResponseSchema,
  RegisterBodySchema,
  RegisterResponseDataSchema,
  ResendCodeBodySchema,
  ResetPasswordBodySchema,
  envelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ok } from '../../http/envelope.ts';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';

const errors = {
  400: ErrorResponseSchema,
  401: ErrorResponseSchema,
  403: ErrorResponseSchema,
  409: ErrorResponseSchema,
  429: ErrorResponseSchema,
};

export function authRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { auth } = ctx.services;
  const limited = { rateLimit: { max: ctx.config.rateLimits.authPerMinute, timeWindow: '1 minute' } };
  const reqCtx = (r: { ip: string; headers: { 'user-agent'?: string } }) => ({
    ip: r.ip,
    userAgent: r.headers['user-agent'] ?? null,
  });

  return async (app) => {
    app.post(
      '/register',
      {
        config: limited,
        schema: {
          tags: ['auth'],
          summary: 'Self-register as patient or healthProvider; mails a 6-digit code',
          body: RegisterBodySchema,
          response: { 201: envelope(RegisterResponseDataSchema), ...errors },
        },
      },
      async (request, reply) => {
        const data = await auth.register(request.body, reqCtx(request));
        return reply
          .status(201)
          .send(ok(data, data.pending ? AuthMessages.providerUnderReview : 'Registration successful!'));
      },
    );

    app.post(
      '/login',
      {
        config: limited,
        schema: {
          tags: ['auth'],
          summary: 'Check the password and mail the second-factor code',
          body: LoginBodySchema,
          response: { 200: envelope(LoginResponseDataSchema), ...errors },
        },
      },
      async (request) => ok(await auth.login(request.body, reqCtx(request)), AuthMessages.codeSent),
    );

    app.post(
      '/confirm',
      {
        config: limited,
        schema: {
          tags: ['auth'],
          summary: 'Confirm the e-mail or complete a login with the mailed code',
          body: ConfirmBodySchema,
          response: { 200: envelope(ConfirmResponseDataSchema), ...errors },
        },
      },
      async (request) => {
        const { data, message } = await auth.confirm(request.body, reqCtx(request));
        return ok(data, message);
      },
    );

    app.post(
      '/resend-code',
      {
        config: limited,
        schema: {
          tags: ['auth'],
          summary: 'Send the open verification code again (at most once a minute)',
          body: ResendCodeBodySchema,
          response: { 200: MessageOnlyResponseSchema, ...errors },
        },
      },
      async (request) => {
        await auth.resendCode(request.body.email, reqCtx(request));
        return {
          success: true as const,
          message: 'If a code is pending for this e-mail, a new one has been sent.',
          data: null,
        };
      },
    );

    app.post(
      '/forgot-password',
      {
        config: limited,
        schema: {
          tags: ['auth'],
          summary: 'Mail a reset code and link; same answer whether or not the account exists',
          body: ForgotPasswordBodySchema,
          response: { 200: MessageOnlyResponseSchema, ...errors },
        },
      },
      async (request) => {
        await auth.forgotPassword(request.body.email, reqCtx(request));
        return { success: true as const, message: AuthMessages.forgotAnswer, data: null };
      },
    );

    app.post(
      '/reset-password',
      {
        config: limited,
        schema: {
          tags: ['auth'],
          summary: 'Reset with {email, otp, newPassword} or {token, password}; ends every session',
          body: ResetPasswordBodySchema,
          response: { 200: MessageOnlyResponseSchema, ...errors },
        },
      },
      async (request) => {
        await auth.resetPassword(request.body, reqCtx(request));
        return { success: true as const, message: AuthMessages.passwordReset, data: null };
      },
    );

    app.post(
      '/logout',
      {
        preHandler: ctx.hooks.authenticate,
        schema: {
          tags: ['auth'],
          summary: 'End this session on the server',
          security: [{ bearer: [] }],
          response: { 200: MessageOnlyResponseSchema, 401: ErrorResponseSchema },
        },
      },
      async (request) => {
        await auth.logout(actorOf(request));
        return { success: true as const, message: AuthMessages.loggedOut, data: null };
      },
    );
  };
}

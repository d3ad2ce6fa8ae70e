import {
  AuthMessages,
  ConfirmBodySchema,
  ConfirmResponseDataSchema,
  ForgotPasswordBodySchema,
  LoginBodySchema,
  LoginResponseDataSchema,
  MessageOnlyResponseSchema,
  RegisterBodySchema,
  RegisterResponseDataSchema,
  ResendCodeBodySchema,
  ResetPasswordBodySchema,
  SessionStatusSchema,
  envelope,
} from '@medshare/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ok } from '../../http/envelope.ts';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/auth-hooks.ts';
import { routeDocs } from '../../http/route-schema.ts';

const docs = routeDocs('auth');

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
        schema: docs.open([400, 401, 403, 409, 429], {
          summary:
            'Self-register as patient or healthProvider; mails a 6-digit code. A taken e-mail answers the same (its owner is mailed instead); a taken username answers 409',
          body: RegisterBodySchema,
          response: { 201: envelope(RegisterResponseDataSchema) },
        }),
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
        schema: docs.open([400, 401, 403, 409, 429], {
          summary:
            'Check the password and mail the second-factor code; 429 after 5 wrong passwords for one e-mail from one address (15 min, doubling) or 100 from one address in an hour',
          body: LoginBodySchema,
          response: { 200: envelope(LoginResponseDataSchema) },
        }),
      },
      async (request) => ok(await auth.login(request.body, reqCtx(request)), AuthMessages.codeSent),
    );

    app.post(
      '/confirm',
      {
        config: limited,
        schema: docs.open([400, 401, 403, 409, 429], {
          summary: 'Confirm the e-mail or complete a login with the mailed code',
          body: ConfirmBodySchema,
          response: { 200: envelope(ConfirmResponseDataSchema) },
        }),
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
        schema: docs.open([400, 401, 403, 409, 429], {
          summary:
            'Send a new code for a sign-in that passed the password (code unused, not locked, under an hour old; once a minute, 3 an hour per account); same answer either way',
          body: ResendCodeBodySchema,
          response: { 200: MessageOnlyResponseSchema },
        }),
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
        schema: docs.open([400, 401, 403, 409, 429], {
          summary: 'Mail a reset code and link; same answer whether or not the account exists',
          body: ForgotPasswordBodySchema,
          response: { 200: MessageOnlyResponseSchema },
        }),
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
        schema: docs.open([400, 401, 403, 409, 429], {
          summary: 'Reset with {email, otp, newPassword} or {token, password}; ends every session',
          body: ResetPasswordBodySchema,
          response: { 200: MessageOnlyResponseSchema },
        }),
      },
      async (request) => {
        await auth.resetPassword(request.body, reqCtx(request));
        return { success: true as const, message: AuthMessages.passwordReset, data: null };
      },
    );

    app.get(
      '/session',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([401], {
          summary:
            "This session's idle limit and absolute end, for the client's automatic sign-out; asking counts as activity",
          response: { 200: envelope(SessionStatusSchema) },
        }),
      },
      async (request) => ok(await auth.sessionStatus(actorOf(request))),
    );

    app.post(
      '/logout',
      {
        preHandler: ctx.hooks.authenticate,
        schema: docs.signedIn([401], {
          summary: 'End this session on the server',
          response: { 200: MessageOnlyResponseSchema },
        }),
      },
      async (request) => {
        await auth.logout(actorOf(request));
        return { success: true as const, message: AuthMessages.loggedOut, data: null };
      },
    );
  };
}

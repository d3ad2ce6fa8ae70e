import { z } from 'zod';
import { DateOfBirthSchema, EmailSchema, SelfRegisterRoleSchema, optionalText } from './common.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from './constants.ts';
import { GenderSchema, UserSchema } from './users.ts';

export const PasswordSchema = z
  .string()
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

export const CodeSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'Code must be exactly 6 digits');

/**
 * The register payload as the wizard sends it (`docs/product.md` › Calls). `active` is accepted and ignored:
 * only the server's rules activate an account. Roles other than patient/healthProvider are refused.
 */
export const RegisterBodySchema = z.strictObject({
  role: SelfRegisterRoleSchema,
  email: EmailSchema,
  username: z
    .string()
    .trim()
    .min(3, 'Username must be at least 3 characters')
    .max(40)
    .regex(/^[A-Za-z0-9._-]+$/, 'Username may contain letters, digits, dot, dash and underscore'),
  password: PasswordSchema,
  active: z.boolean().optional().describe('Ignored; accounts are activated by the server rules'),
  firstname: z.string().trim().min(1, 'First name is required').max(100),
  lastname: z.string().trim().min(1, 'Last name is required').max(100),
  dob: z.union([DateOfBirthSchema, z.literal('')]).nullish(),
  gender: z.union([GenderSchema, z.literal('')]).nullish(),
  phone: optionalText(40),
  city: optionalText(100),
  state: optionalText(100),
  country: optionalText(100),
  zipcode: optionalText(20),
  address: optionalText(300),
  bio: optionalText(2000),
  licensenumber: optionalText(100),
  insurancenumber: optionalText(100),
  taxid: optionalText(100),
  specialization: optionalText(200),
  bloodgroup: optionalText(10),
  primphysician: optionalText(200),
});
export type RegisterBody = z.infer<typeof RegisterBodySchema>;

export const RegisterResponseDataSchema = z.object({
  user: UserSchema,
  pending: z.boolean().describe('True for providers until an admin activates the account'),
});

export const LoginBodySchema = z.strictObject({
  email: EmailSchema,
  password: z.string().min(1, 'Password is required').max(PASSWORD_MAX),
});
export type LoginBody = z.infer<typeof LoginBodySchema>;

export const LoginResponseDataSchema = z.object({
  otpRequired: z.literal(true),
  email: z.string(),
});

export const ConfirmBodySchema = z.strictObject({
  email: EmailSchema,
  code: CodeSchema,
});
export type ConfirmBody = z.infer<typeof ConfirmBodySchema>;

export const SessionDataSchema = z.object({
  token: z.string(),
  user: UserSchema,
  expiresAt: z.string().describe('Absolute end of the session'),
});
export type SessionData = z.infer<typeof SessionDataSchema>;

/**
 * GET /api/auth/session: how long the caller's session lasts, so that the client can sign out on
 * the screen when the server would (`docs/security.md` › Identity and sessions). Asking is use, noted at
 * once: it keeps an idle session alive, which the client does only while its user is at the keyboard.
 */
export const SessionStatusSchema = z.object({
  idleMinutes: z.number().int().describe('Minutes without activity after which the session ends'),
  expiresAt: z.string().describe('Absolute end of the session'),
  expiresInMs: z
    .number()
    .int()
    .describe(
      'Milliseconds from the answer to the absolute end: a client whose clock is off counts from its own receipt',
    ),
});
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

export const PendingDataSchema = z.object({ pending: z.literal(true) });

export const ConfirmResponseDataSchema = z.union([SessionDataSchema, PendingDataSchema]);
export type ConfirmResponseData = z.infer<typeof ConfirmResponseDataSchema>;

export const ResendCodeBodySchema = z.strictObject({ email: EmailSchema });

export const ForgotPasswordBodySchema = z.strictObject({ email: EmailSchema });

export const ResetPasswordBodySchema = z.union([
  z.strictObject({ email: EmailSchema, otp: CodeSchema, newPassword: PasswordSchema }),
  z.strictObject({ token: z.string().min(20).max(200), password: PasswordSchema }),
]);
export type ResetPasswordBody = z.infer<typeof ResetPasswordBodySchema>;

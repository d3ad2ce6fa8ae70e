import { dictionary } from '@zxcvbn-ts/language-common';
import { PASSWORD_MAX, PASSWORD_MIN, type FieldError } from '@medshare/contracts';

// ~49 000 common and breached passwords shipped with zxcvbn-ts; checked without any network call.
const common = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));

/** ASVS 5.0 §6.2: length, no common or breached password, not the user's own identifiers; no composition rules. */
export function checkPassword(
  password: string,
  identity: { email: string; username: string },
  field = 'password',
): FieldError[] {
  const errors: FieldError[] = [];
  if (password.length < PASSWORD_MIN)
    errors.push({ field, message: `Password must be at least ${PASSWORD_MIN} characters` });
  if (password.length > PASSWORD_MAX)
    errors.push({ field, message: `Password must be at most ${PASSWORD_MAX} characters` });
  const lower = password.toLowerCase();
  if (common.has(lower)) errors.push({ field, message: 'This password is too common; choose another' });
  const local = identity.email.toLowerCase().split('@')[0] ?? '';
  if (
    lower === identity.email.toLowerCase() ||
    (local.length >= 4 && lower.includes(local)) ||
    (identity.username.length >= 4 && lower.includes(identity.username.toLowerCase()))
  ) {
    errors.push({ field, message: 'Password must not contain your e-mail or username' });
  }
  if (/^(.)\1+$/.test(password)) errors.push({ field, message: 'Password must not be one repeated character' });
  return errors;
}

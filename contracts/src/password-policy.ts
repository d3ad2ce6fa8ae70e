import type { FieldError } from './common.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from './constants.ts';

/*
 * The password rules of `docs/product.md` › Validation rules, in one place for the server (which enforces
 * them) and the web (which shows them while the user types). The ~49 000 common passwords are passed in by
 * the caller, so the server can load them eagerly and the web lazily, and contracts stays dependency-free.
 */

/** Whose password it is. A part the caller does not know (the web's reset screens) is left out. */
export type PasswordIdentity = { email?: string; username?: string };

export type PasswordRule = 'length' | 'common' | 'identity' | 'repeated';
/** `unknown`: cannot be checked here (dictionary still loading, or the username is not known); the server decides. */
export type PasswordRuleState = 'met' | 'unmet' | 'unknown';

export const PASSWORD_RULES: readonly PasswordRule[] = ['length', 'common', 'identity', 'repeated'];

/** How the checklist names each rule, written so that "met" reads as true. */
export const passwordRuleLabels: Record<PasswordRule, string> = {
  length: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters`,
  common: 'Not a common password',
  identity: 'Does not contain your e-mail or username',
  repeated: 'Not one character repeated',
};

export const PasswordPolicyMessages = {
  tooShort: `Password must be at least ${PASSWORD_MIN} characters`,
  tooLong: `Password must be at most ${PASSWORD_MAX} characters`,
  common: 'This password is too common; choose another',
  identity: 'Password must not contain your e-mail or username',
  repeated: 'Password must not be one repeated character',
} as const;

/** The lower-cased set the common rule looks up; build it once from zxcvbn's `passwords-common` list. */
export function commonPasswordSet(words: Iterable<string>): Set<string> {
  const set = new Set<string>();
  for (const word of words) set.add(word.toLowerCase());
  return set;
}

function isCommon(password: string, common: ReadonlySet<string>): boolean {
  return common.has(password.toLowerCase());
}

/** Identifiers shorter than 4 characters would refuse too many good passwords, so they are not looked for. */
function containsIdentifier(password: string, identifier: string): boolean {
  return identifier.length >= 4 && password.toLowerCase().includes(identifier.toLowerCase());
}

function containsEmail(password: string, email: string): boolean {
  const lowerEmail = email.toLowerCase();
  const local = lowerEmail.split('@')[0] ?? '';
  return password.toLowerCase() === lowerEmail || containsIdentifier(password, local);
}

function isOneRepeatedCharacter(password: string): boolean {
  return /^(.)\1+$/.test(password);
}

/**
 * Each rule as met, unmet or unknown, for the live checklist. An empty password meets no rule. With `common`
 * null (dictionary not loaded yet) the common rule is unknown; with the username unknown the identity rule is
 * unmet when the e-mail already breaks it and unknown otherwise.
 */
export function passwordRuleStates(
  password: string,
  identity: PasswordIdentity,
  common: ReadonlySet<string> | null,
): Record<PasswordRule, PasswordRuleState> {
  if (!password) return { length: 'unmet', common: 'unmet', identity: 'unmet', repeated: 'unmet' };
  const state = (met: boolean): PasswordRuleState => (met ? 'met' : 'unmet');
  const emailBreaks = identity.email !== undefined && containsEmail(password, identity.email);
  const usernameBreaks = identity.username !== undefined && containsIdentifier(password, identity.username);
  const identityKnown = identity.email !== undefined && identity.username !== undefined;
  return {
    length: state(password.length >= PASSWORD_MIN && password.length <= PASSWORD_MAX),
    common: common ? state(!isCommon(password, common)) : 'unknown',
    identity: emailBreaks || usernameBreaks ? 'unmet' : identityKnown ? 'met' : 'unknown',
    repeated: state(!isOneRepeatedCharacter(password)),
  };
}

/** ASVS 5.0 §6.2: length, no common or breached password, not the user's own identifiers; no composition rules. */
export function checkPassword(
  password: string,
  identity: { email: string; username: string },
  common: ReadonlySet<string>,
  field = 'password',
): FieldError[] {
  const errors: FieldError[] = [];
  if (password.length < PASSWORD_MIN) errors.push({ field, message: PasswordPolicyMessages.tooShort });
  if (password.length > PASSWORD_MAX) errors.push({ field, message: PasswordPolicyMessages.tooLong });
  if (isCommon(password, common)) errors.push({ field, message: PasswordPolicyMessages.common });
  if (containsEmail(password, identity.email) || containsIdentifier(password, identity.username))
    errors.push({ field, message: PasswordPolicyMessages.identity });
  if (isOneRepeatedCharacter(password)) errors.push({ field, message: PasswordPolicyMessages.repeated });
  return errors;
}

import { checkPassword as checkPasswordRules, commonPasswordSet, type FieldError } from '@medshare/contracts';
import type { dictionary as ZxcvbnDictionary } from '@zxcvbn-ts/language-common';
import { createRequire } from 'node:module';

let common: Set<string> | null = null;
/**
 * ~49 000 common and breached passwords shipped with zxcvbn-ts, checked without any network call;
 * loaded by the first password checked (74–97 ms once, on a busy 2-core VM), not at start: a server that checks none
 * keeps 2.7 MB less heap for every full collection to mark (`bench/RESULTS.md` › What the main heap holds).
 */
function commonPasswords(): Set<string> {
  if (!common) {
    const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as {
      dictionary: typeof ZxcvbnDictionary;
    };
    common = commonPasswordSet(dictionary['passwords-common'] as string[]);
  }
  return common;
}

/** The shared rules of @medshare/contracts/password-policy, with the server's dictionary. */
export function checkPassword(
  password: string,
  identity: { email: string; username: string },
  field = 'password',
): FieldError[] {
  return checkPasswordRules(password, identity, commonPasswords(), field);
}

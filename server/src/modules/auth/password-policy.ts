import { dictionary } from '@zxcvbn-ts/language-common';
import { checkPassword as checkPasswordRules, commonPasswordSet, type FieldError } from '@medshare/contracts';

// ~49 000 common and breached passwords shipped with zxcvbn-ts, loaded once at start; checked without any network call.
const common = commonPasswordSet(dictionary['passwords-common'] as string[]);

/** The shared rules of @medshare/contracts/password-policy, with the server's eagerly loaded dictionary. */
export function checkPassword(
  password: string,
  identity: { email: string; username: string },
  field = 'password',
): FieldError[] {
  return checkPasswordRules(password, identity, common, field);
}

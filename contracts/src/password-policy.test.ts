import { dictionary } from '@zxcvbn-ts/language-common';
import { describe, expect, it } from 'vitest';
import { PASSWORD_MAX, PASSWORD_MIN } from './constants.ts';
import { PasswordPolicyMessages, checkPassword, commonPasswordSet, passwordRuleStates } from './password-policy.ts';

// The same list the server loads and the web loads lazily.
const common = commonPasswordSet(dictionary['passwords-common'] as string[]);
const amina = { email: 'amina.khan@example.test', username: 'akhan2024' };
const messages = (password: string, identity = amina) =>
  checkPassword(password, identity, common).map((e) => e.message);

describe('checkPassword (the server rules)', () => {
  it('accepts a long, uncommon password that names nobody', () => {
    expect(checkPassword('correct horse battery', amina, common)).toEqual([]);
    expect(checkPassword('Link-reset-after-refusal', amina, common)).toEqual([]);
  });

  it(`takes ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`, () => {
    expect(messages('x7!kq2#mz')).toEqual([PasswordPolicyMessages.tooShort]);
    expect(messages('x7!kq2#mzp')).toEqual([]);
    expect(messages('x7!kq2#mzp'.repeat(13))).toEqual([PasswordPolicyMessages.tooLong]);
    expect(messages('x7!kq2#mzp'.repeat(13).slice(0, PASSWORD_MAX))).toEqual([]);
  });

  it('refuses the common passwords the server tests use, in any case', () => {
    for (const password of ['password1234', 'qwertyuiop', 'QWERTYUIOP', '1234567890'])
      expect(messages(password)).toEqual([PasswordPolicyMessages.common]);
  });

  it('refuses the e-mail, its local part or the username inside the password, case-insensitively', () => {
    expect(messages(amina.email)).toEqual([PasswordPolicyMessages.identity]);
    expect(messages('my AMINA.KHAN password')).toEqual([PasswordPolicyMessages.identity]);
    expect(messages(`${amina.username}-secret-1`)).toEqual([PasswordPolicyMessages.identity]);
    // Identifiers under four characters are not looked for.
    expect(messages('the bob password', { email: 'bob@example.test', username: 'al' })).toEqual([]);
  });

  it('refuses one repeated character, together with every other rule it breaks, on the named field', () => {
    expect(messages('§'.repeat(PASSWORD_MIN))).toEqual([PasswordPolicyMessages.repeated]);
    expect(messages('111111')).toEqual([
      PasswordPolicyMessages.tooShort,
      PasswordPolicyMessages.common,
      PasswordPolicyMessages.repeated,
    ]);
    expect(checkPassword('short', amina, common, 'newPassword')[0]).toEqual({
      field: 'newPassword',
      message: PasswordPolicyMessages.tooShort,
    });
  });
});

describe('passwordRuleStates (the live checklist)', () => {
  it('meets no rule while empty', () => {
    expect(passwordRuleStates('', amina, common)).toEqual({
      length: 'unmet',
      common: 'unmet',
      identity: 'unmet',
      repeated: 'unmet',
    });
  });

  it('agrees with checkPassword on every case above', () => {
    for (const password of ['correct horse battery', 'x7!kq2#mz', 'qwertyuiop', amina.email, 'aaaaaaaaaaaa']) {
      const states = Object.values(passwordRuleStates(password, amina, common));
      expect(states.every((s) => s === 'met')).toBe(checkPassword(password, amina, common).length === 0);
    }
  });

  it('leaves the common rule unknown until the dictionary is there', () => {
    expect(passwordRuleStates('qwertyuiop', amina, null).common).toBe('unknown');
    expect(passwordRuleStates('qwertyuiop', amina, common).common).toBe('unmet');
  });

  it('leaves the identity rule unknown without the username, unless the e-mail already breaks it', () => {
    expect(passwordRuleStates('correct horse battery', { email: amina.email }, common).identity).toBe('unknown');
    expect(passwordRuleStates('amina.khan rules', { email: amina.email }, common).identity).toBe('unmet');
    expect(passwordRuleStates('correct horse battery', {}, common).identity).toBe('unknown');
    expect(passwordRuleStates('correct horse battery', amina, common).identity).toBe('met');
  });
});

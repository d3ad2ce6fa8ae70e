import { commonPasswordSet } from '@medshare/contracts/password-policy';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/*
 * Loaded only by screens with a new-password field (see usePasswordCheck): the dictionary and estimator
 * are a few hundred kB, which the landing, login and image pages must not pay for.
 */

export type PasswordStrengthEngine = {
  /** The server's common-password list, lower-cased, for the shared rules. */
  common: ReadonlySet<string>;
  /** zxcvbn's 0–4 guessability score, with the user's own identifiers counted as known words. */
  score: (password: string, userInputs: string[]) => number;
};

export function createPasswordStrengthEngine(): PasswordStrengthEngine {
  const zxcvbn = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
  return {
    common: commonPasswordSet(dictionary['passwords-common'] as string[]),
    score: (password, userInputs) => zxcvbn.check(password, userInputs).score,
  };
}

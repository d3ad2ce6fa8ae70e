import { REMEMBERED_EMAIL_KEY } from '../../../config/constants';

// Storage can throw (blocked cookies, private mode); then the user simply types the e-mail again.
export function rememberEmail(email: string): void {
  try {
    window.localStorage.setItem(REMEMBERED_EMAIL_KEY, email);
  } catch {
    /* not remembered */
  }
}

export function recallEmail(): string {
  try {
    return window.localStorage.getItem(REMEMBERED_EMAIL_KEY) ?? '';
  } catch {
    return '';
  }
}

export function forgetEmail(): void {
  try {
    window.localStorage.removeItem(REMEMBERED_EMAIL_KEY);
  } catch {
    /* nothing to forget */
  }
}

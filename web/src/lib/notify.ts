// The unstyled entry: the default one injects a <style> tag that the CSP refuses. Every module
// must use this same entry, or toasts go to a second store that no container listens to.
import { toast as toastify, type Id, type ToastContent, type ToastOptions } from 'react-toastify/unstyled';
import { errorLines, errorText } from './error-text.ts';

/** When each error toast still on screen was raised, so that success and a page change can clear it. */
const errorsShown = new Map<Id, number>();

toastify.onChange((item) => {
  if (item.status === 'removed') errorsShown.delete(item.id);
});

/**
 * Closes the error toasts raised more than `olderThanMs` ago: an error the user has since got past
 * must not stay on screen next to the success (issue 17: a red 'Invalid or expired code' stayed
 * after the right code signed in).
 */
export function dismissErrorToasts(olderThanMs = 0): void {
  const cutoff = Date.now() - olderThanMs;
  for (const [id, shownAt] of errorsShown) {
    if (shownAt <= cutoff) {
      errorsShown.delete(id);
      toastify.dismiss(id);
    }
  }
}

function showError<TData = unknown>(content: ToastContent<TData>, options?: ToastOptions<TData>): Id {
  const id = toastify.error(content, options);
  errorsShown.set(id, Date.now());
  return id;
}

function showSuccess<TData = unknown>(content: ToastContent<TData>, options?: ToastOptions<TData>): Id {
  dismissErrorToasts();
  return toastify.success(content, options);
}

/**
 * react-toastify's `toast`, except that errors are remembered and a success clears them. The rest
 * of its API (warning, info, dismiss, isActive, …) is react-toastify's own.
 */
export const toast: typeof toastify = Object.assign(
  <TData = unknown>(content: ToastContent<TData>, options?: ToastOptions<TData>) => toastify(content, options),
  toastify,
  { error: showError, success: showSuccess },
);

/** The server's text when it wrote one for people, else the screen's own wording. */
export function messageOf(error: unknown, fallback: string): string {
  return errorText(error, fallback);
}

/**
 * `docs/product.md` › Messages and errors: one toast per field error, worded from its code
 * (lib/error-text.ts), else the server's message, else the screen's fallback.
 */
export function toastApiError(error: unknown, fallback: string, options?: ToastOptions): void {
  for (const line of errorLines(error, fallback)) toast.error(line, options);
}

/**
 * The provider-review notice can come from registration, code confirmation and login in quick
 * succession; one id keeps it to a single toast on screen.
 */
export const UNDER_REVIEW_TOAST_ID = 'provider-under-review';

/**
 * The toasts of a sign-in's steps before the code ('A verification code has been sent…', a resend,
 * 'Registration successful!'): one on screen at a time, and closed once the code is confirmed, so that
 * 'code sent' does not stand beside 'Verification successful' (issue 17, toasts).
 */
let codeStep: Id | null = null;

/**
 * A fresh toast each time, the previous one dismissed: re-using one id, a toast shown while the last
 * one with that id was still fading out would be dropped (react-toastify keeps the id until then).
 */
export function toastCodeStep(message: string): void {
  if (codeStep !== null) toastify.dismiss(codeStep);
  codeStep = toast.success(message);
}

export function dismissCodeStep(): void {
  if (codeStep !== null) toastify.dismiss(codeStep);
  codeStep = null;
}

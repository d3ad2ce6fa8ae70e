// The unstyled entry: the default one injects a <style> tag that the CSP refuses. Every module
// must use this same entry, or toasts go to a second store that no container listens to.
import { toast, type ToastOptions } from 'react-toastify/unstyled';
import { ApiError } from './api-client.ts';

export { toast };

/** The server's text when it sent one, else the screen's own wording. */
export function messageOf(error: unknown, fallback: string): string {
  return error instanceof ApiError && error.message ? error.message : fallback;
}

/**
 * Spec §8: one toast per field error as 'field: message', else the server's message, else the
 * screen's fallback.
 */
export function toastApiError(error: unknown, fallback: string, options?: ToastOptions): void {
  if (error instanceof ApiError && error.errors.length > 0) {
    for (const item of error.errors) {
      toast.error(item.field ? `${item.field}: ${item.message}` : item.message, options);
    }
    return;
  }
  toast.error(messageOf(error, fallback), options);
}

/**
 * The provider-review notice can come from registration, code confirmation and login in quick
 * succession; one id keeps it to a single toast on screen.
 */
export const UNDER_REVIEW_TOAST_ID = 'provider-under-review';

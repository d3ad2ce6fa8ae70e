import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';
import { REDIRECT_AFTER_VERIFY_MS } from '../config/constants';
import { dismissErrorToasts } from '../lib/notify';

/**
 * Errors raised this recently survive a page change: they tell why the app itself moved the user
 * (a failed logout lands on /login; a locked code goes back to /login after its redirect delay).
 */
export const PAGE_CHANGE_GRACE_MS = REDIRECT_AFTER_VERIFY_MS + 500;

/** Leaving a page closes its error toasts: they speak of a form that is no longer on screen. */
export function useDismissErrorToastsOnPageChange(): void {
  const { pathname } = useLocation();
  const previous = useRef(pathname);
  useEffect(() => {
    if (previous.current === pathname) return;
    previous.current = pathname;
    dismissErrorToasts(PAGE_CHANGE_GRACE_MS);
  }, [pathname]);
}

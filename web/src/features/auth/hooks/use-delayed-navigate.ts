import { useEffect, useRef } from 'react';
import { useNavigate, type NavigateOptions } from 'react-router';

/**
 * Navigates after a pause so the user can read the toast; the timer dies with the page, so
 * leaving early (Back, a link) is never overridden by a late redirect.
 */
export function useDelayedNavigate() {
  const navigate = useNavigate();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  return (to: string, delayMs: number, options?: NavigateOptions) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      void navigate(to, options);
    }, delayMs);
  };
}

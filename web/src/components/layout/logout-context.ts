import { createContext, useContext } from 'react';

export type LogoutAction = { logout: () => void; loggingOut: boolean };

/**
 * Logout for the public pages' header. The app layer provides it (logging out is the auth
 * feature's, which shared components may not import); without a provider no Logout is offered.
 */
export const LogoutContext = createContext<LogoutAction | null>(null);

export function useLogoutAction(): LogoutAction | null {
  return useContext(LogoutContext);
}

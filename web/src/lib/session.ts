import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { User } from '@medshare/contracts';

export type SessionState = {
  token: string | null;
  user: User | null;
  /**
   * Whether `user` holds every field, as the server sent it. The stored copy keeps no personal
   * field (`storedSession` below): after a reload it is false until the shell's profile
   * reload has come.
   */
  complete?: boolean;
};

const initialState: SessionState = { token: null, user: null };

export const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    /** The token is replaced only when one is supplied, so a profile reload keeps the session. */
    setUser(state, action: PayloadAction<{ user: User; token?: string }>) {
      // A reload that found nothing new keeps the same object: every component that selects the
      // user (the frame, the page) would otherwise render again for nothing.
      if (JSON.stringify(state.user) !== JSON.stringify(action.payload.user)) state.user = action.payload.user;
      if (action.payload.token !== undefined) state.token = action.payload.token;
      state.complete = true;
    },
    updateProfile(state, action: PayloadAction<Partial<User>>) {
      if (state.user) Object.assign(state.user, action.payload);
      else state.user = action.payload as User;
    },
    clearSession() {
      return initialState;
    },
    /** Another tab's session, as it stored it (lib/session-sync.ts): incomplete until a profile reload. */
    adoptStoredSession(_state, action: PayloadAction<SessionState>) {
      return { ...action.payload, complete: false };
    },
  },
  selectors: {
    selectToken: (state) => state.token,
    selectUser: (state) => state.user,
    selectUserComplete: (state) => state.complete === true,
  },
});

export const { setUser, updateProfile, clearSession, adoptStoredSession } = sessionSlice.actions;
export const { selectToken, selectUser, selectUserComplete } = sessionSlice.selectors;

/** The fields of a user the browser keeps across a reload: who is signed in, never personal data. */
const STORED_USER_FIELDS = ['id', 'email', 'username', 'role', 'firstname', 'lastname', 'active'] as const;

/**
 * The session as it is written to the browser's storage: the token and who the user is. Date of
 * birth, address, phone, tax, insurance, clinical fields and the bio stay in memory only; kept in
 * localStorage they outlived the session on a shared workstation (the shell reloads them).
 */
export function storedSession(state: SessionState): SessionState {
  const user = state.user
    ? (Object.fromEntries(STORED_USER_FIELDS.map((key) => [key, state.user![key]])) as unknown as User)
    : null;
  return { token: state.token, user, complete: false };
}

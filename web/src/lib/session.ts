import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { User } from '@medshare/contracts';

export type SessionState = {
  token: string | null;
  user: User | null;
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
    },
    updateProfile(state, action: PayloadAction<Partial<User>>) {
      if (state.user) Object.assign(state.user, action.payload);
      else state.user = action.payload as User;
    },
    clearSession() {
      return initialState;
    },
  },
  selectors: {
    selectToken: (state) => state.token,
    selectUser: (state) => state.user,
  },
});

export const { setUser, updateProfile, clearSession } = sessionSlice.actions;
export const { selectToken, selectUser } = sessionSlice.selectors;

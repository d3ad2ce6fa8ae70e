/**
 * localStorage key of the e-mail remembered between login/registration and code entry (`docs/product.md` ›
 * Data the screens show).
 */
export const REMEMBERED_EMAIL_KEY = 'userEmail';

/** Below this width the side menu becomes a temporary drawer (`docs/product.md` › Constants and limits). */
export const DESKTOP_MIN_WIDTH = 1024;

/**
 * MUI's `sm` breakpoint as a media query: below 600 px, tables become lists and dialogs take the whole
 * screen.
 */
export const PHONE_QUERY = '(max-width:599.95px)';

/** Delays before redirecting, long enough to read the toast (`docs/product.md` › Constants and limits). */
export const REDIRECT_AFTER_LOGIN_MS = 1000;
export const REDIRECT_AFTER_REGISTER_MS = 2000;
export const REDIRECT_AFTER_VERIFY_MS = 2000;
export const REDIRECT_AFTER_RESET_MS = 2000;

/** The server lets a code be re-sent once a minute (`docs/architecture.md` › Identity and sign-in). */
export const RESEND_COOLDOWN_S = 60;

/** sessionStorage flag set when the server ended the session, so the login page can say why. */
export const SESSION_ENDED_KEY = 'medshare:sessionEnded';

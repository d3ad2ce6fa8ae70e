// Plain values shared by server and web, kept free of zod so that pages needing only a text
// or a limit do not download the schema library.

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 128;
export const CODE_LENGTH = 6;

/** The 401 phrases the web client acts on (`docs/product.md` › States and transitions). */
export const AuthFailure = {
  expired: 'Token expired',
  missing: 'Unauthenticated',
  failed: 'Authentication failed',
  invalid: 'Invalid token',
} as const;

/** Texts both sides show verbatim. */
export const AuthMessages = {
  providerUnderReview:
    "Your Account has been successfully created and It's under review. You will be informed once it completed",
  codeSent: 'A verification code has been sent to your e-mail.',
  forgotAnswer: 'If an account exists for this e-mail, a reset code and link have been sent.',
  invalidCredentials: 'Invalid email or password',
  invalidCode: 'Invalid or expired code',
  codeLocked: 'Too many wrong codes. Request a new code.',
  /** A locked sign-in code ends that sign-in: only the password starts a new one. */
  signInCodeLocked: 'Too many wrong codes. Sign in again to get a new code.',
  accountDeactivated: 'Your account has been deactivated. Contact an administrator.',
  loggedOut: 'Logged out successfully',
  passwordReset: 'Password reset successfully!',
} as const;

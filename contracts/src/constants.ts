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
  /** A locked sign-in code ends that sign-in: only the password starts a new one. */
  signInCodeLocked: 'Too many wrong codes. Sign in again to get a new code.',
  accountDeactivated: 'Your account has been deactivated. Contact an administrator.',
  loggedOut: 'Logged out successfully',
  passwordReset: 'Password reset successfully!',
} as const;

/** Texts of `docs/product.md` › Validation rules the web shows as they come. */
export const ImageMessages = {
  invalidType: 'Invalid file type. Allowed: .jpg, .png, .pdf, .dicom',
  tooLarge: (mb: number) => `File size exceeds ${mb}MB limit.`,
  noFile: 'Please select a file to upload.',
  noCaption: 'Please provide a caption.',
  emptyFile: 'The selected file is empty.',
  unknownPatient: 'Select an existing, active patient.',
  uploaded: 'Image uploaded successfully!',
  deleted: 'Image deleted successfully',
  duplicate: 'Already stored: this DICOM instance (same SOP Instance UID) was uploaded before for this patient.',
} as const;

/**
 * POST /api/upload/image when the same uploader already stored this DICOM instance (same SOP
 * Instance UID) for the same patient: 200 with the image already stored, nothing stored twice
 * (`docs/product.md` › Upload). A new upload stays 201 with the new image.
 */
export const UPLOAD_DUPLICATE_CODE = 'duplicate';

export const MAX_CAPTION_LENGTH = 500;

export const SharingMessages = {
  shared: 'Image shared successfully',
  verified: 'Image verified successfully',
  revoked: 'Share revoked',
  wrongCode: 'Invalid verification code',
  locked: 'Too many wrong codes: this share is locked. Ask the sender to share the image again.',
  expired: 'This share has expired. Ask the sender to share the image again.',
  notFound: 'Share not found',
} as const;

export const ExternalShareMessages = {
  created: 'Link sent. Give the recipient the code by phone or message.',
  reissued: 'A new link was sent. Give the recipient the new code.',
  revoked: 'Access revoked',
  invalidLink: 'This link is not valid. Check that you opened the whole link from the mail.',
  revokedLink: 'This link no longer opens. If you still need the images, ask the person who sent it.',
  expiredLink: 'This link has expired.',
  lockedLink: 'Too many wrong codes: this link is locked. Ask the sharer for a new link.',
  wrongCode: 'That code is not right.',
  noSession: 'Enter the code to open this link.',
  viewOnly: 'This share is view only: downloads are off.',
  notOwner: 'Only the patient or the uploading provider can share this by link',
  noImages: 'There is nothing in this study you can share by link',
  expiryTooLong: (max: number) => `The link may last at most ${max} hours`,
} as const;

export const AUDIT_PAGE_SIZES = [5, 10, 20] as const;

export const MESSAGE_MAX_LENGTH = 5000;

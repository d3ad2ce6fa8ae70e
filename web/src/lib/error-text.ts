import type { FieldError, FieldErrorCode } from '@medshare/contracts';
import { ApiError } from './api-client.ts';

// What a patient reads when a call fails (`docs/product.md` › Messages and errors). The server's
// own messages are written for people; zod's default wording ('Too small: expected string to have
// >=20 characters') is not, so a field error carrying a zod issue code is worded here, from the
// code and the field, never from the server's text.

/** The fields the server may name, by the labels their inputs carry on the screens. */
const FIELD_LABELS: Record<string, string> = {
  email: 'Email',
  password: 'Password',
  newPassword: 'New password',
  confirmPassword: 'Confirm password',
  username: 'Username',
  firstname: 'First name',
  lastname: 'Last name',
  phone: 'Phone',
  dob: 'Date of birth',
  gender: 'Gender',
  address: 'Address',
  city: 'City',
  state: 'State',
  country: 'Country',
  zipcode: 'Zip code',
  bloodgroup: 'Blood group',
  insurancenumber: 'Insurance number',
  primphysician: 'Primary physician',
  licensenumber: 'License number',
  specialization: 'Specialization',
  taxid: 'Tax ID',
  bio: 'Bio',
  role: 'Role',
  code: 'Code',
  otp: 'Code',
  verificationCode: 'Verification code',
  token: 'Reset link',
  caption: 'Caption',
  file: 'File',
  patientId: 'Patient',
  createdfor: 'Recipient',
  recipientId: 'Recipient',
  content: 'Message',
  sharingId: 'Image sharing id',
  expiresInHours: 'Expires in (hours)',
  recipientEmail: 'Recipient e-mail',
  name: 'Name',
  value: 'Value',
  description: 'Description',
  id: 'Id',
  page: 'Page',
  limit: 'Page size',
  search: 'Search',
};

/** 'setting.name' → 'Name'; an unlisted 'bloodGroup' → 'Blood group', 'imageId' → 'Image'. */
export function fieldLabel(field: string): string {
  const last = field.split('.').pop() ?? field;
  if (Object.hasOwn(FIELD_LABELS, last)) return FIELD_LABELS[last] as string;
  const words = last
    .replace(/_?[iI]d$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : 'This field';
}

/** Sentences for fields whose problem is always the same thing to the person, whatever zod said. */
const FIELD_SENTENCES: Record<string, string> = {
  token: 'This reset link is incomplete. Open the link from the e-mail again, or ask for a new one.',
  code: 'Enter the 6-digit code from the e-mail.',
  otp: 'Enter the 6-digit code from the e-mail.',
  verificationCode: 'Enter the 6-digit verification code from the share e-mail.',
  email: 'Enter a valid e-mail address.',
  recipientEmail: 'Enter a valid e-mail address.',
};

/** Each zod issue code as a sentence about one field. */
const ZOD_SENTENCES: Record<Exclude<FieldErrorCode, 'rejected' | 'invalid_code'>, (label: string) => string> = {
  too_small: (label) => `${label} is missing or too short.`,
  too_big: (label) => `${label} is too long.`,
  invalid_format: (label) => `${label} is not in a valid format.`,
  invalid_type: (label) => `${label} is missing or not valid.`,
  invalid_value: (label) => `${label} is not one of the allowed choices.`,
  unrecognized_keys: () => 'The form sent something the server does not accept. Reload the page and try again.',
  not_multiple_of: (label) => `${label} is not valid.`,
  invalid_union: (label) => `${label} is not valid.`,
  invalid_key: (label) => `${label} is not valid.`,
  invalid_element: (label) => `${label} is not valid.`,
  custom: (label) => `${label} is not valid.`,
};

/**
 * One field error as the line under its input (the input names the field): the server's words when
 * it wrote them for people ('rejected', a wrong code), else a sentence from the zod code — never
 * zod's own wording.
 */
export function fieldErrorInline(error: FieldError): string {
  const { code } = error;
  if (!code || code === 'rejected' || code === 'invalid_code') return error.message;
  const last = error.field.split('.').pop() ?? error.field;
  if (Object.hasOwn(FIELD_SENTENCES, last)) return FIELD_SENTENCES[last] as string;
  return ZOD_SENTENCES[code](fieldLabel(error.field));
}

/**
 * One field error as a toast line. With a code: a sentence for zod's codes; the server's own words
 * after the field's label when it wrote them for people ('rejected'); a wrong or expired code's
 * text alone, since both sides show it verbatim (AuthMessages.invalidCode). Without a code (an
 * answer from before codes): the 'field: message' form.
 */
export function fieldErrorText(error: FieldError): string {
  const last = error.field.split('.').pop() ?? error.field;
  const { code } = error;
  if (!code) return error.field ? `${error.field}: ${error.message}` : error.message;
  const label = fieldLabel(error.field);
  if (code === 'rejected') return error.field ? `${label}: ${error.message}` : error.message;
  if (code === 'invalid_code') return error.message;
  if (Object.hasOwn(FIELD_SENTENCES, last)) return FIELD_SENTENCES[last] as string;
  return ZOD_SENTENCES[code](label);
}

/**
 * The text for a failure that has no field errors: the server's message (written for people),
 * else the screen's own wording. 'validation_failed' says only that fields were refused.
 */
export function errorText(error: unknown, fallback: string): string {
  if (!(error instanceof ApiError) || !error.message) return fallback;
  if (error.code === 'validation_failed') return fallback;
  return error.message;
}

/** Every line one failure shows: one per field error, else the one message. */
export function errorLines(error: unknown, fallback: string): string[] {
  if (error instanceof ApiError && error.errors.length > 0) return error.errors.map(fieldErrorText);
  return [errorText(error, fallback)];
}

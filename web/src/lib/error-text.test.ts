import { AuthMessages } from '@medshare/contracts';
import { SharingMessages } from '@medshare/contracts/constants';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client';
import { errorLines, errorText, fieldErrorInline, fieldErrorText, fieldLabel } from './error-text';

describe('fieldErrorText (docs/product.md › Messages and errors)', () => {
  it("words zod's own messages from the code: no field name, no zod text", () => {
    const text = fieldErrorText({
      field: 'token',
      code: 'too_small',
      message: 'Too small: expected string to have >=20 characters',
    });
    expect(text).toBe('This reset link is incomplete. Open the link from the e-mail again, or ask for a new one.');
    expect(text).not.toMatch(/token:|Too small/);
  });

  it('shows a wrong code as the verbatim text both sides share, not as "code: …"', () => {
    expect(fieldErrorText({ field: 'code', code: 'invalid_code', message: AuthMessages.invalidCode })).toBe(
      'Invalid or expired code',
    );
    expect(
      fieldErrorText({ field: 'verificationCode', code: 'invalid_code', message: SharingMessages.wrongCode }),
    ).toBe('Invalid verification code');
    expect(fieldErrorText({ field: 'otp', code: 'invalid_format', message: 'x' })).toBe(
      'Enter the 6-digit code from the e-mail.',
    );
  });

  it('builds the sentence from the field label when no field sentence exists', () => {
    expect(fieldErrorText({ field: 'caption', code: 'too_big', message: 'Too big: expected string…' })).toBe(
      'Caption is too long.',
    );
    expect(fieldErrorText({ field: 'setting.value', code: 'invalid_type', message: 'Invalid input' })).toBe(
      'Value is missing or not valid.',
    );
    expect(fieldErrorText({ field: 'role', code: 'invalid_value', message: 'Invalid option' })).toBe(
      'Role is not one of the allowed choices.',
    );
    expect(fieldErrorText({ field: 'email', code: 'invalid_format', message: 'Invalid email address' })).toBe(
      'Enter a valid e-mail address.',
    );
    expect(fieldErrorText({ field: 'extra', code: 'unrecognized_keys', message: 'Unknown field' })).toMatch(
      /^The form sent something/,
    );
  });

  it("keeps the server's own words after the field's label when it wrote them for people", () => {
    expect(fieldErrorText({ field: 'username', code: 'rejected', message: 'This username is taken' })).toBe(
      'Username: This username is taken',
    );
    expect(fieldErrorText({ field: '', code: 'rejected', message: 'Refused' })).toBe('Refused');
  });

  it("keeps 'field: message' for an answer without codes", () => {
    expect(fieldErrorText({ field: 'verificationCode', message: 'Invalid verification code' })).toBe(
      'verificationCode: Invalid verification code',
    );
    expect(fieldErrorText({ field: '', message: 'Just this' })).toBe('Just this');
  });
});

describe('fieldErrorInline (the line under an input)', () => {
  it("words zod's codes as sentences and keeps the words the server wrote for people", () => {
    expect(
      fieldErrorInline({ field: 'phone', code: 'invalid_format', message: 'Invalid string: must match pattern' }),
    ).toBe('Phone is not in a valid format.');
    expect(fieldErrorInline({ field: 'setting.value', code: 'too_big', message: 'Too big: expected…' })).toBe(
      'Value is too long.',
    );
    expect(fieldErrorInline({ field: 'password', code: 'rejected', message: 'Too easy to guess' })).toBe(
      'Too easy to guess',
    );
    expect(fieldErrorInline({ field: 'email', code: 'invalid_format', message: 'Invalid email address' })).toBe(
      'Enter a valid e-mail address.',
    );
    expect(fieldErrorInline({ field: 'bio', message: 'Old answer without a code' })).toBe('Old answer without a code');
  });
});

describe('fieldLabel', () => {
  it('names listed fields as the screens do and spells out the others', () => {
    expect(fieldLabel('createdfor')).toBe('Recipient');
    expect(fieldLabel('setting.name')).toBe('Name');
    expect(fieldLabel('imageId')).toBe('Image');
    expect(fieldLabel('maxUploadMb')).toBe('Max upload mb');
    expect(fieldLabel('constructor')).toBe('Constructor');
  });
});

describe('errorText and errorLines', () => {
  it("shows the server's message, except the bare 'Validation failed' and a missing answer", () => {
    expect(errorText(new ApiError(429, 'Too many attempts. Try again in a minute.', [], 'rate_limited'), 'F')).toBe(
      'Too many attempts. Try again in a minute.',
    );
    expect(errorText(new ApiError(400, 'Validation failed', [], 'validation_failed'), 'F')).toBe('F');
    expect(errorText(new ApiError(0, ''), 'F')).toBe('F');
    expect(errorText(new Error('boom'), 'F')).toBe('F');
  });

  it('gives one line per field error', () => {
    const error = new ApiError(
      400,
      'Validation failed',
      [
        { field: 'token', code: 'too_small', message: 'Too small: expected string to have >=20 characters' },
        { field: 'newPassword', code: 'rejected', message: 'This password is too common; choose another' },
      ],
      'validation_failed',
    );
    expect(errorLines(error, 'F')).toEqual([
      'This reset link is incomplete. Open the link from the e-mail again, or ask for a new one.',
      'New password: This password is too common; choose another',
    ]);
  });
});

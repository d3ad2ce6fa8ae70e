import { describe, expect, it } from 'vitest';
import { ResetPasswordBodySchema, RegisterBodySchema, LoginBodySchema, PasswordSchema, CodeSchema } from './auth.ts';
import { AUDIT_READ_ACTIONS, AUDIT_REFUSAL_ACTION, AUDIT_WRITE_ACTIONS, ListAuditLogsQuerySchema } from './audit.ts';
import { EmailSchema, pageQuerySchema } from './common.ts';
import { PASSWORD_MAX, PASSWORD_MIN } from './constants.ts';
import { QidoQuerySchema } from './dicom.ts';
import { ListImagesQuerySchema } from './images.ts';
import { ChatQuerySchema, MESSAGE_MAX_LENGTH, MessageIdTextSchema, SendMessageBodySchema } from './messages.ts';
import {
  CreateSettingBodySchema,
  DeleteSettingBodySchema,
  KnownSettingValueSchemas,
  SettingNameSchema,
  UpdateSettingBodySchema,
} from './settings.ts';
import { ShareRequestBodySchema, ShareVerifyBodySchema } from './sharing.ts';
import { ListUsersQuerySchema, UpdateProfileBodySchema } from './users.ts';

/** The first issue's message, or null when the value is accepted. */
function refusal(
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { message: string }[] } } },
  v: unknown,
) {
  const r = schema.safeParse(v);
  return r.success ? null : r.error!.issues[0]!.message;
}

const register = {
  role: 'patient',
  email: 'amina@example.test',
  username: 'akhan',
  password: 'correct horse battery',
  firstname: 'Amina',
  lastname: 'Khan',
};

describe('passwords', () => {
  it(`take ${PASSWORD_MIN} to ${PASSWORD_MAX} characters, any characters`, () => {
    expect(refusal(PasswordSchema, 'a'.repeat(PASSWORD_MIN - 1))).toBe(
      `Password must be at least ${PASSWORD_MIN} characters`,
    );
    expect(refusal(PasswordSchema, 'a'.repeat(PASSWORD_MIN))).toBeNull();
    expect(refusal(PasswordSchema, 'ü 漢字 '.repeat(20).slice(0, PASSWORD_MAX))).toBeNull();
    expect(refusal(PasswordSchema, 'a'.repeat(PASSWORD_MAX + 1))).toBe(
      `Password must be at most ${PASSWORD_MAX} characters`,
    );
  });

  it('are not trimmed: spaces are part of the secret', () => {
    expect(PasswordSchema.parse('  ten chars  ')).toBe('  ten chars  ');
  });

  it('at login only need to be present and bounded (the policy applies when one is chosen)', () => {
    expect(refusal(LoginBodySchema, { email: 'a@b.test', password: 'short' })).toBeNull();
    expect(refusal(LoginBodySchema, { email: 'a@b.test', password: '' })).toBe('Password is required');
    expect(refusal(LoginBodySchema, { email: 'a@b.test', password: 'x'.repeat(PASSWORD_MAX + 1) })).not.toBeNull();
  });

  it('at reset: the code form and the link form, each with the policy, and nothing else', () => {
    expect(
      refusal(ResetPasswordBodySchema, { email: 'a@b.test', otp: '123456', newPassword: 'a long new password' }),
    ).toBeNull();
    expect(refusal(ResetPasswordBodySchema, { token: 't'.repeat(43), password: 'a long new password' })).toBeNull();
    expect(refusal(ResetPasswordBodySchema, { email: 'a@b.test', otp: '123456', newPassword: 'short' })).not.toBeNull();
    expect(refusal(ResetPasswordBodySchema, { token: 'short', password: 'a long new password' })).not.toBeNull();
  });
});

describe('codes', () => {
  it('are exactly six digits (surrounding spaces from a paste are dropped)', () => {
    expect(CodeSchema.parse(' 012345 ')).toBe('012345');
    for (const bad of ['12345', '1234567', '12345a', '１２３４５６'])
      expect(refusal(CodeSchema, bad)).toBe('Code must be exactly 6 digits');
  });
});

describe('usernames', () => {
  const username = (u: string) => refusal(RegisterBodySchema, { ...register, username: u });
  it('take 3 to 40 letters, digits, dot, dash and underscore', () => {
    for (const ok of ['abc', 'a.b-c_d', 'A1b', 'x'.repeat(40)]) expect(username(ok)).toBeNull();
    expect(username('ab')).toBe('Username must be at least 3 characters');
    expect(username('x'.repeat(41))).not.toBeNull();
    for (const bad of ['a b c', 'ami@na', 'amïna', '<script>'])
      expect(username(bad)).toBe('Username may contain letters, digits, dot, dash and underscore');
  });
  it('are trimmed before the rules apply', () => {
    expect(RegisterBodySchema.parse({ ...register, username: '  akhan ' }).username).toBe('akhan');
  });
});

describe('e-mails', () => {
  it('are trimmed and lower-cased, so one address is one account', () => {
    expect(EmailSchema.parse('Amina@Example.TEST')).toBe('amina@example.test');
  });
  it('refuse what is not an address, and more than 254 characters', () => {
    for (const bad of ['', 'amina', 'amina@', '@example.test', 'a b@example.test'])
      expect(refusal(EmailSchema, bad)).not.toBeNull();
    expect(
      refusal(EmailSchema, `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.test`),
    ).not.toBeNull();
  });
});

describe('registration', () => {
  it('accepts the wizard’s payload and refuses unknown fields and the admin role', () => {
    expect(refusal(RegisterBodySchema, { ...register, active: true, dob: '', gender: '' })).toBeNull();
    expect(refusal(RegisterBodySchema, { ...register, confirmPassword: 'x' })).not.toBeNull();
    expect(refusal(RegisterBodySchema, { ...register, role: 'admin' })).not.toBeNull();
  });
  it('takes dates of birth as calendar dates only', () => {
    expect(refusal(RegisterBodySchema, { ...register, dob: '1990-02-28' })).toBeNull();
    expect(refusal(RegisterBodySchema, { ...register, dob: '1990-02-30' })).not.toBeNull();
    expect(refusal(RegisterBodySchema, { ...register, dob: '1990-02-28T00:00:00Z' })).not.toBeNull();
  });
});

describe('profile edits', () => {
  it('clear a field with an empty string and bound each text', () => {
    expect(UpdateProfileBodySchema.parse({ phone: '  ' }).phone).toBe('');
    expect(refusal(UpdateProfileBodySchema, { bio: 'x'.repeat(2001) })).not.toBeNull();
    expect(refusal(UpdateProfileBodySchema, { firstname: ' ' })).toBe('First name is required');
    expect(refusal(UpdateProfileBodySchema, { role: 'admin' })).not.toBeNull();
  });
});

describe('pagination', () => {
  const q = pageQuerySchema(10);
  it('defaults, coerces query strings, and bounds page and limit', () => {
    expect(q.parse({})).toEqual({ page: 1, limit: 10 });
    expect(q.parse({ page: '3', limit: '25' })).toEqual({ page: 3, limit: 25 });
    for (const bad of [
      { page: '0' },
      { page: '1.5' },
      { page: '1000001' },
      { limit: '0' },
      { limit: '101' },
      { page: 'x' },
    ])
      expect(refusal(q, bad)).not.toBeNull();
  });
  it('the image list refuses unknown parameters; the user list bounds search, sort and order', () => {
    expect(refusal(ListImagesQuerySchema, { page: '1', sort: 'name' })).not.toBeNull();
    expect(ListUsersQuerySchema.parse({})).toMatchObject({ page: 1, limit: 5, sort: 'createdAt', order: 'desc' });
    expect(refusal(ListUsersQuerySchema, { sort: 'password' })).not.toBeNull();
    expect(refusal(ListUsersQuerySchema, { search: 'x'.repeat(101) })).not.toBeNull();
  });
  it('audit filters take a calendar date or an instant, and a known kind of row', () => {
    expect(refusal(ListAuditLogsQuerySchema, { from: '2026-01-01', to: '2026-01-31T23:59:59+05:00' })).toBeNull();
    expect(refusal(ListAuditLogsQuerySchema, { from: '01/01/2026' })).not.toBeNull();
    expect(refusal(ListAuditLogsQuerySchema, { category: 'everything' })).not.toBeNull();
  });
});

describe('QIDO-RS query', () => {
  it('pages 100 at a time by default, at most 1000, from a non-negative offset', () => {
    expect(QidoQuerySchema.parse({})).toMatchObject({ limit: 100, offset: 0 });
    expect(QidoQuerySchema.parse({ limit: '1000', offset: '20' })).toMatchObject({ limit: 1000, offset: 20 });
    for (const bad of [{ limit: '1001' }, { limit: '0' }, { offset: '-1' }, { offset: '1000001' }])
      expect(refusal(QidoQuerySchema, bad)).not.toBeNull();
  });
  it('bounds UIDs to 64 characters and modalities to 16, by keyword and by tag', () => {
    expect(refusal(QidoQuerySchema, { StudyInstanceUID: '1.2.3', '00080060': 'CT' })).toBeNull();
    expect(refusal(QidoQuerySchema, { StudyInstanceUID: '1'.repeat(65) })).not.toBeNull();
    expect(refusal(QidoQuerySchema, { '0020000D': '1'.repeat(65) })).not.toBeNull();
    expect(refusal(QidoQuerySchema, { Modality: 'x'.repeat(17) })).not.toBeNull();
  });
  it('accepts includefield once or repeated', () => {
    expect(refusal(QidoQuerySchema, { includefield: ['00100010', 'PatientID'] })).toBeNull();
  });
});

describe('settings', () => {
  it('known values: whole numbers within their range', () => {
    const mb = KnownSettingValueSchemas.max_upload_mb;
    expect(refusal(mb, ' 100 ')).toBeNull();
    expect(refusal(mb, '101')).toBe('Must be between 1 and 100');
    expect(refusal(mb, '0')).toBe('Must be between 1 and 100');
    for (const bad of ['1.5', '-1', '1e2', '', 'ten']) expect(refusal(mb, bad)).toBe('Must be a whole number');
    expect(refusal(KnownSettingValueSchemas.session_idle_minutes, '4')).toBe('Must be between 5 and 720');
    expect(refusal(KnownSettingValueSchemas.otp_ttl_minutes, '61')).toBe('Must be between 1 and 60');
  });
  it('known values: a locale and a time zone the runtime knows', () => {
    expect(refusal(KnownSettingValueSchemas.display_locale, 'en-PK')).toBeNull();
    expect(refusal(KnownSettingValueSchemas.display_locale, 'not a locale!')).toBe(
      'Must be a supported locale such as en-PK',
    );
    expect(refusal(KnownSettingValueSchemas.display_time_zone, 'Asia/Karachi')).toBeNull();
    expect(refusal(KnownSettingValueSchemas.display_time_zone, 'Mars/Olympus')).toBe(
      'Must be an IANA time zone such as Asia/Karachi',
    );
  });
  it('names: letters in any script, digits, spaces, dot, dash and underscore, up to 100', () => {
    expect(refusal(SettingNameSchema, 'max_upload_mb')).toBeNull();
    expect(refusal(SettingNameSchema, 'Größe 2.0-β')).toBeNull();
    expect(refusal(SettingNameSchema, '  ')).toBe('Name is required');
    expect(refusal(SettingNameSchema, 'x'.repeat(101))).toBe('Name must be at most 100 characters');
    expect(refusal(SettingNameSchema, 'a;drop')).toBe(
      'Name may contain letters, digits, spaces, dot, dash and underscore',
    );
  });
  it('bodies: values up to 2000 characters, unknown fields refused, a delete by UUID', () => {
    expect(refusal(CreateSettingBodySchema, { setting: { name: 'a', value: '' } })).toBeNull();
    expect(refusal(CreateSettingBodySchema, { setting: { name: 'a', value: 'x'.repeat(2001) } })).toBe(
      'Value must be at most 2000 characters',
    );
    expect(refusal(CreateSettingBodySchema, { setting: { name: 'a', value: '1', extra: 1 } })).not.toBeNull();
    expect(refusal(UpdateSettingBodySchema, { name: 'a', value: '1', createAt: 'x', updatedAt: 'y' })).toBeNull();
    expect(refusal(UpdateSettingBodySchema, { name: 'a', value: '1', id: 'not-a-uuid' })).not.toBeNull();
    expect(refusal(DeleteSettingBodySchema, { id: 'nope' })).toBe('Setting id must be a UUID');
  });
});

const someone = '7f0c1e2a-3b4c-4d5e-8f60-718293a4b5c6';

describe('messages', () => {
  it(`are trimmed, then 1 to ${MESSAGE_MAX_LENGTH} characters, to a user id, nothing else`, () => {
    expect(SendMessageBodySchema.parse({ recipientId: someone, content: '  hello \n' }).content).toBe('hello');
    expect(refusal(SendMessageBodySchema, { recipientId: someone, content: '   ' })).toBe('Message cannot be empty');
    expect(
      refusal(SendMessageBodySchema, { recipientId: someone, content: 'x'.repeat(MESSAGE_MAX_LENGTH) }),
    ).toBeNull();
    expect(refusal(SendMessageBodySchema, { recipientId: someone, content: 'x'.repeat(MESSAGE_MAX_LENGTH + 1) })).toBe(
      `Message must be at most ${MESSAGE_MAX_LENGTH} characters`,
    );
    expect(refusal(SendMessageBodySchema, { recipientId: 'bob', content: 'hi' })).toBe('Recipient must be a user id');
    expect(refusal(SendMessageBodySchema, { recipientId: someone, content: 'hi', senderId: someone })).not.toBeNull();
  });
  it('ids from a query string or Last-Event-ID are 1 to 15 digits, read as numbers', () => {
    expect(MessageIdTextSchema.parse(' 42 ')).toBe(42);
    expect(refusal(MessageIdTextSchema, '4e2')).toBe('Must be a message id');
    expect(refusal(MessageIdTextSchema, '-1')).toBe('Must be a message id');
    expect(refusal(MessageIdTextSchema, '1'.repeat(16))).toBe('Must be a message id');
  });
  it('a thread page holds 50 by default and at most 200, older than an optional id', () => {
    expect(ChatQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(ChatQuerySchema.parse({ before: '7', limit: '200' })).toEqual({ before: 7, limit: 200 });
    expect(refusal(ChatQuerySchema, { limit: '201' })).not.toBeNull();
    expect(refusal(ChatQuerySchema, { limit: '0' })).not.toBeNull();
  });
});

describe('sharing', () => {
  it('a request names an image and a recipient, with an optional expiry of 1 hour to a year', () => {
    const request = { imagemetadataId: someone, createdfor: someone };
    expect(refusal(ShareRequestBodySchema, request)).toBeNull();
    expect(ShareRequestBodySchema.parse({ ...request, expiresInHours: '48' }).expiresInHours).toBe(48);
    expect(refusal(ShareRequestBodySchema, { ...request, expiresInHours: 8760 })).toBeNull();
    expect(refusal(ShareRequestBodySchema, { ...request, expiresInHours: 8761 })).not.toBeNull();
    expect(refusal(ShareRequestBodySchema, { ...request, expiresInHours: 0 })).not.toBeNull();
    expect(refusal(ShareRequestBodySchema, { ...request, expiresInHours: 1.5 })).not.toBeNull();
    expect(refusal(ShareRequestBodySchema, { ...request, deidentify: 'yes' })).not.toBeNull();
    expect(refusal(ShareRequestBodySchema, { ...request, code: '123456' })).not.toBeNull();
  });
  it('a verification is the sharing id and its six-digit code (spaces from a paste dropped)', () => {
    expect(ShareVerifyBodySchema.parse({ sharingRequestId: someone, verificationCode: ' 012345 ' })).toEqual({
      sharingRequestId: someone,
      verificationCode: '012345',
    });
    expect(refusal(ShareVerifyBodySchema, { sharingRequestId: someone, verificationCode: '12345' })).toBe(
      'The code has 6 digits',
    );
    expect(refusal(ShareVerifyBodySchema, { sharingRequestId: someone, verificationCode: '12a456' })).toBe(
      'The code has 6 digits',
    );
    expect(refusal(ShareVerifyBodySchema, { sharingRequestId: 'share-1', verificationCode: '123456' })).not.toBeNull();
  });
});

describe('audit actions', () => {
  it('are each either a read, a write or the refusal, never two of these', () => {
    const all = [...AUDIT_READ_ACTIONS, ...AUDIT_WRITE_ACTIONS, AUDIT_REFUSAL_ACTION];
    expect(new Set(all).size).toBe(all.length);
  });
});

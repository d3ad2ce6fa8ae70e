import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface RolesTable {
  id: Generated<number>;
  name: string;
  description: string;
}

export interface PermissionsTable {
  id: Generated<number>;
  name: string;
  description: string;
}

export interface RolePermissionsTable {
  role_id: number;
  permission_id: number;
}

export interface UsersTable {
  id: Generated<string>;
  email: string;
  username: string;
  password_hash: string;
  role_id: number;
  active: boolean;
  email_verified_at: Timestamp | null;
  firstname: string;
  lastname: string;
  phone: string | null;
  /** DATE, read as 'YYYY-MM-DD' (type parser set in db.ts) so it never shifts by a day. */
  dob: string | null;
  gender: 'male' | 'female' | 'other' | null;
  address: string | null;
  city: string | null;
  state: string | null;
  country: string | null;
  zipcode: string | null;
  bio: string | null;
  taxid: string | null;
  licensenumber: string | null;
  insurancenumber: string | null;
  specialization: string | null;
  bloodgroup: string | null;
  primphysician: string | null;
  failed_logins: Generated<number>;
  locked_until: Timestamp | null;
  password_changed_at: Timestamp | null;
  /** Set when the account may be used: at creation for patients and admins, by an admin for providers. */
  approved_at: Timestamp | null;
  deleted_at: Timestamp | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: Generated<Date>;
  last_seen_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  revoked_reason: string | null;
  ip: string | null;
  user_agent: string | null;
}

export type CodePurpose = 'verify' | 'reset';

/** A sign-in counter (migration 0009): `key` is a hash of what it counts, never an e-mail or address. */
export interface AuthThrottlesTable {
  key: string;
  hits: number;
  window_ends_at: Timestamp;
  locked_until: Timestamp | null;
  expires_at: Timestamp;
}

export interface OneTimeCodesTable {
  id: Generated<string>;
  user_id: string;
  purpose: CodePurpose;
  code_hash: string;
  /** SHA-256 of the reset link token (high entropy, so a fast hash suffices). */
  token_hash: string | null;
  expires_at: Timestamp;
  attempts: Generated<number>;
  /**
   * Hash of the address block the code was issued to (migration 0017; null before it: every address
   * is the owner's); tries from other addresses count in `foreign_attempts`, apart.
   */
  issued_to: string | null;
  foreign_attempts: Generated<number>;
  /** Written, its mail not yet sent (migration 0018): counts for the limits, is never checked. */
  awaiting_mail: Generated<boolean>;
  consumed_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface AppSettingsTable {
  id: Generated<string>;
  name: string;
  value: string;
  description: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface AuditLogsTable {
  id: Generated<number>;
  created_at: CreatedAt;
  user_id: string | null;
  action_type: string;
  table_name: string | null;
  record_id: string | null;
  ip_address: string | null;
  status: 'success' | 'failure';
  reason: string | null;
  prev_hash: string;
  hash: string;
}

export interface AuditHeadTable {
  id: number;
  last_id: number;
  last_hash: string;
}

export interface FieldKeysTable {
  id: string;
  purpose: string;
  wrapped_key: Uint8Array;
  master_key_id: string;
  created_at: Generated<Date>;
  retired_at: Timestamp | null;
}

export interface MessagesTable {
  /** bigint, read as a number (type parser in db.ts). */
  id: Generated<number>;
  sender_id: string;
  recipient_id: string;
  key_id: string;
  nonce: Uint8Array;
  /** AES-256-GCM ciphertext with its tag; the text never sits here in plain. */
  ciphertext: Uint8Array;
  created_at: Generated<Date>;
  read_at: Timestamp | null;
}

export interface ConversationsTable {
  owner_id: string;
  partner_id: string;
  last_message_id: number;
  unread_count: Generated<number>;
}

export interface RealtimeChannelTable {
  id: number;
  name: string;
}

export interface Database {
  roles: RolesTable;
  permissions: PermissionsTable;
  role_permissions: RolePermissionsTable;
  users: UsersTable;
  sessions: SessionsTable;
  one_time_codes: OneTimeCodesTable;
  app_settings: AppSettingsTable;
  audit_logs: AuditLogsTable;
  audit_head: AuditHeadTable;
  images: ImagesTable;
  shares: SharesTable;
  share_groups: ShareGroupsTable;
  external_shares: ExternalSharesTable;
  external_share_images: ExternalShareImagesTable;
  field_keys: FieldKeysTable;
  messages: MessagesTable;
  conversations: ConversationsTable;
  realtime_channel: RealtimeChannelTable;
  analyses: AnalysesTable;
  dicom_metadata: DicomMetadataTable;
  auth_throttles: AuthThrottlesTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type AuditLogRow = Selectable<AuditLogsTable>;
export type CodeRow = Selectable<OneTimeCodesTable>;

/** Parsed DICOM metadata of an image (migration 0008): PHI, so only sealed under the image's data key. */
export interface DicomMetadataTable {
  image_id: string;
  /** nonce | AES-256-GCM ciphertext of the gzipped JSON | tag (storage/encrypted-store.ts sealValue). */
  sealed: Uint8Array;
  created_at: Generated<Date>;
}

export type ThumbnailStatus = 'none' | 'pending' | 'ready' | 'failed';

/** An uploaded file; its bytes live encrypted in blob storage under `storage_key`. */
export interface ImagesTable {
  id: string;
  uploader_id: string;
  patient_id: string | null;
  caption: string;
  content_type: 'image/jpeg' | 'image/png' | 'application/pdf' | 'application/dicom';
  original_name: string;
  size_bytes: number;
  /** SHA-256 (hex) of the plaintext, checked on every full read. */
  sha256: string;
  storage_key: string;
  /** The object's data key, wrapped by the master key `key_id`. */
  wrapped_key: string;
  key_id: string;
  /** Envelope format version (chunking and nonce layout; see crypto/envelope.ts). */
  enc_format: number;
  thumbnail_status: ThumbnailStatus;
  thumb_storage_key: string | null;
  thumb_wrapped_key: string | null;
  thumb_key_id: string | null;
  thumb_content_type: string | null;
  thumb_size_bytes: number | null;
  thumb_sha256: string | null;
  created_at: Generated<Date>;
  deleted_at: Timestamp | null;
  /** DICOM (migration 0005): non-PHI attributes only; null for other types. 'document': no pixel data (SR, ECG). */
  dicom_kind: ColumnType<'image' | 'document' | null, 'image' | 'document' | null | undefined, never>;
  dicom_modality: ColumnType<string | null, string | null | undefined, never>;
  dicom_body_part: ColumnType<string | null, string | null | undefined, never>;
  /** DATE, read as 'YYYY-MM-DD'. */
  dicom_study_date: ColumnType<string | null, string | null | undefined, never>;
  dicom_rows: ColumnType<number | null, number | null | undefined, never>;
  dicom_columns: ColumnType<number | null, number | null | undefined, never>;
  dicom_frames: ColumnType<number | null, number | null | undefined, never>;
  dicom_bits_allocated: ColumnType<number | null, number | null | undefined, never>;
  dicom_bits_stored: ColumnType<number | null, number | null | undefined, never>;
  dicom_photometric: ColumnType<string | null, string | null | undefined, never>;
  dicom_transfer_syntax: ColumnType<string | null, string | null | undefined, never>;
  dicom_sop_class_uid: ColumnType<string | null, string | null | undefined, never>;
  dicom_study_uid: ColumnType<string | null, string | null | undefined, never>;
  dicom_series_uid: ColumnType<string | null, string | null | undefined, never>;
  dicom_sop_instance_uid: ColumnType<string | null, string | null | undefined, never>;
  /** HMAC of the Patient ID (never the ID itself), for DICOMweb PatientID matching. */
  dicom_patient_key: ColumnType<string | null, string | null | undefined, never>;
  dicom_burned_in: ColumnType<boolean | null, boolean | null | undefined, never>;
  /** A de-identified copy (PS3.15 Annex E) made for a share, and the image it was made from. */
  deidentified: Generated<boolean>;
  source_image_id: ColumnType<string | null, string | null | undefined, never>;
  /** The study share a de-identified copy was made for (migration 0012); null for uploads and single-image copies. */
  copy_for_group: ColumnType<string | null, string | null | undefined, never>;
}

/** A grant of one image to one user, unlocked by a code that is stored only as an argon2id hash. */
export interface SharesTable {
  id: string;
  image_id: string;
  created_by: string;
  created_for: string;
  code_hash: string;
  /** Null: never expires (the patient's own share). */
  expires_at: Timestamp | null;
  attempts: Generated<number>;
  locked_at: Timestamp | null;
  verified_at: Timestamp | null;
  revoked_at: Timestamp | null;
  is_patient_share: Generated<boolean>;
  created_at: Generated<Date>;
  /** Part of a study share (migration 0011): verified, locked and revoked with its group. */
  group_id: ColumnType<string | null, string | null | undefined, never>;
}

/**
 * A study shared under one sharing id and one code (migration 0011); each instance has a `shares`
 * row pointing here, kept in step with it (verified, locked, revoked, expiry).
 */
export interface ShareGroupsTable {
  id: string;
  /** The shared study's UID as its sharer sees it (the source's for a de-identified share). */
  study_uid: string;
  created_by: string;
  created_for: string;
  code_hash: string;
  expires_at: Timestamp | null;
  attempts: Generated<number>;
  locked_at: Timestamp | null;
  verified_at: Timestamp | null;
  revoked_at: Timestamp | null;
  is_patient_share: Generated<boolean>;
  deidentified: Generated<boolean>;
  created_at: Generated<Date>;
}

/** A share with someone without an account (migration 0013): a hashed link token and a hashed code. */
export interface ExternalSharesTable {
  id: string;
  created_by: string;
  recipient_email: string;
  /** The image shared (its source when de-identified); null for a study. */
  source_image_id: string | null;
  study_uid: string | null;
  caption: string;
  token_hash: string;
  code_hash: string;
  generation: Generated<number>;
  attempts: Generated<number>;
  locked_at: Timestamp | null;
  view_only: boolean;
  deidentified: boolean;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  views: Generated<number>;
  last_viewed_at: Timestamp | null;
  created_at: Generated<Date>;
}

export interface ExternalShareImagesTable {
  share_id: string;
  image_id: string;
  position: number;
}

export type ExternalShareRow = Selectable<ExternalSharesTable>;

export type ImageRow = Selectable<ImagesTable>;
export type ShareRow = Selectable<SharesTable>;
export type ShareGroupRow = Selectable<ShareGroupsTable>;

/** One AI analysis run; the result JSON is sealed (crypto/field-encryption.ts, purpose 'analysis'). */
export interface AnalysesTable {
  id: string;
  image_id: string;
  requested_by: string | null;
  provider: 'local' | 'openai';
  model: string;
  result_key_id: string;
  result_nonce: Uint8Array;
  /** AES-256-GCM ciphertext of the findings JSON with its tag. */
  result_ciphertext: Uint8Array;
  created_at: Generated<Date>;
}
export type AnalysisRow = Selectable<AnalysesTable>;

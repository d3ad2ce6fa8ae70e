import { type Kysely, sql } from 'kysely';

// DICOM: non-PHI attributes in columns (PHI stays inside the encrypted blob), the keyed hash of
// the Patient ID for DICOMweb filtering, and the link from a de-identified copy to its source.
const statements = [
  `ALTER TABLE images
    ADD COLUMN dicom_kind text CHECK (dicom_kind IN ('image', 'document')),
    ADD COLUMN dicom_modality text,
    ADD COLUMN dicom_body_part text,
    ADD COLUMN dicom_study_date date,
    ADD COLUMN dicom_rows integer,
    ADD COLUMN dicom_columns integer,
    ADD COLUMN dicom_frames integer,
    ADD COLUMN dicom_bits_allocated smallint,
    ADD COLUMN dicom_bits_stored smallint,
    ADD COLUMN dicom_photometric text,
    ADD COLUMN dicom_transfer_syntax text,
    ADD COLUMN dicom_sop_class_uid text,
    ADD COLUMN dicom_study_uid text,
    ADD COLUMN dicom_series_uid text,
    ADD COLUMN dicom_sop_instance_uid text,
    ADD COLUMN dicom_patient_key text,
    ADD COLUMN dicom_burned_in boolean,
    ADD COLUMN deidentified boolean NOT NULL DEFAULT false,
    ADD COLUMN source_image_id uuid REFERENCES images(id)`,
  `CREATE INDEX images_dicom_study_idx ON images (dicom_study_uid, dicom_series_uid) WHERE deleted_at IS NULL AND dicom_study_uid IS NOT NULL`,
  `CREATE INDEX images_dicom_instance_idx ON images (dicom_sop_instance_uid) WHERE deleted_at IS NULL AND dicom_sop_instance_uid IS NOT NULL`,
  `CREATE INDEX images_source_idx ON images (source_image_id) WHERE source_image_id IS NOT NULL`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

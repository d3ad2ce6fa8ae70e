import type { DicomMetadata } from '@medshare/contracts';
import { describe, expect, it } from 'vitest';
import { formatPersonName, frameCount, metadataRows, transferSyntaxName } from './format-metadata';

const base: DicomMetadata = {
  imageId: '6f1c2a52-3e36-4e9b-9a55-0a7c3f1d9b10',
  caption: 'Chest CT',
  sopClassUid: '1.2.840.10008.5.1.4.1.1.2',
  dicom: {
    kind: 'image',
    modality: 'CT',
    bodyPart: 'CHEST',
    studyDate: '2004-08-26',
    rows: 512,
    columns: 512,
    frames: 1,
    bitsAllocated: 16,
    bitsStored: 16,
    photometricInterpretation: 'MONOCHROME2',
    transferSyntaxUid: '1.2.840.10008.1.2',
    deidentified: false,
    studyInstanceUid: null,
    seriesInstanceUid: null,
    sopInstanceUid: null,
  },
  phi: null,
};

describe('metadata panel rows', () => {
  it('lists the image attributes in reading order and leaves out the missing ones', () => {
    const { image, patient } = metadataRows({ ...base, dicom: { ...base.dicom, bodyPart: null } });
    expect(image).toEqual([
      { label: 'Modality', value: 'CT' },
      { label: 'Study date', value: '2004-08-26' },
      { label: 'Size', value: '512 × 512' },
      { label: 'Frames', value: '1' },
      { label: 'Bits', value: '16 stored / 16 allocated' },
      { label: 'Photometric', value: 'MONOCHROME2' },
      { label: 'Transfer syntax', value: 'Implicit VR Little Endian (1.2.840.10008.1.2)' },
    ]);
    expect(patient).toEqual([]);
  });

  it('shows patient rows only when the server sent them, with names as people write them', () => {
    const { patient } = metadataRows({
      ...base,
      phi: {
        patientName: 'Khan^Amina^^Dr',
        patientId: 'P-17',
        patientBirthDate: '1979-04-08',
        patientSex: 'F',
        accessionNumber: '  ',
        institutionName: null,
        referringPhysicianName: 'Barré^Sébastien',
      },
    });
    expect(patient).toEqual([
      { label: 'Patient', value: 'Dr Amina Khan' },
      { label: 'Patient ID', value: 'P-17' },
      { label: 'Birth date', value: '1979-04-08' },
      { label: 'Sex', value: 'Female' },
      { label: 'Referring physician', value: 'Sébastien Barré' },
    ]);
  });

  it('marks de-identified copies', () => {
    expect(metadataRows({ ...base, dicom: { ...base.dicom, deidentified: true } }).image).toContainEqual({
      label: 'De-identified',
      value: 'Yes',
    });
  });
});

describe('formatting helpers', () => {
  it('names known transfer syntaxes and shows unknown UIDs as they are', () => {
    expect(transferSyntaxName('1.2.840.10008.1.2.4.80')).toBe('JPEG-LS Lossless (1.2.840.10008.1.2.4.80)');
    expect(transferSyntaxName('1.2.3.4')).toBe('1.2.3.4');
    expect(transferSyntaxName(null)).toBeNull();
  });

  it('reads DICOM person names, ignoring ideographic groups', () => {
    expect(formatPersonName('Doe^John')).toBe('John Doe');
    expect(formatPersonName('Yamada^Tarou=山田^太郎')).toBe('Tarou Yamada');
    expect(formatPersonName('^^')).toBeNull();
    expect(formatPersonName(null)).toBeNull();
  });

  it('counts frames from the decoded file first, then the metadata, never below one', () => {
    expect(frameCount(base, 10)).toBe(10);
    expect(frameCount({ ...base, dicom: { ...base.dicom, frames: 30 } }, null)).toBe(30);
    expect(frameCount({ ...base, dicom: { ...base.dicom, frames: 0 } }, null)).toBe(1);
    expect(frameCount(null, null)).toBe(1);
  });
});

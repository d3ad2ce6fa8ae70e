import dcmjs from 'dcmjs';
import { createHmac } from 'node:crypto';
import { type ParsedDicom, TransferSyntax, asPart10 } from './dicom-core.ts';

/**
 * DICOM PS3.15 Annex E, Basic Application Level Confidentiality Profile (Table E.1-1), applied
 * to every level of the data set (sequence items included).
 *   X remove · Z empty (type 2) · D dummy value · U UID replaced through a stable keyed mapping
 * Where the table offers a choice (X/Z, X/Z/D, Z/D …) the strongest that keeps the object valid
 * is used. Beyond the table, conservatively: every private element is removed, every remaining
 * person name is emptied, every remaining date and date-time is emptied (no "retain longitudinal
 * temporal information" option), and every remaining UID outside the DICOM root 1.2.840.10008 is
 * replaced like the listed ones (so references inside sequences stay consistent).
 */
type Action = 'X' | 'Z' | 'D' | 'U';

const TABLE = `
00080012 X InstanceCreationDate|00080013 X InstanceCreationTime|00080014 U InstanceCreatorUID|00080015 X InstanceCoercionDateTime
00080018 U SOPInstanceUID|00080020 Z StudyDate|00080021 X SeriesDate|00080022 X AcquisitionDate|00080023 Z ContentDate
00080024 X OverlayDate|00080025 X CurveDate|0008002A X AcquisitionDateTime|00080030 Z StudyTime|00080031 X SeriesTime
00080032 X AcquisitionTime|00080033 Z ContentTime|00080034 X OverlayTime|00080035 X CurveTime|00080050 Z AccessionNumber
00080058 U FailedSOPInstanceUIDList|00080080 X InstitutionName|00080081 X InstitutionAddress|00080082 X InstitutionCodeSequence
00080090 Z ReferringPhysicianName|00080092 X ReferringPhysicianAddress|00080094 X ReferringPhysicianTelephoneNumbers
00080096 X ReferringPhysicianIdentificationSequence|0008009C Z ConsultingPhysicianName|0008009D X ConsultingPhysicianIdentificationSequence
0008010D U ContextGroupExtensionCreatorUID|00080201 X TimezoneOffsetFromUTC|00081010 X StationName|00081030 X StudyDescription
0008103E X SeriesDescription|00081040 X InstitutionalDepartmentName|00081048 X PhysiciansOfRecord
00081049 X PhysiciansOfRecordIdentificationSequence|00081050 X PerformingPhysicianName|00081052 X PerformingPhysicianIdentificationSequence
00081060 X NameOfPhysiciansReadingStudy|00081062 X PhysiciansReadingStudyIdentificationSequence|00081070 X OperatorsName
00081072 X OperatorIdentificationSequence|00081080 X AdmittingDiagnosesDescription|00081084 X AdmittingDiagnosesCodeSequence
00081110 X ReferencedStudySequence|00081111 X ReferencedPerformedProcedureStepSequence|00081120 X ReferencedPatientSequence
00081140 X ReferencedImageSequence|00081155 U ReferencedSOPInstanceUID|00081195 U TransactionUID|00082111 X DerivationDescription
00083010 U IrradiationEventUID|00100010 Z PatientName|00100020 Z PatientID|00100021 X IssuerOfPatientID|00100030 Z PatientBirthDate
00100032 X PatientBirthTime|00100040 Z PatientSex|00100050 X PatientInsurancePlanCodeSequence|00101000 X OtherPatientIDs
00101001 X OtherPatientNames|00101002 X OtherPatientIDsSequence|00101005 X PatientBirthName|00101010 X PatientAge
00101020 X PatientSize|00101030 X PatientWeight|00101040 X PatientAddress|00101050 X InsurancePlanIdentification
00101060 X PatientMotherBirthName|00101080 X MilitaryRank|00101081 X BranchOfService|00101090 X MedicalRecordLocator
00102000 X MedicalAlerts|00102110 X Allergies|00102150 X CountryOfResidence|00102152 X RegionOfResidence
00102154 X PatientTelephoneNumbers|00102160 X EthnicGroup|00102180 X Occupation|001021A0 X SmokingStatus
001021B0 X AdditionalPatientHistory|001021C0 X PregnancyStatus|001021D0 X LastMenstrualDate|001021F0 X PatientReligiousPreference
00102203 X PatientSexNeutered|00102297 X ResponsiblePerson|00102299 X ResponsibleOrganization|00104000 X PatientComments
00180010 Z ContrastBolusAgent|00181000 X DeviceSerialNumber|00181002 U DeviceUID|00181004 X PlateID|00181005 X GeneratorID
00181007 X CassetteID|00181008 X GantryID|00181030 X ProtocolName|00181200 X DateOfLastCalibration|00181201 X TimeOfLastCalibration
00181400 X AcquisitionDeviceProcessingDescription|00184000 X AcquisitionComments|0018700A X DetectorID|0018A003 X ContributionDescription
0020000D U StudyInstanceUID|0020000E U SeriesInstanceUID|00200010 Z StudyID|00200052 U FrameOfReferenceUID
00200200 U SynchronizationFrameOfReferenceUID|00204000 X ImageComments|00209158 X FrameComments|00209161 U ConcatenationUID
00209164 U DimensionOrganizationUID|00321032 X RequestingPhysician|00321033 X RequestingService|00321060 X RequestedProcedureDescription
00324000 X StudyComments|00380010 X AdmissionID|00380300 X CurrentPatientLocation|00380400 X PatientInstitutionResidence
00384000 X VisitComments|00400006 X ScheduledPerformingPhysicianName|00400241 X PerformedStationAETitle|00400242 X PerformedStationName
00400243 X PerformedLocation|00400244 X PerformedProcedureStepStartDate|00400245 X PerformedProcedureStepStartTime
00400250 X PerformedProcedureStepEndDate|00400251 X PerformedProcedureStepEndTime|00400253 X PerformedProcedureStepID
00400254 X PerformedProcedureStepDescription|00400275 X RequestAttributesSequence|00400280 X CommentsOnThePerformedProcedureStep
00401001 X RequestedProcedureID|00402016 X PlacerOrderNumberImagingServiceRequest|00402017 X FillerOrderNumberImagingServiceRequest
00402400 X ImagingServiceRequestComments|0040A027 X VerifyingOrganization|0040A073 X VerifyingObserverSequence
0040A075 D VerifyingObserverName|0040A088 Z VerifyingObserverIdentificationCodeSequence|0040A123 D PersonName|0040A124 U UID
0040A171 U ObservationUID|0040A730 X ContentSequence|0040DB0C U TemplateExtensionOrganizationUID|0040DB0D U TemplateExtensionCreatorUID
00880140 U StorageMediaFileSetUID|30060024 U ReferencedFrameOfReferenceUID|300600C2 U RelatedFrameOfReferenceUID|300A0013 U DoseReferenceUID
00020003 U MediaStorageSOPInstanceUID|00041511 U ReferencedSOPInstanceUIDInFile`;

export const PROFILE: ReadonlyMap<string, { action: Action; name: string }> = new Map(
  TABLE.split(/[|\n]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [tag, action, name] = entry.split(' ') as [string, Action, string];
      return [tag, { action, name }];
    }),
);

/** Repeating groups of the table: overlay comments and data (60xx), curves (50xx). */
const repeatingAction = (tag: string): Action | null => {
  const group = tag.slice(0, 4);
  if (/^60[0-9A-F]{2}$/.test(group) && (tag.endsWith('4000') || tag.endsWith('3000'))) return 'X';
  if (/^50[0-9A-F]{2}$/.test(group)) return 'X';
  return null;
};

export const DEIDENTIFICATION_METHOD = 'MedShare: DICOM PS3.15 Annex E Basic Application Level Confidentiality Profile';

/** 2.25.<decimal> of the first 128 bits of HMAC-SHA256(key, scope | uid): stable per scope, not reversible. */
export function mappedUid(key: Uint8Array, scope: string, uid: string): string {
  const digest = createHmac('sha256', key).update(`${scope}\0${uid}`).digest();
  return `2.25.${BigInt(`0x${digest.subarray(0, 16).toString('hex')}`).toString(10)}`;
}

interface DictElement {
  vr: string;
  Value?: unknown[];
}
type Dict = Record<string, DictElement>;

export const IMPLEMENTATION_CLASS_UID = '2.25.288218140434406434717693574219440311001';

/** UIDs that name classes and syntaxes, not instances: kept as they are. */
const CLASS_UID_TAGS = new Set([
  '00020002',
  '00020010',
  '00020012',
  '00080016',
  '0008001A',
  '0008001B',
  '00080062',
  '00081150',
  '00041510',
  '00041512',
]);

function explicitHeader(vr: string, length: number): Buffer {
  const h = Buffer.alloc(12);
  h.writeUInt16LE(0x7fe0, 0);
  h.writeUInt16LE(0x0010, 2);
  h.write(vr, 4, 'latin1');
  h.writeUInt32LE(length, 8);
  return h;
}
function item(group: number, element: number, body: Uint8Array): Buffer {
  const h = Buffer.alloc(8);
  h.writeUInt16LE(group, 0);
  h.writeUInt16LE(element, 2);
  h.writeUInt32LE(body.length, 4);
  return Buffer.concat([h, body]);
}

/** (7FE0,0010) in Explicit VR Little Endian, from the source's bytes: fragments as they were, native words swapped from big endian. */
function pixelElement(parsed: ParsedDicom): Uint8Array {
  const ds = parsed.dataSet;
  const pixel = ds.elements.x7fe00010;
  if (!pixel) return new Uint8Array(0);
  if (pixel.encapsulatedPixelData) {
    const table = Buffer.alloc(4 * (pixel.basicOffsetTable?.length ?? 0));
    (pixel.basicOffsetTable ?? []).forEach((v, i) => table.writeUInt32LE(v, i * 4));
    const fragments = (pixel.fragments ?? []).map((f) =>
      item(0xfffe, 0xe000, parsed.byteArray.subarray(f.position, f.position + f.length)),
    );
    return Buffer.concat([
      explicitHeader('OB', 0xffffffff),
      item(0xfffe, 0xe000, table),
      ...fragments,
      item(0xfffe, 0xe0dd, new Uint8Array(0)),
    ]);
  }
  const bitsAllocated = ds.uint16('x00280100') ?? 8;
  let data = Buffer.from(parsed.byteArray.subarray(pixel.dataOffset, pixel.dataOffset + pixel.length));
  if (parsed.transferSyntax === TransferSyntax.explicitBE && bitsAllocated === 16) data = Buffer.from(data).swap16();
  else if (parsed.transferSyntax === TransferSyntax.explicitBE && bitsAllocated === 32)
    data = Buffer.from(data).swap32();
  if (data.length % 2) data = Buffer.concat([data, Buffer.alloc(1)]);
  return Buffer.concat([explicitHeader(bitsAllocated > 8 ? 'OW' : 'OB', data.length), data]);
}

function dummy(vr: string): unknown {
  switch (vr) {
    case 'PN':
      return { Alphabetic: 'ANONYMIZED' };
    case 'DA':
      return '19000101';
    case 'TM':
      return '000000';
    case 'DT':
      return '19000101000000';
    case 'CS':
      return 'ANONYMIZED';
    case 'SQ':
      return undefined;
    case 'US':
    case 'SS':
    case 'UL':
    case 'SL':
    case 'FL':
    case 'FD':
    case 'IS':
    case 'DS':
      return 0;
    default:
      return 'ANONYMIZED';
  }
}

function clean(dict: Dict, mapUid: (uid: string) => string, meta: boolean) {
  for (const tag of Object.keys(dict)) {
    const element = dict[tag]!;
    const upper = tag.toUpperCase();
    const group = Number.parseInt(upper.slice(0, 4), 16);
    if (!meta && group % 2 === 1) {
      delete dict[tag];
      continue;
    }
    const action = PROFILE.get(upper)?.action ?? repeatingAction(upper);
    if (action === 'X') {
      delete dict[tag];
      continue;
    }
    if (action === 'Z') {
      element.Value = [];
      continue;
    }
    if (action === 'D') {
      const d = dummy(element.vr);
      element.Value = d === undefined ? [] : [d];
      continue;
    }
    if (element.vr === 'UI' && Array.isArray(element.Value) && !CLASS_UID_TAGS.has(upper)) {
      element.Value = element.Value.map((v) =>
        typeof v === 'string' && v && (action === 'U' || !v.startsWith('1.2.840.10008.')) ? mapUid(v) : v,
      );
      continue;
    }
    if (element.vr === 'PN' || element.vr === 'DA' || element.vr === 'DT') {
      if (Array.isArray(element.Value) && element.Value.length) element.Value = [];
      continue;
    }
    if (element.vr === 'SQ' && Array.isArray(element.Value)) {
      for (const item of element.Value) if (item && typeof item === 'object') clean(item as Dict, mapUid, false);
    }
  }
}

export interface DeidentifyResult {
  bytes: Uint8Array;
  studyInstanceUid: string | null;
  seriesInstanceUid: string | null;
  sopInstanceUid: string | null;
}

/**
 * A de-identified Part 10 copy. Native big-endian, implicit and deflated objects are rewritten as
 * Explicit VR Little Endian (pixel words swapped when needed); encapsulated pixel data is kept as
 * it is (the fragments are copied, never re-encoded).
 */
export function deidentify(input: Uint8Array, parsed: ParsedDicom, key: Uint8Array, scope: string): DeidentifyResult {
  const part10 = asPart10(input, parsed);
  const buffer = part10.buffer.slice(part10.byteOffset, part10.byteOffset + part10.byteLength) as ArrayBuffer;
  const message = dcmjs.data.DicomMessage.readFile(buffer, { ignoreErrors: true });
  const dict = message.dict as Dict;
  const metaDict = message.meta as Dict;
  const cache = new Map<string, string>();
  const mapUid = (uid: string) => {
    const clean = uid.replace(/\0/g, '').trim();
    let m = cache.get(clean);
    if (!m) {
      m = mappedUid(key, scope, clean);
      cache.set(clean, m);
    }
    return m;
  };
  clean(dict, mapUid, false);
  clean(metaDict, mapUid, true);

  const ts = parsed.transferSyntax;
  if (ts === TransferSyntax.implicitLE || ts === TransferSyntax.explicitBE || ts === TransferSyntax.deflatedLE) {
    metaDict['00020010'] = { vr: 'UI', Value: [TransferSyntax.explicitLE] };
  }
  dict['00120062'] = { vr: 'CS', Value: ['YES'] };
  dict['00120063'] = { vr: 'LO', Value: [DEIDENTIFICATION_METHOD] };
  dict['00120064'] = {
    vr: 'SQ',
    Value: [
      {
        '00080100': { vr: 'SH', Value: ['113100'] },
        '00080102': { vr: 'SH', Value: ['DCM'] },
        '00080104': { vr: 'LO', Value: ['Basic Application Confidentiality Profile'] },
      },
    ],
  };
  // Keep the meta header's instance UID equal to the data set's.
  const sop = (dict['00080018']?.Value?.[0] as string | undefined) ?? null;
  if (sop) metaDict['00020003'] = { vr: 'UI', Value: [sop] };
  metaDict['00020012'] = { vr: 'UI', Value: [IMPLEMENTATION_CLASS_UID] };
  metaDict['00020013'] = { vr: 'SH', Value: ['MEDSHARE'] };
  // Pixel data is copied from the source bytes, not re-encoded by dcmjs (which re-fragments
  // encapsulated frames); nothing after it (padding, signatures) is kept.
  for (const tag of Object.keys(dict)) if (tag.toUpperCase() >= '7FE00010') delete dict[tag];
  const out = new dcmjs.data.DicomDict(metaDict);
  out.dict = dict;
  const head = new Uint8Array(out.write({ allowInvalidVRLength: true }));
  const pixels = pixelElement(parsed);
  const written = new Uint8Array(head.length + pixels.length);
  written.set(head, 0);
  written.set(pixels, head.length);
  return {
    bytes: written,
    studyInstanceUid: (dict['0020000D']?.Value?.[0] as string | undefined) ?? null,
    seriesInstanceUid: (dict['0020000E']?.Value?.[0] as string | undefined) ?? null,
    sopInstanceUid: sop,
  };
}

import type { RoleName, User, UserProfileView } from '@medshare/contracts';

/** What a profile screen can show: the own user (full) or any view the server returned. */
export type ShownProfile = Partial<Omit<User, 'role'>> &
  Pick<User, 'id' | 'firstname' | 'lastname' | 'role'> & { view?: UserProfileView['view'] };

export type FieldKey = Exclude<
  keyof User,
  'id' | 'role' | 'active' | 'emailVerified' | 'createdAt' | 'email' | 'username'
>;

export type FieldSpec = {
  key: FieldKey;
  label: string;
  /** `docs/product.md` › Profile: primary physician and specialization appear only when they have a value. */
  onlyIfPresent?: boolean;
};

export type SectionSpec = { title: string; fields: FieldSpec[] };

function medicalFields(role: RoleName, view: ShownProfile['view']): FieldSpec[] {
  if (role === 'patient') {
    return [
      { key: 'bloodgroup', label: 'Blood group' },
      { key: 'insurancenumber', label: 'Insurance number' },
      { key: 'primphysician', label: 'Primary physician', onlyIfPresent: true },
    ];
  }
  if (role === 'healthProvider') {
    const fields: FieldSpec[] = [
      { key: 'licensenumber', label: 'License number' },
      { key: 'specialization', label: 'Specialization', onlyIfPresent: true },
    ];
    // The care view never carries another provider's insurance number (it is always null there).
    if (view !== 'care') fields.push({ key: 'insurancenumber', label: 'Insurance number' });
    return fields;
  }
  return [{ key: 'insurancenumber', label: 'Insurance number' }];
}

/** `docs/product.md` › Profile: the four sections, with the clinical fields of the user's own role. */
export function profileSections(profile: ShownProfile): SectionSpec[] {
  return [
    {
      title: 'Personal Information',
      fields: [
        { key: 'firstname', label: 'First name' },
        { key: 'lastname', label: 'Last name' },
        { key: 'phone', label: 'Phone' },
        { key: 'dob', label: 'Date of birth' },
        { key: 'gender', label: 'Gender' },
        { key: 'taxid', label: 'Tax ID' },
      ],
    },
    {
      title: 'Address',
      fields: [
        { key: 'address', label: 'Street address' },
        { key: 'city', label: 'City' },
        { key: 'state', label: 'State' },
        { key: 'country', label: 'Country' },
        { key: 'zipcode', label: 'Zip code' },
      ],
    },
    { title: 'Medical Information', fields: medicalFields(profile.role, profile.view) },
  ];
}

const hasValue = (value: unknown) => value !== null && value !== undefined && String(value).trim() !== '';

/** The fields of a section the server returned (a narrower view omits keys, it never nulls them). */
export function visibleFields(profile: ShownProfile, section: SectionSpec): FieldSpec[] {
  return section.fields.filter((field) => {
    if (!(field.key in profile)) return false;
    return !field.onlyIfPresent || hasValue(profile[field.key]);
  });
}

export function displayValue(
  profile: ShownProfile,
  key: FieldKey,
  locale: string,
  formatDate: (v: string, l: string) => string | null,
): string {
  const value = profile[key];
  if (!hasValue(value)) return 'N/A';
  if (key === 'dob') return formatDate(String(value), locale) ?? 'N/A';
  if (key === 'gender') {
    const text = String(value);
    return text.charAt(0).toUpperCase() + text.slice(1);
  }
  return String(value);
}

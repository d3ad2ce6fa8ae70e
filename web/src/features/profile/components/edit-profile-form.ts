import type { RoleName, UpdateProfileBody, User } from '@medshare/contracts';

export type EditableKey = Exclude<keyof UpdateProfileBody, 'gender'>;
export type GenderChoice = '' | 'Male' | 'Female' | 'Other';

export type EditField = {
  key: EditableKey;
  label: string;
  type?: 'text' | 'tel' | 'date';
  multiline?: boolean;
  autoComplete?: string;
};

const common: EditField[] = [
  { key: 'firstname', label: 'First name', autoComplete: 'given-name' },
  { key: 'lastname', label: 'Last name', autoComplete: 'family-name' },
  { key: 'phone', label: 'Phone', type: 'tel', autoComplete: 'tel' },
  { key: 'dob', label: 'Date of birth', type: 'date', autoComplete: 'bday' },
  { key: 'taxid', label: 'Tax ID' },
  { key: 'address', label: 'Street address', autoComplete: 'street-address' },
  { key: 'city', label: 'City', autoComplete: 'address-level2' },
  { key: 'state', label: 'State', autoComplete: 'address-level1' },
  { key: 'country', label: 'Country', autoComplete: 'country-name' },
  { key: 'zipcode', label: 'Zip code', autoComplete: 'postal-code' },
  { key: 'insurancenumber', label: 'Insurance number' },
];

/** The server refuses the other role's clinical fields, so the form offers only the user's own. */
export function editFields(role: RoleName): EditField[] {
  const clinical: EditField[] =
    role === 'patient'
      ? [
          { key: 'bloodgroup', label: 'Blood group' },
          { key: 'primphysician', label: 'Primary physician' },
        ]
      : role === 'healthProvider'
        ? [
            { key: 'licensenumber', label: 'License number' },
            { key: 'specialization', label: 'Specialization' },
          ]
        : [];
  return [...common, ...clinical, { key: 'bio', label: 'Bio', multiline: true }];
}

export type EditFormState = { values: Partial<Record<EditableKey, string>>; gender: GenderChoice };

const genderChoice = (gender: User['gender']): GenderChoice =>
  gender ? ((gender.charAt(0).toUpperCase() + gender.slice(1)) as GenderChoice) : '';

export function initialEditState(user: User): EditFormState {
  const values: Partial<Record<EditableKey, string>> = {};
  for (const field of editFields(user.role)) values[field.key] = user[field.key] ?? '';
  return { values, gender: genderChoice(user.gender) };
}

/** Every field the form shows, '' clearing a value; gender lower-cased (`docs/product.md` › Validation rules). */
export function toUpdateBody(role: RoleName, state: EditFormState): UpdateProfileBody {
  const body: Record<string, string> = {};
  for (const field of editFields(role)) body[field.key] = (state.values[field.key] ?? '').trim();
  body.gender = state.gender.toLowerCase();
  return body as UpdateProfileBody;
}

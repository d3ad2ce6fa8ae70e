import type { RegisterBody } from '@medshare/contracts';

export type RegisterRole = 'patient' | 'healthProvider';

/** Everything the wizard collects; strings as typed, converted once on submit. */
export type RegisterFormState = {
  role: RegisterRole | '';
  firstname: string;
  lastname: string;
  dob: string;
  phone: string;
  city: string;
  state: string;
  country: string;
  zipcode: string;
  address: string;
  gender: '' | 'male' | 'female' | 'other';
  licensenumber: string;
  insurancenumber: string;
  taxid: string;
  specialization: string;
  primphysician: string;
  bloodgroup: string;
  bio: string;
  username: string;
  email: string;
  password: string;
  confirmPassword: string;
};

export const emptyRegisterForm: RegisterFormState = {
  role: '',
  firstname: '',
  lastname: '',
  dob: '',
  phone: '',
  city: '',
  state: '',
  country: '',
  zipcode: '',
  address: '',
  gender: '',
  licensenumber: '',
  insurancenumber: '',
  taxid: '',
  specialization: '',
  primphysician: '',
  bloodgroup: '',
  bio: '',
  username: '',
  email: '',
  password: '',
  confirmPassword: '',
};

export const STEPS = ['Select Role', 'Personal Details', 'Medical Details', 'Security and Submit'] as const;

/** Which step shows a field, so a server error can take the user straight to it. */
export const stepOfField: Record<string, number> = {
  role: 0,
  firstname: 1,
  lastname: 1,
  dob: 1,
  phone: 1,
  city: 1,
  state: 1,
  country: 1,
  zipcode: 1,
  address: 1,
  gender: 1,
  licensenumber: 2,
  insurancenumber: 2,
  taxid: 2,
  specialization: 2,
  primphysician: 2,
  bloodgroup: 2,
  bio: 2,
  username: 3,
  email: 3,
  password: 3,
};

/**
 * The register payload of `docs/product.md` › Calls: active=true (the server ignores it), no
 * confirmPassword, and only the medical fields the chosen role was shown, so switching role never
 * sends stale answers.
 */
export function toRegisterBody(form: RegisterFormState, role: RegisterRole): RegisterBody {
  const t = (value: string) => value.trim();
  const common = {
    role,
    email: t(form.email),
    username: t(form.username),
    password: form.password,
    active: true,
    firstname: t(form.firstname),
    lastname: t(form.lastname),
    dob: form.dob,
    gender: form.gender,
    phone: t(form.phone),
    city: t(form.city),
    state: t(form.state),
    country: t(form.country),
    zipcode: t(form.zipcode),
    address: t(form.address),
    bio: t(form.bio),
  };
  if (role === 'healthProvider') {
    return {
      ...common,
      licensenumber: t(form.licensenumber),
      insurancenumber: t(form.insurancenumber),
      taxid: t(form.taxid),
      specialization: t(form.specialization),
    };
  }
  return { ...common, primphysician: t(form.primphysician), bloodgroup: t(form.bloodgroup) };
}

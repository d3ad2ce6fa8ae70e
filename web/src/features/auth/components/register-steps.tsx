import LocalHospitalIcon from '@mui/icons-material/LocalHospital';
import PersonIcon from '@mui/icons-material/Person';
import Box from '@mui/material/Box';
import FormHelperText from '@mui/material/FormHelperText';
import MenuItem from '@mui/material/MenuItem';
import Radio from '@mui/material/Radio';
import TextField, { type TextFieldProps } from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { PasswordField } from '../../../components/form/password-field';
import { PasswordRules, passwordRulesSummaryId, type PasswordCheck } from '../../../components/form/password-rules';
import { todayAsCalendarDate } from '../../../lib/calendar-date';
import type { RegisterFormState, RegisterRole } from './register-form-state';

type StepProps = {
  form: RegisterFormState;
  errors: Record<string, string>;
  onField: <K extends keyof RegisterFormState>(name: K, value: RegisterFormState[K]) => void;
};

type FieldName = Exclude<keyof RegisterFormState, 'role' | 'gender'>;

function Grid2({ children }: { children: ReactNode }) {
  return <Box sx={{ display: 'grid', gap: 2.5, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>{children}</Box>;
}

function Field({
  name,
  step,
  full,
  ...props
}: { name: FieldName; step: StepProps; full?: boolean } & Omit<TextFieldProps, 'name'>) {
  const error = step.errors[name];
  return (
    <TextField
      {...props}
      name={name}
      value={step.form[name]}
      onChange={(event) => step.onField(name, event.target.value)}
      error={Boolean(error)}
      helperText={error ?? props.helperText}
      sx={full ? { gridColumn: '1 / -1' } : undefined}
    />
  );
}

const roleOptions: { value: RegisterRole; title: string; description: string; icon: ReactNode }[] = [
  {
    value: 'patient',
    title: 'Patient',
    description: 'Receive your images from your care team, unlock them with a code and message your providers.',
    icon: <PersonIcon />,
  },
  {
    value: 'healthProvider',
    title: 'Health Provider',
    description: 'Upload and share studies with patients and colleagues. Accounts are reviewed before use.',
    icon: <LocalHospitalIcon />,
  },
];

export function RoleStep({ form, errors, onField }: StepProps) {
  return (
    <Box role="radiogroup" aria-labelledby="role-step-heading" aria-describedby="role-error">
      <Typography id="role-step-heading" component="h2" variant="h6" sx={{ mb: 2 }}>
        I am registering as
      </Typography>
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
        {roleOptions.map((option) => {
          const selected = form.role === option.value;
          return (
            <Box
              key={option.value}
              component="label"
              sx={(theme) => ({
                display: 'flex',
                gap: 1.5,
                alignItems: 'flex-start',
                p: 2.5,
                borderRadius: 1.5,
                cursor: 'pointer',
                border: `2px solid ${selected ? theme.palette.primary.main : theme.palette.divider}`,
                bgcolor: selected ? 'rgba(11, 92, 173, 0.06)' : 'background.paper',
                transition: 'border-color 120ms, background-color 120ms',
                '&:hover': { borderColor: theme.palette.primary.light },
                '&:focus-within': { boxShadow: `0 0 0 3px ${theme.palette.primary.main}40` },
              })}
            >
              <Radio
                checked={selected}
                onChange={() => onField('role', option.value)}
                value={option.value}
                name="role"
                sx={{ p: 0.5, mt: -0.25 }}
              />
              <Box>
                <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, color: 'primary.main', mb: 0.5 }}>
                  {option.icon}
                  <Typography component="span" sx={{ fontWeight: 700, color: 'text.primary' }}>
                    {option.title}
                  </Typography>
                </Box>
                <Typography variant="body2" color="text.secondary">
                  {option.description}
                </Typography>
              </Box>
            </Box>
          );
        })}
      </Box>
      <FormHelperText id="role-error" error sx={{ mt: 1.5, minHeight: 20 }}>
        {errors.role ?? ''}
      </FormHelperText>
    </Box>
  );
}

export function PersonalStep(step: StepProps) {
  const genderError = step.errors.gender;
  return (
    <Grid2>
      <Field step={step} name="firstname" label="First name" autoComplete="given-name" required />
      <Field step={step} name="lastname" label="Last name" autoComplete="family-name" required />
      <Field
        step={step}
        name="dob"
        label="Date of birth"
        type="date"
        autoComplete="bday"
        slotProps={{ inputLabel: { shrink: true }, htmlInput: { max: todayAsCalendarDate() } }}
      />
      <TextField
        select
        name="gender"
        label="Gender"
        value={step.form.gender}
        onChange={(event) => step.onField('gender', event.target.value as RegisterFormState['gender'])}
        error={Boolean(genderError)}
        helperText={genderError}
      >
        <MenuItem value="male">Male</MenuItem>
        <MenuItem value="female">Female</MenuItem>
        <MenuItem value="other">Other</MenuItem>
      </TextField>
      <Field step={step} name="phone" label="Phone" type="tel" autoComplete="tel" />
      <Field step={step} name="address" label="Address" autoComplete="street-address" />
      <Field step={step} name="city" label="City" autoComplete="address-level2" />
      <Field step={step} name="state" label="State" autoComplete="address-level1" />
      <Field step={step} name="country" label="Country" autoComplete="country-name" />
      <Field step={step} name="zipcode" label="Zip code" autoComplete="postal-code" />
    </Grid2>
  );
}

const bloodGroups = ['A+', 'A-', 'B+', 'B-', 'AB+', 'AB-', 'O+', 'O-'];

export function MedicalStep(step: StepProps) {
  const isProvider = step.form.role === 'healthProvider';
  return (
    <Grid2>
      {isProvider ? (
        <>
          <Field step={step} name="licensenumber" label="License number" />
          <Field step={step} name="specialization" label="Specialization" />
          <Field step={step} name="insurancenumber" label="Insurance number" />
          <Field step={step} name="taxid" label="Tax ID" />
        </>
      ) : (
        <>
          <Field step={step} name="primphysician" label="Primary physician" />
          <Field step={step} name="bloodgroup" label="Blood group" select>
            <MenuItem value="">
              <em>Not known</em>
            </MenuItem>
            {bloodGroups.map((group) => (
              <MenuItem key={group} value={group}>
                {group}
              </MenuItem>
            ))}
          </Field>
        </>
      )}
      <Field
        step={step}
        name="bio"
        label="Bio"
        multiline
        minRows={3}
        full
        helperText="A few words others see on your profile (optional)."
      />
    </Grid2>
  );
}

export function SecurityStep({ passwordCheck, ...step }: StepProps & { passwordCheck: PasswordCheck }) {
  const passwordError = step.errors.password;
  const confirmError = step.errors.confirmPassword;
  return (
    <Grid2>
      <Field step={step} name="username" label="Username" autoComplete="username" required />
      <Field step={step} name="email" label="Email" type="email" autoComplete="email" required />
      <PasswordField
        name="password"
        label="Password"
        autoComplete="new-password"
        required
        value={step.form.password}
        onChange={(event) => step.onField('password', event.target.value)}
        error={Boolean(passwordError)}
        helperText={passwordError}
        describedBy={passwordRulesSummaryId('password-rules')}
      />
      {/* Read right after the password; shown under both fields on wider screens. */}
      <Box sx={{ gridColumn: '1 / -1', order: { sm: 1 } }}>
        <PasswordRules check={passwordCheck} id="password-rules" />
      </Box>
      <PasswordField
        name="confirmPassword"
        label="Confirm password"
        autoComplete="new-password"
        required
        value={step.form.confirmPassword}
        onChange={(event) => step.onField('confirmPassword', event.target.value)}
        error={Boolean(confirmError)}
        helperText={confirmError}
      />
    </Grid2>
  );
}

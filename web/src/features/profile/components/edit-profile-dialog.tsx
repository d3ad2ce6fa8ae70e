import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import TextField from '@mui/material/TextField';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { User } from '@medshare/contracts';
import { Fragment, useState, type FormEvent } from 'react';
import { ApiError } from '../../../lib/api-client';
import { todayAsCalendarDate } from '../../../lib/calendar-date';
import { fieldErrorInline } from '../../../lib/error-text';
import { toast, toastApiError } from '../../../lib/notify';
import { updateProfile as mergeProfile } from '../../../lib/session';
import { useAppDispatch } from '../../../lib/store';
import { useUpdateProfileMutation } from '../api/update-profile';
import { editFields, initialEditState, toUpdateBody, type EditFormState, type GenderChoice } from './edit-profile-form';
import { PHONE_QUERY } from '../../../config/constants';

const PROFILE_UPDATED = 'Profile updated successfully!';

type Props = { user: User; open: boolean; onClose: () => void };

/** The 'Edit user' modal. Mounted per opening, so it always starts from the stored user. */
export function EditProfileDialog({ user, open, onClose }: Props) {
  const fullScreen = useMediaQuery(PHONE_QUERY, { noSsr: true });
  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="md"
      fullScreen={fullScreen}
      aria-labelledby="edit-user-title"
    >
      {open && <EditProfileForm user={user} onClose={onClose} />}
    </Dialog>
  );
}

function EditProfileForm({ user, onClose }: { user: User; onClose: () => void }) {
  const dispatch = useAppDispatch();
  const [updateProfile, { isLoading: isPending }] = useUpdateProfileMutation();
  const [state, setState] = useState<EditFormState>(() => initialEditState(user));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const fields = editFields(user.role);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    try {
      const result = await updateProfile(toUpdateBody(user.role, state)).unwrap();
      dispatch(mergeProfile(result.data));
      toast.success(result.message ?? PROFILE_UPDATED);
      onClose();
    } catch (error) {
      if (error instanceof ApiError) {
        setErrors(Object.fromEntries(error.errors.filter((e) => e.field).map((e) => [e.field, fieldErrorInline(e)])));
      }
      toastApiError(error, 'An error occurred. Please try again.');
    }
  }

  const setValue = (key: string, value: string) => setState((s) => ({ ...s, values: { ...s.values, [key]: value } }));

  return (
    <Box component="form" noValidate onSubmit={(event) => void submit(event)} sx={{ display: 'contents' }}>
      <DialogTitle id="edit-user-title">Edit user</DialogTitle>
      <DialogContent dividers>
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' } }}>
          {fields.map((field) => (
            <Fragment key={field.key}>
              <TextField
                name={field.key}
                label={field.label}
                type={field.type ?? 'text'}
                autoComplete={field.autoComplete ?? 'off'}
                value={state.values[field.key] ?? ''}
                onChange={(event) => setValue(field.key, event.target.value)}
                error={Boolean(errors[field.key])}
                helperText={errors[field.key]}
                multiline={field.multiline}
                minRows={field.multiline ? 3 : undefined}
                required={field.key === 'firstname' || field.key === 'lastname'}
                sx={field.multiline ? { gridColumn: '1 / -1' } : undefined}
                slotProps={
                  field.type === 'date'
                    ? { inputLabel: { shrink: true }, htmlInput: { max: todayAsCalendarDate() } }
                    : undefined
                }
              />
              {field.key === 'dob' && (
                <TextField
                  select
                  name="gender"
                  label="Gender"
                  value={state.gender}
                  onChange={(event) => setState((s) => ({ ...s, gender: event.target.value as GenderChoice }))}
                  error={Boolean(errors.gender)}
                  helperText={errors.gender}
                >
                  <MenuItem value="">
                    <em>Not given</em>
                  </MenuItem>
                  <MenuItem value="Male">Male</MenuItem>
                  <MenuItem value="Female">Female</MenuItem>
                  <MenuItem value="Other">Other</MenuItem>
                </TextField>
              )}
            </Fragment>
          ))}
        </Box>
      </DialogContent>
      <DialogActions sx={{ px: 3, py: 2 }}>
        <Button onClick={onClose} disabled={isPending}>
          Cancel
        </Button>
        <Button type="submit" variant="contained" disabled={isPending}>
          Save changes
        </Button>
      </DialogActions>
    </Box>
  );
}

import Autocomplete from '@mui/material/Autocomplete';
import TextField from '@mui/material/TextField';
import type { UserListItem } from '@medshare/contracts';
import { useState } from 'react';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import { useSearchUsersQuery } from '../api/search-users';

type PatientPickerProps = {
  value: UserListItem | null;
  onChange: (patient: UserListItem | null) => void;
  disabled?: boolean;
};

const SEARCH_DELAY_MS = 250;
const fullName = (u: UserListItem) => `${u.firstname} ${u.lastname}`.trim();

/** Patient search box with a suggestion list, searched on the server as the user types. */
export function PatientPicker({ value, onChange, disabled }: PatientPickerProps) {
  const [input, setInput] = useState('');
  const search = useDebouncedValue(input, SEARCH_DELAY_MS);
  const found = useSearchUsersQuery({ search, role: 'patient', limit: 10 });
  const options = found.isError ? [] : (found.data ?? []);
  const loading = found.isFetching;

  return (
    <Autocomplete
      options={options}
      value={value}
      onChange={(_event, patient) => onChange(patient)}
      inputValue={input}
      onInputChange={(_event, text) => setInput(text)}
      // The server already filtered by the typed text.
      filterOptions={(list) => list}
      getOptionLabel={(u) => `${fullName(u)} (${u.email})`}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      loading={loading}
      disabled={disabled}
      noOptionsText="No patients found"
      renderInput={(params) => (
        <TextField {...params} label="Patient" placeholder="Search patients by name or e-mail" />
      )}
    />
  );
}

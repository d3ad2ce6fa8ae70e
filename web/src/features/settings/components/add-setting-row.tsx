import AddIcon from '@mui/icons-material/Add';
import Button from '@mui/material/Button';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import { useState, type FormEvent } from 'react';
import type { SettingFieldErrors } from '../utils/setting-errors';
import type { SettingDraft } from './setting-row';

const EMPTY: SettingDraft = { name: '', value: '', description: '' };
const FORM_ID = 'add-setting-form';
const cell = { verticalAlign: 'top' } as const;

type AddSettingRowProps = {
  adding: boolean;
  serverErrors: SettingFieldErrors;
  /** Resolves true when the setting was added, so the row can clear itself. */
  onAdd: (draft: SettingDraft) => Promise<boolean>;
};

/** The last row of the table: a new setting's inputs and the spec's 'Add' button. */
export function AddSettingRow({ adding, serverErrors, onAdd }: AddSettingRowProps) {
  const [draft, setDraft] = useState<SettingDraft>(EMPTY);
  const [nameError, setNameError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // Spec §5: adding requires a non-empty name; checked here so no call is made without one.
    if (!draft.name.trim()) {
      setNameError('Name is required');
      return;
    }
    setNameError(null);
    if (await onAdd(draft)) setDraft(EMPTY);
  };

  const errors: SettingFieldErrors = { ...serverErrors, ...(nameError ? { name: nameError } : {}) };

  return (
    <TableRow sx={{ bgcolor: 'action.hover' }}>
      <TableCell sx={cell}>
        <form id={FORM_ID} onSubmit={(e) => void submit(e)} noValidate aria-label="Add a setting" />
        <TextField
          size="small"
          label="New name"
          value={draft.name}
          onChange={(e) => {
            setDraft({ ...draft, name: e.target.value });
            if (nameError && e.target.value.trim()) setNameError(null);
          }}
          required
          error={Boolean(errors.name)}
          helperText={errors.name}
          slotProps={{ htmlInput: { form: FORM_ID, maxLength: 100 } }}
          sx={{ minWidth: 170 }}
        />
      </TableCell>
      <TableCell sx={cell}>
        <TextField
          size="small"
          label="New value"
          value={draft.value}
          onChange={(e) => setDraft({ ...draft, value: e.target.value })}
          error={Boolean(errors.value)}
          helperText={errors.value}
          slotProps={{ htmlInput: { form: FORM_ID, maxLength: 2000 } }}
          sx={{ minWidth: 150 }}
        />
      </TableCell>
      <TableCell sx={cell}>
        <TextField
          size="small"
          label="New description"
          value={draft.description}
          onChange={(e) => setDraft({ ...draft, description: e.target.value })}
          error={Boolean(errors.description)}
          helperText={errors.description}
          slotProps={{ htmlInput: { form: FORM_ID, maxLength: 500 } }}
          sx={{ minWidth: 200 }}
        />
      </TableCell>
      <TableCell sx={cell} />
      <TableCell sx={cell} />
      <TableCell sx={cell}>
        <Button type="submit" form={FORM_ID} variant="contained" size="small" startIcon={<AddIcon />} disabled={adding}>
          Add
        </Button>
      </TableCell>
    </TableRow>
  );
}

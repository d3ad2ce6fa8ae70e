import CloseIcon from '@mui/icons-material/Close';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import SaveOutlinedIcon from '@mui/icons-material/SaveOutlined';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import type { AppSetting } from '@medshare/contracts';
import { useState, type FormEvent } from 'react';
import { KNOWN_RENAME, KNOWN_UNDELETABLE, isKnownSetting } from '../utils/known-settings';
import type { SettingFieldErrors } from '../utils/setting-errors';

export type SettingDraft = { name: string; value: string; description: string };

type SettingRowProps = {
  setting: AppSetting;
  editing: boolean;
  saving: boolean;
  errors: SettingFieldErrors;
  formatDate: (iso: string) => string;
  onEdit: () => void;
  onCancel: () => void;
  onSave: (draft: SettingDraft) => void;
  onDelete: () => void;
};

const textCell = { wordBreak: 'break-word', verticalAlign: 'top' } as const;

/** One setting: text in view mode, inputs with Save/Cancel in edit mode. */
export function SettingRow({
  setting,
  editing,
  saving,
  errors,
  formatDate,
  onEdit,
  onCancel,
  onSave,
  onDelete,
}: SettingRowProps) {
  const known = isKnownSetting(setting.name);
  const formId = `setting-form-${setting.id}`;
  const [draft, setDraft] = useState<SettingDraft>({
    name: setting.name,
    value: setting.value,
    description: setting.description ?? '',
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave(draft);
  };

  if (editing) {
    return (
      <TableRow selected>
        <TableCell sx={textCell}>
          {/* Inputs in other cells join this form through their form attribute. */}
          <form id={formId} onSubmit={submit} noValidate />
          <TextField
            size="small"
            label="Name"
            value={draft.name}
            onChange={(e) => setDraft({ ...draft, name: e.target.value })}
            disabled={known}
            error={Boolean(errors.name)}
            helperText={errors.name ?? (known ? KNOWN_RENAME : undefined)}
            slotProps={{
              htmlInput: { form: formId, maxLength: 100 },
              // The reason must stay readable although the field is disabled (contrast).
              formHelperText: { sx: { '&.Mui-disabled': { color: 'text.secondary' } } },
            }}
            sx={{ minWidth: 170 }}
          />
        </TableCell>
        <TableCell sx={textCell}>
          <TextField
            size="small"
            label="Value"
            value={draft.value}
            onChange={(e) => setDraft({ ...draft, value: e.target.value })}
            error={Boolean(errors.value)}
            helperText={errors.value}
            autoFocus
            slotProps={{ htmlInput: { form: formId, maxLength: 2000 } }}
            sx={{ minWidth: 150 }}
          />
        </TableCell>
        <TableCell sx={textCell}>
          <TextField
            size="small"
            label="Description"
            value={draft.description}
            onChange={(e) => setDraft({ ...draft, description: e.target.value })}
            error={Boolean(errors.description)}
            helperText={errors.description}
            slotProps={{ htmlInput: { form: formId, maxLength: 500 } }}
            sx={{ minWidth: 200 }}
          />
        </TableCell>
        <TableCell sx={textCell}>{formatDate(setting.createdAt)}</TableCell>
        <TableCell sx={textCell}>{formatDate(setting.updatedAt)}</TableCell>
        <TableCell sx={{ verticalAlign: 'top' }}>
          <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1, alignItems: 'stretch' }}>
            <Button
              type="submit"
              form={formId}
              size="small"
              variant="contained"
              startIcon={<SaveOutlinedIcon />}
              disabled={saving}
            >
              Save
            </Button>
            <Button size="small" variant="outlined" startIcon={<CloseIcon />} onClick={onCancel} disabled={saving}>
              Cancel
            </Button>
          </Box>
        </TableCell>
      </TableRow>
    );
  }

  return (
    <TableRow hover>
      <TableCell sx={textCell}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Typography
            component="span"
            sx={{ fontFamily: 'monospace', fontWeight: 600, fontSize: 14, whiteSpace: 'nowrap' }}
          >
            {setting.name}
          </Typography>
          {known && <Chip size="small" label="Built-in" color="primary" variant="outlined" />}
        </Box>
      </TableCell>
      <TableCell sx={textCell}>{setting.value}</TableCell>
      <TableCell sx={{ ...textCell, color: 'text.secondary' }}>{setting.description || '—'}</TableCell>
      <TableCell sx={{ ...textCell, minWidth: 120 }}>{formatDate(setting.createdAt)}</TableCell>
      <TableCell sx={{ ...textCell, minWidth: 120 }}>{formatDate(setting.updatedAt)}</TableCell>
      <TableCell sx={{ verticalAlign: 'top' }}>
        <Box sx={{ display: 'flex', gap: 0.5 }}>
          <Tooltip title="Edit" describeChild>
            <IconButton size="small" color="primary" onClick={onEdit} aria-label={`Edit ${setting.name}`}>
              <EditOutlinedIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          {known ? (
            // aria-disabled keeps the button focusable, so keyboard users reach the reason too.
            <Tooltip title={KNOWN_UNDELETABLE} describeChild>
              <IconButton
                size="small"
                aria-label={`Delete ${setting.name}`}
                aria-disabled="true"
                onClick={(e) => e.preventDefault()}
                sx={{ color: 'text.secondary', opacity: 0.6, cursor: 'not-allowed' }}
              >
                <DeleteOutlineIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          ) : (
            <Tooltip title="Delete" describeChild>
              <IconButton size="small" color="error" onClick={onDelete} aria-label={`Delete ${setting.name}`}>
                <DeleteOutlineIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          )}
        </Box>
      </TableCell>
    </TableRow>
  );
}

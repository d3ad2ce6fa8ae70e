import SaveOutlinedIcon from '@mui/icons-material/SaveOutlined';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { AppSetting } from '@medshare/contracts';
import { KNOWN_RENAME, isKnownSetting } from '../utils/known-settings';
import type { SettingFieldErrors } from '../utils/setting-errors';
import { SettingActions } from './setting-actions';
import { SettingEditor, type SettingDraft } from './setting-editor';
import { SettingName } from './setting-name';

export type { SettingDraft } from './setting-editor';

export type SettingItemProps = {
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

export const SETTING_COLUMNS = 6;
const textCell = { overflowWrap: 'anywhere', verticalAlign: 'top' } as const;

/** The inputs of a setting being edited, with its dates beneath. */
export function SettingEditForm({ setting, saving, errors, formatDate, onCancel, onSave }: SettingItemProps) {
  const known = isKnownSetting(setting.name);
  return (
    <>
      <SettingEditor
        formLabel={`Edit ${setting.name}`}
        initial={{ name: setting.name, value: setting.value, description: setting.description ?? '' }}
        labels={{ name: 'Name', value: 'Value', description: 'Description' }}
        errors={errors}
        busy={saving}
        submitLabel="Save"
        submitIcon={<SaveOutlinedIcon />}
        onSubmit={(draft) => onSave(draft)}
        onCancel={onCancel}
        nameLock={known ? KNOWN_RENAME : undefined}
        autoFocusValue
      />
      <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
        {`Created ${formatDate(setting.createdAt)} · Updated ${formatDate(setting.updatedAt)}`}
      </Typography>
    </>
  );
}

/**
 * One setting as a table row: text in view mode; in edit mode one cell across the row holds the
 * inputs, so a long name is never cut and Save/Cancel stay inside the table.
 */
export function SettingRow(props: SettingItemProps) {
  const { setting, editing, formatDate, onEdit, onDelete } = props;
  if (editing) {
    return (
      <TableRow selected>
        <TableCell colSpan={SETTING_COLUMNS} sx={{ py: 2 }}>
          <SettingEditForm {...props} />
        </TableCell>
      </TableRow>
    );
  }
  return (
    <TableRow hover>
      <TableCell sx={textCell}>
        <SettingName name={setting.name} />
      </TableCell>
      <TableCell sx={textCell}>{setting.value}</TableCell>
      <TableCell sx={{ ...textCell, color: 'text.secondary' }}>{setting.description || '—'}</TableCell>
      <TableCell sx={textCell}>{formatDate(setting.createdAt)}</TableCell>
      <TableCell sx={textCell}>{formatDate(setting.updatedAt)}</TableCell>
      <TableCell sx={{ verticalAlign: 'top', px: 1 }}>
        <SettingActions setting={setting} onEdit={onEdit} onDelete={onDelete} />
      </TableCell>
    </TableRow>
  );
}

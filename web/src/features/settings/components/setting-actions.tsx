import DeleteOutlineIcon from '@mui/icons-material/DeleteOutlined';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import type { AppSetting } from '@medshare/contracts';
import { KNOWN_UNDELETABLE, isKnownSetting } from '../utils/known-settings';

/** Edit and Delete of one setting in view mode; a built-in setting's Delete says why it is off. */
export function SettingActions({
  setting,
  onEdit,
  onDelete,
}: {
  setting: AppSetting;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <Box sx={{ display: 'flex', gap: 0.5 }}>
      <Tooltip title="Edit" describeChild>
        <IconButton color="primary" onClick={onEdit} aria-label={`Edit ${setting.name}`}>
          <EditOutlinedIcon fontSize="small" />
        </IconButton>
      </Tooltip>
      {isKnownSetting(setting.name) ? (
        // aria-disabled keeps the button focusable, so keyboard users reach the reason too.
        <Tooltip title={KNOWN_UNDELETABLE} describeChild>
          <IconButton
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
          <IconButton color="error" onClick={onDelete} aria-label={`Delete ${setting.name}`}>
            <DeleteOutlineIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      )}
    </Box>
  );
}

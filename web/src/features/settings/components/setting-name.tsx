import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Typography from '@mui/material/Typography';
import { isKnownSetting } from '../utils/known-settings';

/** A setting's name as code, wrapping inside its column rather than overflowing it. */
export function SettingName({ name }: { name: string }) {
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap', minWidth: 0 }}>
      <Typography
        component="span"
        sx={{ fontFamily: 'monospace', fontWeight: 600, fontSize: 14, overflowWrap: 'anywhere' }}
      >
        {name}
      </Typography>
      {isKnownSetting(name) && <Chip size="small" label="Built-in" color="primary" variant="outlined" />}
    </Box>
  );
}

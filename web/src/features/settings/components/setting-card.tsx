import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import Typography from '@mui/material/Typography';
import { SettingActions } from './setting-actions';
import { SettingName } from './setting-name';
import { SettingEditForm, type SettingItemProps } from './setting-row';

/** One setting on a phone: a card whose fields stack, with Save/Cancel under the inputs. */
export function SettingCard(props: SettingItemProps) {
  const { setting, editing, formatDate, onEdit, onDelete } = props;
  return (
    <Card
      component="li"
      variant="outlined"
      aria-label={setting.name}
      sx={{ p: 2, listStyle: 'none', bgcolor: editing ? 'action.selected' : undefined }}
    >
      {editing ? (
        <SettingEditForm {...props} />
      ) : (
        <>
          <Box sx={{ display: 'flex', alignItems: 'flex-start', gap: 1 }}>
            <Box sx={{ flexGrow: 1, minWidth: 0, pt: 1 }}>
              <SettingName name={setting.name} />
            </Box>
            <SettingActions setting={setting} onEdit={onEdit} onDelete={onDelete} />
          </Box>
          <Box
            component="dl"
            sx={{
              m: 0,
              mt: 1,
              display: 'grid',
              gridTemplateColumns: 'auto 1fr',
              columnGap: 1.5,
              rowGap: 0.5,
              alignItems: 'baseline',
              '& dd': { m: 0, minWidth: 0, overflowWrap: 'anywhere' },
            }}
          >
            <Typography component="dt" variant="caption" color="text.secondary">
              Value
            </Typography>
            <Typography component="dd">{setting.value || '—'}</Typography>
            <Typography component="dt" variant="caption" color="text.secondary">
              Description
            </Typography>
            <Typography component="dd" color="text.secondary">
              {setting.description || '—'}
            </Typography>
          </Box>
          <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
            {`Created ${formatDate(setting.createdAt)} · Updated ${formatDate(setting.updatedAt)}`}
          </Typography>
        </>
      )}
    </Card>
  );
}

import type { Analysis } from '@medshare/contracts';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { DisplaySettings } from '../api/analysis';
import { formatAnalysisTime, formatConfidence, providerLabel } from '../utils/format';

/** Every stored result of the image, newest first; choosing one shows it above. */
export function AnalysisHistory({
  items,
  selectedId,
  display,
  onSelect,
}: {
  items: Analysis[];
  selectedId: string | null;
  display: DisplaySettings;
  onSelect: (analysis: Analysis) => void;
}) {
  return (
    <Paper
      component="section"
      variant="outlined"
      aria-labelledby="analysis-history"
      sx={{ px: { xs: 2, sm: 3 }, py: 2 }}
    >
      <Typography id="analysis-history" variant="h6" component="h2" sx={{ fontSize: 18, mb: 1 }}>
        Earlier results
      </Typography>
      {items.length === 0 ? (
        <Typography color="text.secondary">No earlier results.</Typography>
      ) : (
        <List dense disablePadding>
          {items.map((item, i) => (
            <ListItem key={item.id} disablePadding>
              <ListItemButton
                selected={item.id === selectedId}
                aria-current={item.id === selectedId ? 'true' : undefined}
                onClick={() => onSelect(item)}
                sx={{ borderRadius: 1 }}
              >
                <ListItemText
                  primary={`${formatAnalysisTime(item.timestamp, display)}${i === 0 ? ' (latest)' : ''}`}
                  secondary={`${providerLabel(item)} · confidence ${formatConfidence(item.confidence)}`}
                />
              </ListItemButton>
            </ListItem>
          ))}
        </List>
      )}
    </Paper>
  );
}

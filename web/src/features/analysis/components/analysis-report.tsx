import type { Analysis } from '@medshare/contracts';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import type { DisplaySettings } from '../api/analysis';
import { formatAnalysisTime, formatConfidence, providerLabel } from '../utils/format';

function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Box component="section" aria-labelledby={id} sx={{ py: 2, '& + &': { borderTop: 1, borderColor: 'divider' } }}>
      <Typography id={id} variant="h6" component="h2" sx={{ fontSize: 18, mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

function Items({ items, empty }: { items: string[]; empty: string }) {
  if (items.length === 0) return <Typography color="text.secondary">{empty}</Typography>;
  return (
    <List dense disablePadding sx={{ listStyleType: 'disc', pl: 3 }}>
      {items.map((item, i) => (
        <ListItem key={i} disableGutters sx={{ display: 'list-item', py: 0.25 }}>
          {item}
        </ListItem>
      ))}
    </List>
  );
}

function Meter({ value, label }: { value: number; label: string }) {
  return (
    <LinearProgress
      variant="determinate"
      value={Math.round(Math.min(1, Math.max(0, value)) * 100)}
      aria-label={label}
      sx={{ height: 8, borderRadius: 4, flex: 1, minWidth: 60 }}
    />
  );
}

/** One analysis in the sections of `docs/product.md` › AI analysis, with its provider, time and the disclaimer. */
export function AnalysisReport({
  analysis,
  display,
  earlier,
}: {
  analysis: Analysis;
  display: DisplaySettings;
  /** Shown when the result on screen is not the newest one. */
  earlier?: boolean;
}) {
  const noDiagnosis = analysis.differentialDiagnosis.length === 0;
  return (
    <Paper variant="outlined" sx={{ px: { xs: 2, sm: 3 }, py: 1 }}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        spacing={1}
        sx={{
          py: 2,
          alignItems: { sm: 'center' },
          justifyContent: 'space-between',
          borderBottom: 1,
          borderColor: 'divider',
        }}
      >
        <Typography>
          Analysis generated at{' '}
          <Box component="time" dateTime={analysis.timestamp} sx={{ fontWeight: 600 }}>
            {formatAnalysisTime(analysis.timestamp, display)}
          </Box>
          {earlier ? ' (earlier result)' : ''}
        </Typography>
        <Chip
          label={providerLabel(analysis)}
          color={analysis.provider === 'local' ? 'default' : 'primary'}
          variant="outlined"
          size="small"
          sx={{ alignSelf: { xs: 'flex-start', sm: 'center' }, maxWidth: '100%' }}
        />
      </Stack>

      <Section id="analysis-description" title="Description">
        <Typography sx={{ overflowWrap: 'anywhere' }}>{analysis.description}</Typography>
      </Section>

      <Section id="analysis-differential" title="Differential Diagnosis">
        {noDiagnosis ? (
          <Typography color="text.secondary">
            {analysis.provider === 'local'
              ? 'None. The local report measures image quality only and never suggests a diagnosis.'
              : 'None suggested.'}
          </Typography>
        ) : (
          <List disablePadding>
            {analysis.differentialDiagnosis.map((d, i) => (
              <ListItem key={i} disableGutters sx={{ display: 'block', py: 0.75 }}>
                <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
                  <Typography sx={{ flex: 2, overflowWrap: 'anywhere' }}>{d.condition}</Typography>
                  <Meter value={d.confidence} label={`Confidence for ${d.condition}`} />
                  <Typography sx={{ minWidth: 44, textAlign: 'right', fontVariantNumeric: 'tabular-nums' }}>
                    {formatConfidence(d.confidence)}
                  </Typography>
                </Stack>
              </ListItem>
            ))}
          </List>
        )}
      </Section>

      <Section id="analysis-treatment" title="Treatment">
        <Items items={analysis.treatment} empty="None suggested." />
      </Section>

      <Section id="analysis-follow-up" title="Follow-Up">
        <Items items={analysis.followUp} empty="None suggested." />
      </Section>

      <Section id="analysis-warnings" title="Warnings">
        {analysis.warnings.length === 0 ? (
          <Typography color="text.secondary">None.</Typography>
        ) : (
          <Stack spacing={1}>
            {analysis.warnings.map((w, i) => (
              <Alert key={i} severity="warning" variant="outlined" sx={{ overflowWrap: 'anywhere' }}>
                {w}
              </Alert>
            ))}
          </Stack>
        )}
      </Section>

      <Section id="analysis-confidence" title="Confidence Score">
        <Stack direction="row" spacing={2} sx={{ alignItems: 'center', maxWidth: 420 }}>
          <Typography variant="h5" component="p" sx={{ minWidth: 64, fontVariantNumeric: 'tabular-nums' }}>
            {formatConfidence(analysis.confidence)}
          </Typography>
          <Meter value={analysis.confidence} label="Overall confidence" />
        </Stack>
      </Section>
    </Paper>
  );
}

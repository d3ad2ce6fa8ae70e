import ChevronLeftIcon from '@mui/icons-material/ChevronLeft';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import FirstPageIcon from '@mui/icons-material/FirstPage';
import LastPageIcon from '@mui/icons-material/LastPage';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';

type PagingControlProps = {
  page: number;
  totalPages: number;
  onChange: (page: number) => void;
  label?: string;
  disabled?: boolean;
  /** The server counted only the first pages (a list window): the total reads 'n+'. */
  capped?: boolean;
};

/**
 * `docs/product.md` › States and transitions: first/previous disabled on the first page, next/last
 * on the last; the page only moves within 1..totalPages. The label reads 'page / total', or 'page /
 * total+' when capped.
 */
export function PagingControl({ page, totalPages, onChange, label = 'Pages', disabled, capped }: PagingControlProps) {
  const total = Math.max(1, totalPages);
  const current = Math.min(Math.max(1, page), total);
  const go = (target: number) => {
    const next = Math.min(Math.max(1, target), total);
    if (next !== current) onChange(next);
  };
  const atFirst = current <= 1 || Boolean(disabled);
  const atLast = current >= total || Boolean(disabled);

  return (
    <Stack
      component="nav"
      aria-label={label}
      direction="row"
      spacing={0.5}
      sx={{ alignItems: 'center', justifyContent: 'center' }}
    >
      <IconButton aria-label="First page" onClick={() => go(1)} disabled={atFirst}>
        <FirstPageIcon />
      </IconButton>
      <IconButton aria-label="Previous page" onClick={() => go(current - 1)} disabled={atFirst}>
        <ChevronLeftIcon />
      </IconButton>
      <Typography aria-live="polite" sx={{ minWidth: 64, textAlign: 'center', fontWeight: 600 }}>
        {`${current} / ${total}${capped ? '+' : ''}`}
      </Typography>
      <IconButton aria-label="Next page" onClick={() => go(current + 1)} disabled={atLast}>
        <ChevronRightIcon />
      </IconButton>
      <IconButton aria-label="Last page" onClick={() => go(total)} disabled={atLast}>
        <LastPageIcon />
      </IconButton>
    </Stack>
  );
}

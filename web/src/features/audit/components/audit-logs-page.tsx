import SearchIcon from '@mui/icons-material/Search';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import InputAdornment from '@mui/material/InputAdornment';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AUDIT_PAGE_SIZES } from '@medshare/contracts/audit';
import type { AuditLog, AuditPagination } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { ScrollRegion } from '../../../components/ui/scroll-region';
import { formatDateTime, useDisplaySettings } from '../../../lib/display-settings';
import { listAuditActions } from '../api/list-audit-actions';
import { listAuditLogs } from '../api/list-audit-logs';
import { useDebouncedValue } from '../hooks/use-debounced-value';
import { describeAuditError } from '../utils/describe-audit-error';

const COLUMNS = ['Timestamp', 'User', 'Action', 'Table', 'IP Address', 'Reason', 'Status'] as const;
const SEARCH_DEBOUNCE_MS = 350;
export const CAPPED_NOTE = 'Showing the newest 10 000 matches — narrow the filters to reach older entries.';

type Result =
  | { key: string; status: 'ok'; items: AuditLog[]; pagination: AuditPagination | undefined }
  | { key: string; status: 'error'; message: string };

const nowrap = { whiteSpace: 'nowrap', verticalAlign: 'top' } as const;
const top = { verticalAlign: 'top' } as const;

function UserCell({ user }: { user: AuditLog['user'] }) {
  if (!user) return <Typography sx={{ color: 'text.secondary', fontSize: 14 }}>Unknown user</Typography>;
  return (
    <>
      <Typography sx={{ fontSize: 14, fontWeight: 600 }}>{`${user.firstname} ${user.lastname}`.trim()}</Typography>
      <Typography sx={{ fontSize: 13, color: 'text.secondary' }}>@{user.username}</Typography>
    </>
  );
}

export function AuditLogsPage() {
  const display = useDisplaySettings();
  const [searchInput, setSearchInput] = useState('');
  const search = useDebouncedValue(searchInput.trim(), SEARCH_DEBOUNCE_MS);
  const [action, setAction] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [limit, setLimit] = useState<number>(AUDIT_PAGE_SIZES[0]);
  const filterKey = JSON.stringify([search, action, from, to, limit]);
  // Any change of filters or page size starts again at page 1.
  const [paging, setPaging] = useState({ key: filterKey, page: 1 });
  const page = paging.key === filterKey ? paging.page : 1;
  const requestKey = `${filterKey}#${page}`;

  const [result, setResult] = useState<Result | null>(null);
  const [actions, setActions] = useState<string[]>([]);

  useEffect(() => {
    const controller = new AbortController();
    listAuditActions(controller.signal)
      .then((r) => setActions(r.data))
      .catch(() => {
        // Without the list the filter offers only 'All actions'; the table reports real failures.
      });
    return () => controller.abort();
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    listAuditLogs({ page, limit, search, action, from, to }, controller.signal)
      .then(({ items, pagination }) => setResult({ key: requestKey, status: 'ok', items, pagination }))
      .catch((error: unknown) => {
        if (error instanceof DOMException && error.name === 'AbortError') return;
        console.error('Failed to fetch audit logs', error);
        setResult({ key: requestKey, status: 'error', message: describeAuditError(error) });
      });
    return () => controller.abort();
  }, [search, action, from, to, limit, page, requestKey]);

  const loading = result?.key !== requestKey;
  const pagination = result?.status === 'ok' ? result.pagination : undefined;
  const total = pagination?.totalItems ?? 0;
  const filtered = Boolean(search || action || from || to);

  return (
    <>
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Box
          role="search"
          aria-label="Filter audit logs"
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: '1.6fr 1.3fr 1.1fr 1.1fr auto' },
            alignItems: 'start',
          }}
        >
          <TextField
            size="small"
            type="search"
            label="Search by user"
            placeholder="Name, username or e-mail"
            value={searchInput}
            onChange={(e) => setSearchInput(e.target.value)}
            slotProps={{
              htmlInput: { maxLength: 100 },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon fontSize="small" aria-hidden />
                  </InputAdornment>
                ),
              },
            }}
          />
          <TextField
            size="small"
            select
            label="Action"
            value={action}
            onChange={(e) => setAction(e.target.value)}
            slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          >
            <option value="">All actions</option>
            {actions.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </TextField>
          <TextField
            size="small"
            type="date"
            label="From"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
            slotProps={{ inputLabel: { shrink: true }, htmlInput: { max: to || undefined } }}
          />
          <TextField
            size="small"
            type="date"
            label="To"
            value={to}
            onChange={(e) => setTo(e.target.value)}
            slotProps={{ inputLabel: { shrink: true }, htmlInput: { min: from || undefined } }}
          />
          <Button
            variant="outlined"
            disabled={!filtered && !searchInput}
            onClick={() => {
              setSearchInput('');
              setAction('');
              setFrom('');
              setTo('');
            }}
            sx={{ height: 40 }}
          >
            Clear filters
          </Button>
        </Box>
      </Paper>

      {pagination?.totalItemsCapped && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {CAPPED_NOTE}
        </Alert>
      )}

      <Paper variant="outlined" sx={{ overflow: 'hidden' }}>
        <Box sx={{ height: 4 }}>{loading && <LinearProgress aria-label="Loading audit logs" />}</Box>
        <ScrollRegion label="Audit log entries">
          <Table size="small" sx={{ minWidth: 900 }} aria-busy={loading}>
            <TableHead>
              <TableRow>
                {COLUMNS.map((column) => (
                  <TableCell key={column} scope="col" sx={{ fontWeight: 700, whiteSpace: 'nowrap' }}>
                    {column}
                  </TableCell>
                ))}
              </TableRow>
            </TableHead>
            <TableBody>
              {result?.status === 'error' && (
                <TableRow>
                  <TableCell colSpan={COLUMNS.length} role="alert" sx={{ color: 'error.main', fontWeight: 600 }}>
                    {result.message}
                  </TableCell>
                </TableRow>
              )}
              {result?.status === 'ok' && result.items.length === 0 && (
                <TableRow>
                  <TableCell colSpan={COLUMNS.length} sx={{ color: 'text.secondary' }}>
                    {filtered ? 'No audit entries match these filters.' : 'No audit entries yet.'}
                  </TableCell>
                </TableRow>
              )}
              {result?.status === 'ok' &&
                result.items.map((log) => (
                  <TableRow key={log.id} hover>
                    <TableCell sx={{ ...top, minWidth: 100 }}>
                      <time dateTime={log.createAt}>{formatDateTime(log.createAt, display)}</time>
                    </TableCell>
                    <TableCell sx={{ ...top, minWidth: 150 }}>
                      <UserCell user={log.user} />
                    </TableCell>
                    <TableCell sx={nowrap}>
                      <Typography component="span" sx={{ fontFamily: 'monospace', fontSize: 13 }}>
                        {log.actiontype}
                      </Typography>
                    </TableCell>
                    <TableCell sx={nowrap}>{log.tablename ?? '—'}</TableCell>
                    <TableCell sx={nowrap}>{log.ipaddress ?? '—'}</TableCell>
                    <TableCell sx={{ ...top, minWidth: 180, wordBreak: 'break-word' }}>{log.reason ?? '—'}</TableCell>
                    <TableCell sx={top}>
                      <Chip
                        size="small"
                        variant="outlined"
                        color={log.status === 'success' ? 'success' : 'error'}
                        label={log.status === 'success' ? 'Success' : 'Failure'}
                      />
                    </TableCell>
                  </TableRow>
                ))}
            </TableBody>
          </Table>
        </ScrollRegion>
        <TablePagination
          component="div"
          rowsPerPageOptions={[...AUDIT_PAGE_SIZES]}
          count={total}
          rowsPerPage={limit}
          page={total === 0 ? 0 : page - 1}
          onPageChange={(_, next) => setPaging({ key: filterKey, page: next + 1 })}
          onRowsPerPageChange={(e) => setLimit(Number(e.target.value))}
          sx={{
            borderTop: 1,
            borderColor: 'divider',
            '& .MuiTablePagination-toolbar': { flexWrap: 'wrap', rowGap: 0.5, pl: { xs: 1, sm: 2 } },
          }}
        />
      </Paper>
    </>
  );
}

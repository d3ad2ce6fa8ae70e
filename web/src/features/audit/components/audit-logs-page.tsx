import SearchIcon from '@mui/icons-material/Search';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import InputAdornment from '@mui/material/InputAdornment';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import { AUDIT_PAGE_SIZES } from '@medshare/contracts/constants';
import type { AuditCategory, AuditLog, AuditPagination } from '@medshare/contracts';
import { useEffect, useState } from 'react';
import { DelayedLinearProgress } from '../../../components/ui/delayed-progress';
import { ScrollRegion } from '../../../components/ui/scroll-region';
import { formatDateTime } from '../../../lib/display-settings';
import { usePublicSettings } from '../../../lib/public-settings';
import { useListAuditActionsQuery } from '../api/list-audit-actions';
import { useListAuditLogsQuery } from '../api/list-audit-logs';
import { useDebouncedValue } from '../../../lib/use-debounced-value';
import { describeAuditError } from '../utils/describe-audit-error';
import { PHONE_QUERY } from '../../../config/constants';

const COLUMNS = ['Timestamp', 'User', 'Action', 'Table', 'IP Address', 'Reason', 'Status'] as const;
const SEARCH_DEBOUNCE_MS = 350;
/** The kinds of row the server filters by (contracts: AuditCategorySchema). */
const KINDS: ReadonlyArray<{ value: AuditCategory; label: string }> = [
  { value: 'reads', label: 'Reads of others’ data' },
  { value: 'refusals', label: 'Refusals and failures' },
  { value: 'writes', label: 'Changes' },
];
export const CAPPED_NOTE = 'Showing the newest 10 000 matches — narrow the filters to reach older entries.';

type Result =
  { status: 'ok'; items: AuditLog[]; pagination: AuditPagination | undefined } | { status: 'error'; message: string };

/** The answer that is not a list of rows: reported as a failure that is not the server's error. */
const UNEXPECTED = new Error('The server sent an unexpected answer.');

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

function StatusChip({ status }: { status: AuditLog['status'] }) {
  return (
    <Chip
      size="small"
      variant="outlined"
      color={status === 'success' ? 'success' : 'error'}
      label={status === 'success' ? 'Success' : 'Failure'}
    />
  );
}

/**
 * One entry on a phone: the table's seven columns hid Action and everything after it off to the right
 * (issue 17, phone tables), so each entry is a list item that shows them all.
 */
function PhoneEntry({ log, display }: { log: AuditLog; display: ReturnType<typeof usePublicSettings> }) {
  return (
    <Box
      component="li"
      sx={{
        px: 2,
        py: 1.5,
        borderBottom: 1,
        borderColor: 'divider',
        display: 'grid',
        gap: 0.25,
        overflowWrap: 'anywhere',
      }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 1 }}>
        <Typography component="time" dateTime={log.createAt} sx={{ fontSize: 13, color: 'text.secondary' }}>
          {formatDateTime(log.createAt, display)}
        </Typography>
        <StatusChip status={log.status} />
      </Box>
      <Typography component="span" sx={{ fontFamily: 'monospace', fontSize: 13, fontWeight: 600 }}>
        {log.actiontype}
        {log.tablename ? ` · ${log.tablename}` : ''}
      </Typography>
      <UserCell user={log.user} />
      {log.reason && <Typography sx={{ fontSize: 14 }}>{log.reason}</Typography>}
      <Typography sx={{ fontSize: 13, color: 'text.secondary' }}>{`IP address: ${log.ipaddress ?? '—'}`}</Typography>
    </Box>
  );
}

export function AuditLogsPage() {
  const display = usePublicSettings();
  // On a phone the entries become a list (see PhoneEntry); the table stays from 600 px up.
  const phone = useMediaQuery(PHONE_QUERY, { noSsr: true });
  const [searchInput, setSearchInput] = useState('');
  const search = useDebouncedValue(searchInput.trim(), SEARCH_DEBOUNCE_MS);
  const [action, setAction] = useState('');
  const [category, setCategory] = useState<AuditCategory | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [limit, setLimit] = useState<number>(AUDIT_PAGE_SIZES[0]);
  const filterKey = JSON.stringify([search, action, category, from, to, limit]);
  // Any change of filters or page size starts again at page 1.
  const [paging, setPaging] = useState({ key: filterKey, page: 1 });
  const page = paging.key === filterKey ? paging.page : 1;

  // Without the list the filter offers only 'All actions'; the table reports real failures.
  const actions = useListAuditActionsQuery().data ?? [];
  // The rows on screen stay while the next page or filter loads. The trail grows all the time:
  // every page or filter is read again, never taken from the cache.
  const logs = useListAuditLogsQuery(
    { page, limit, search, action, category, from, to },
    { refetchOnMountOrArgChange: true },
  );
  const failure = logs.isError ? logs.error : logs.currentData?.items === null ? UNEXPECTED : null;
  let result: Result | null = null;
  if (failure) result = { status: 'error', message: describeAuditError(failure) };
  else if (logs.data?.items) result = { status: 'ok', items: logs.data.items, pagination: logs.data.pagination };

  useEffect(() => {
    if (failure) console.error('Failed to fetch audit logs', failure);
  }, [failure]);

  const loading = logs.isFetching;
  const pagination = result?.status === 'ok' ? result.pagination : undefined;
  const total = pagination?.totalItems ?? 0;
  const filtered = Boolean(search || action || category || from || to);
  const emptyText = filtered ? 'No audit entries match these filters.' : 'No audit entries yet.';

  return (
    <>
      <Paper variant="outlined" sx={{ p: 2, mb: 2 }}>
        <Box
          role="search"
          aria-label="Filter audit logs"
          sx={{
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: '1.5fr 1.2fr 1.2fr 1fr 1fr auto' },
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
            select
            label="Kind"
            value={category}
            onChange={(e) => setCategory(e.target.value as AuditCategory | '')}
            slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          >
            <option value="">All kinds</option>
            {KINDS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
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
              setCategory('');
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
        <Box sx={{ height: 4 }}>{loading && <DelayedLinearProgress aria-label="Loading audit logs" />}</Box>
        {phone ? (
          <Box component="ul" aria-label="Audit log entries" aria-busy={loading} sx={{ m: 0, p: 0, listStyle: 'none' }}>
            {result?.status === 'error' && (
              <Box component="li" role="alert" sx={{ p: 2, color: 'error.main', fontWeight: 600 }}>
                {result.message}
              </Box>
            )}
            {result?.status === 'ok' && result.items.length === 0 && (
              <Box component="li" sx={{ p: 2, color: 'text.secondary' }}>
                {emptyText}
              </Box>
            )}
            {result?.status === 'ok' &&
              result.items.map((log) => <PhoneEntry key={log.id} log={log} display={display} />)}
          </Box>
        ) : (
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
                      {emptyText}
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
                        <StatusChip status={log.status} />
                      </TableCell>
                    </TableRow>
                  ))}
              </TableBody>
            </Table>
          </ScrollRegion>
        )}
        {/* Once a page has answered: drawn before it, the rows coming in pushed it down. */}
        {pagination && (
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
        )}
      </Paper>
    </>
  );
}

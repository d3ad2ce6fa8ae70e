import SearchIcon from '@mui/icons-material/Search';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import InputAdornment from '@mui/material/InputAdornment';
import MenuItem from '@mui/material/MenuItem';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TablePagination from '@mui/material/TablePagination';
import TableRow from '@mui/material/TableRow';
import TableSortLabel from '@mui/material/TableSortLabel';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { User, UserListItem } from '@medshare/contracts';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { DelayedLinearProgress } from '../../../components/ui/delayed-progress';
import { paths } from '../../../config/paths';
import { toast, toastApiError } from '../../../lib/notify';
import { roleLabel } from '../../../lib/roles';
import { useDeleteUserMutation, useToggleUserStatusMutation } from '../api/manage-user';
import type { UsersSort } from '../api/list-users';
import { USERS_PAGE_SIZES, useUsersPage } from '../hooks/use-users-page';
import { ConfirmDeleteDialog } from './confirm-delete-dialog';
import { isAdminRow, rowActions, type RowAction } from './row-actions';
import { UserRowMenu } from './user-row-menu';
import { PHONE_QUERY } from '../../../config/constants';

const fullName = (row: UserListItem) => `${row.firstname} ${row.lastname}`.trim();
const genderLabel = (gender: UserListItem['gender']) =>
  gender ? gender.charAt(0).toUpperCase() + gender.slice(1) : '—';

/** On a phone the column headers are gone: the sort is one select. */
const PHONE_SORTS: { value: string; label: string }[] = [
  { value: 'createdAt:desc', label: 'Newest first' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'email:asc', label: 'Email A–Z' },
  { value: 'role:asc', label: 'Role' },
];

function StatusChip({ row }: { row: UserListItem }) {
  if (!isAdminRow(row)) return <>—</>;
  // White on the darker amber: the theme's warning.main stays below 4.5:1 with either text colour.
  if (row.pending) return <Chip size="small" label="Pending" sx={{ bgcolor: 'warning.dark', color: 'common.white' }} />;
  return row.active ? (
    <Chip size="small" color="success" variant="outlined" label="Active" />
  ) : (
    <Chip size="small" variant="outlined" label="Inactive" />
  );
}

type Props = {
  viewer: User;
};

/**
 * The dashboard's users table: server-side paging, sorting and search; admin actions per row. A
 * change to an account invalidates the users lists, the stat cards and the admin summary.
 */
export function UsersTable({ viewer }: Props) {
  const navigate = useNavigate();
  const isAdmin = viewer.role === 'admin';
  const table = useUsersPage(viewer.role !== 'patient');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [toDelete, setToDelete] = useState<UserListItem | null>(null);
  const [toggleUserStatus] = useToggleUserStatusMutation();
  const [deleteUser, remove] = useDeleteUserMutation();
  // On a phone the seven columns would hide Actions off to the right: each user becomes a list item.
  const phone = useMediaQuery(PHONE_QUERY, { noSsr: true });

  // Patients have no users:read: the dashboard shows them the cards only, without an error.
  if (viewer.role === 'patient' || table.status === 'forbidden') return null;

  const pageIds = table.rows.map((row) => row.id);
  const selectedOnPage = pageIds.filter((id) => selected.has(id)).length;
  // Providers' rows carry no account state (an admin matter), so they do not get the column.
  const showActive = isAdmin;

  function clearSelection() {
    setSelected(new Set());
  }

  async function onAction(row: UserListItem, action: RowAction) {
    if (action === 'view') {
      navigate(`${paths.userProfile}/${row.id}`);
      return;
    }
    if (action === 'delete') {
      setToDelete(row);
      return;
    }
    try {
      const result = await toggleUserStatus({ id: row.id, active: action !== 'deactivate' }).unwrap();
      const fallback = action === 'deactivate' ? 'User deactivated' : 'User activated';
      const pending = isAdminRow(row) && row.pending;
      toast.success(pending ? `${fullName(row)} activated` : (result.message ?? fallback));
    } catch (error) {
      toastApiError(error, 'An error occurred. Please try again.');
    }
  }

  async function confirmDelete() {
    if (!toDelete) return;
    try {
      const result = await deleteUser(toDelete.id).unwrap();
      toast.success(result.message ?? 'User deleted');
      setToDelete(null);
      setSelected((prev) => {
        const next = new Set(prev);
        next.delete(toDelete.id);
        return next;
      });
    } catch (error) {
      toastApiError(error, 'An error occurred. Please try again.');
    }
  }

  function sortHeader(column: UsersSort, label: string) {
    const active = table.sort === column;
    return (
      <TableCell sortDirection={active ? table.order : false}>
        <TableSortLabel active={active} direction={active ? table.order : 'asc'} onClick={() => table.sortBy(column)}>
          {label}
        </TableSortLabel>
      </TableCell>
    );
  }

  const columns = showActive ? 7 : 6;
  const allOnPageChecked = pageIds.length > 0 && selectedOnPage === pageIds.length;
  const someOnPageChecked = selectedOnPage > 0 && selectedOnPage < pageIds.length;
  const selectAllOnPage = (checked: boolean) => {
    const next = new Set(selected);
    for (const id of pageIds) {
      if (checked) next.add(id);
      else next.delete(id);
    }
    setSelected(next);
  };
  const selectRow = (id: string, checked: boolean) => {
    const next = new Set(selected);
    if (checked) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  const loadError = (
    <Alert
      severity="error"
      action={
        <Button color="inherit" size="small" onClick={table.reload}>
          Retry
        </Button>
      }
    >
      The users could not be loaded.
    </Alert>
  );
  const noRows = table.search.trim() ? 'No user matches this search.' : 'No users yet.';

  return (
    <Card component="section" aria-labelledby="users-heading" sx={{ overflow: 'hidden' }}>
      <Box
        sx={{
          display: 'flex',
          flexWrap: 'wrap',
          gap: 2,
          alignItems: 'center',
          justifyContent: 'space-between',
          px: { xs: 2, sm: 2.5 },
          pt: 2.5,
          pb: 2,
        }}
      >
        <Typography id="users-heading" variant="h6" component="h2">
          Users
        </Typography>
        <TextField
          type="search"
          size="small"
          label="Search users"
          placeholder="Name, e-mail or username"
          value={table.search}
          onChange={(event) => {
            table.setSearch(event.target.value);
            clearSelection();
          }}
          sx={{ width: { xs: '100%', sm: 300 } }}
          slotProps={{
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon fontSize="small" />
                </InputAdornment>
              ),
            },
          }}
        />
      </Box>
      {selected.size > 0 && (
        <Box
          role="status"
          sx={{ display: 'flex', alignItems: 'center', gap: 2, px: 2.5, py: 1, bgcolor: 'action.selected' }}
        >
          <Typography sx={{ fontWeight: 600 }}>{selected.size} selected</Typography>
          <Button size="small" onClick={clearSelection}>
            Clear selection
          </Button>
        </Box>
      )}
      <Box sx={{ height: 4 }}>{table.status === 'loading' && <DelayedLinearProgress aria-label="Loading users" />}</Box>
      {phone ? (
        <>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, pl: 1, pr: 2, pb: 1.5 }}>
            <Checkbox
              indeterminate={someOnPageChecked}
              checked={allOnPageChecked}
              disabled={pageIds.length === 0}
              onChange={(event) => selectAllOnPage(event.target.checked)}
              slotProps={{ input: { 'aria-label': 'Select all users on this page' } }}
            />
            <TextField
              select
              size="small"
              label="Sort by"
              value={`${table.sort}:${table.order}`}
              onChange={(event) => {
                const [column, order] = event.target.value.split(':') as [UsersSort, 'asc' | 'desc'];
                table.sortBy(column, order);
              }}
              sx={{ flexGrow: 1, minWidth: 0 }}
            >
              {PHONE_SORTS.map(({ value, label }) => (
                <MenuItem key={value} value={value}>
                  {label}
                </MenuItem>
              ))}
            </TextField>
          </Box>
          {table.status === 'error' && <Box sx={{ px: 2, pb: 2 }}>{loadError}</Box>}
          {table.status === 'ready' && table.rows.length === 0 && (
            <Typography sx={{ py: 5, textAlign: 'center', color: 'text.secondary' }}>{noRows}</Typography>
          )}
          {table.status !== 'error' && table.rows.length > 0 && (
            <Box component="ul" aria-labelledby="users-heading" sx={{ listStyle: 'none', m: 0, p: 0 }}>
              {table.rows.map((row) => {
                const name = fullName(row);
                const checked = selected.has(row.id);
                return (
                  <Box
                    component="li"
                    key={row.id}
                    aria-label={name}
                    sx={{
                      display: 'flex',
                      alignItems: 'flex-start',
                      gap: 0.5,
                      px: 1,
                      py: 1.25,
                      borderTop: 1,
                      borderColor: 'divider',
                      bgcolor: checked ? 'action.selected' : undefined,
                    }}
                  >
                    <Checkbox
                      checked={checked}
                      onChange={(event) => selectRow(row.id, event.target.checked)}
                      slotProps={{ input: { 'aria-label': `Select ${name}` } }}
                    />
                    <Box sx={{ flexGrow: 1, minWidth: 0, pt: 0.75 }}>
                      <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{name}</Typography>
                      <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
                        {row.email}
                      </Typography>
                      <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1, mt: 0.5 }}>
                        <Typography variant="body2">
                          {roleLabel(row.role)}
                          {row.gender ? ` · ${genderLabel(row.gender)}` : ''}
                        </Typography>
                        {showActive && isAdminRow(row) && <StatusChip row={row} />}
                      </Box>
                    </Box>
                    <UserRowMenu
                      name={name}
                      actions={rowActions(viewer.role, viewer.id, row)}
                      onAction={(action) => void onAction(row, action)}
                    />
                  </Box>
                );
              })}
            </Box>
          )}
        </>
      ) : (
        <TableContainer sx={{ overflowX: 'auto' }}>
          <Table size="medium" aria-labelledby="users-heading">
            <TableHead sx={{ '& th': { whiteSpace: 'nowrap' } }}>
              <TableRow>
                <TableCell padding="checkbox">
                  <Checkbox
                    indeterminate={someOnPageChecked}
                    checked={allOnPageChecked}
                    disabled={pageIds.length === 0}
                    onChange={(event) => selectAllOnPage(event.target.checked)}
                    slotProps={{ input: { 'aria-label': 'Select all users on this page' } }}
                  />
                </TableCell>
                {sortHeader('name', 'Full Name')}
                {sortHeader('email', 'Email')}
                {sortHeader('role', 'Role')}
                <TableCell>Gender</TableCell>
                {showActive && <TableCell>Active</TableCell>}
                <TableCell align="right">Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {table.status === 'error' && (
                <TableRow>
                  <TableCell colSpan={columns}>{loadError}</TableCell>
                </TableRow>
              )}
              {table.status === 'ready' && table.rows.length === 0 && (
                <TableRow>
                  <TableCell colSpan={columns} sx={{ py: 5, textAlign: 'center', color: 'text.secondary' }}>
                    {noRows}
                  </TableCell>
                </TableRow>
              )}
              {table.status !== 'error' &&
                table.rows.map((row) => {
                  const name = fullName(row);
                  const checked = selected.has(row.id);
                  return (
                    <TableRow key={row.id} hover selected={checked}>
                      <TableCell padding="checkbox">
                        <Checkbox
                          checked={checked}
                          onChange={(event) => selectRow(row.id, event.target.checked)}
                          slotProps={{ input: { 'aria-label': `Select ${name}` } }}
                        />
                      </TableCell>
                      <TableCell component="th" scope="row" sx={{ fontWeight: 600 }}>
                        {name}
                      </TableCell>
                      {/* A long address wraps rather than pushing Actions out of the card. */}
                      <TableCell sx={{ overflowWrap: 'anywhere' }}>{row.email}</TableCell>
                      <TableCell sx={{ whiteSpace: 'nowrap' }}>{roleLabel(row.role)}</TableCell>
                      <TableCell>{genderLabel(row.gender)}</TableCell>
                      {showActive && (
                        <TableCell>
                          <StatusChip row={row} />
                        </TableCell>
                      )}
                      <TableCell align="right">
                        <UserRowMenu
                          name={name}
                          actions={rowActions(viewer.role, viewer.id, row)}
                          onAction={(action) => void onAction(row, action)}
                        />
                      </TableCell>
                    </TableRow>
                  );
                })}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {/* Once the first page has answered: drawn before it, the rows coming in pushed it down. */}
      {table.status !== 'loading' && (
        <TablePagination
          component="div"
          count={table.total}
          page={table.page}
          rowsPerPage={table.limit}
          rowsPerPageOptions={[...USERS_PAGE_SIZES]}
          onPageChange={(_, page) => {
            table.setPage(page);
            clearSelection();
          }}
          onRowsPerPageChange={(event) => {
            table.setLimit(Number(event.target.value));
            clearSelection();
          }}
          labelRowsPerPage="Rows per page:"
          labelDisplayedRows={({ from, to, count }) => `${from}–${to} of ${count}${table.capped ? '+' : ''}`}
          // MUI's gaps fit a desktop; at 390 px they pushed the next-page arrow past the card's edge.
          sx={{
            '& .MuiTablePagination-toolbar': { pl: { xs: 1, sm: 2 }, pr: { xs: 1, sm: 2 } },
            '& .MuiTablePagination-input': { mr: { xs: 1.5, sm: 4 } },
            '& .MuiTablePagination-actions': { ml: { xs: 0.5, sm: 2.5 } },
          }}
        />
      )}
      <ConfirmDeleteDialog
        name={toDelete ? fullName(toDelete) : null}
        busy={remove.isLoading}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
      />
    </Card>
  );
}

import SearchIcon from '@mui/icons-material/Search';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import InputAdornment from '@mui/material/InputAdornment';
import LinearProgress from '@mui/material/LinearProgress';
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
import type { User, UserListItem } from '@medshare/contracts';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '../../../config/paths';
import { toast, toastApiError } from '../../../lib/notify';
import { roleLabel } from '../../../lib/roles';
import { useMutation } from '../../../lib/use-mutation';
import { deleteUser, toggleUserStatus } from '../api/manage-user';
import type { UsersSort } from '../api/list-users';
import { USERS_PAGE_SIZES, useUsersPage } from '../hooks/use-users-page';
import { ConfirmDeleteDialog } from './confirm-delete-dialog';
import { isAdminRow, rowActions, type RowAction } from './row-actions';
import { UserRowMenu } from './user-row-menu';

const fullName = (row: UserListItem) => `${row.firstname} ${row.lastname}`.trim();
const genderLabel = (gender: UserListItem['gender']) =>
  gender ? gender.charAt(0).toUpperCase() + gender.slice(1) : '—';

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
  /** Called after a change that moves the stat cards (a deleted user). */
  onChanged?: () => void;
};

/** The dashboard's users table: server-side paging, sorting and search; admin actions per row. */
export function UsersTable({ viewer, onChanged }: Props) {
  const navigate = useNavigate();
  const isAdmin = viewer.role === 'admin';
  const table = useUsersPage(viewer.role !== 'patient');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [toDelete, setToDelete] = useState<UserListItem | null>(null);
  const toggle = useMutation(toggleUserStatus);
  const remove = useMutation(deleteUser);

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
      const result = await toggle.mutate(row.id);
      const fallback = action === 'deactivate' ? 'User deactivated' : 'User activated';
      toast.success(action === 'approve' ? `${fullName(row)} approved` : (result.message ?? fallback));
      table.reload();
      onChanged?.();
    } catch (error) {
      toastApiError(error, 'An error occurred. Please try again.');
    }
  }

  async function confirmDelete() {
    if (!toDelete) return;
    try {
      const result = await remove.mutate(toDelete.id);
      toast.success(result.message ?? 'User deleted');
      setToDelete(null);
      setSelected((prev) => {
        const next = new Set(prev);
        next.delete(toDelete.id);
        return next;
      });
      table.reload();
      onChanged?.();
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
      <Box sx={{ height: 4 }}>{table.status === 'loading' && <LinearProgress aria-label="Loading users" />}</Box>
      <TableContainer sx={{ overflowX: 'auto' }}>
        <Table size="medium" sx={{ minWidth: showActive ? 760 : 640 }} aria-labelledby="users-heading">
          <TableHead sx={{ '& th': { whiteSpace: 'nowrap' } }}>
            <TableRow>
              <TableCell padding="checkbox">
                <Checkbox
                  indeterminate={selectedOnPage > 0 && selectedOnPage < pageIds.length}
                  checked={pageIds.length > 0 && selectedOnPage === pageIds.length}
                  disabled={pageIds.length === 0}
                  onChange={(event) => {
                    const next = new Set(selected);
                    for (const id of pageIds) {
                      if (event.target.checked) next.add(id);
                      else next.delete(id);
                    }
                    setSelected(next);
                  }}
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
                <TableCell colSpan={columns}>
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
                </TableCell>
              </TableRow>
            )}
            {table.status === 'ready' && table.rows.length === 0 && (
              <TableRow>
                <TableCell colSpan={columns} sx={{ py: 5, textAlign: 'center', color: 'text.secondary' }}>
                  {table.search.trim() ? 'No user matches this search.' : 'No users yet.'}
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
                        onChange={(event) => {
                          const next = new Set(selected);
                          if (event.target.checked) next.add(row.id);
                          else next.delete(row.id);
                          setSelected(next);
                        }}
                        slotProps={{ input: { 'aria-label': `Select ${name}` } }}
                      />
                    </TableCell>
                    <TableCell component="th" scope="row" sx={{ fontWeight: 600 }}>
                      {name}
                    </TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{row.email}</TableCell>
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
      />
      <ConfirmDeleteDialog
        name={toDelete ? fullName(toDelete) : null}
        busy={remove.isPending}
        onCancel={() => setToDelete(null)}
        onConfirm={() => void confirmDelete()}
      />
    </Card>
  );
}

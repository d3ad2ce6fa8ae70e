import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import RemoveIcon from '@mui/icons-material/Remove';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { Permission, Role } from '@medshare/contracts';
import { Fragment, useEffect } from 'react';
import { DelayedCircularProgress } from '../../../components/ui/delayed-progress';
import { ScrollRegion } from '../../../components/ui/scroll-region';
import { ApiError } from '../../../lib/api-client';
import { roleLabel } from '../../../lib/roles';
import { useListPermissionsQuery } from '../api/list-permissions';
import { useListRolesQuery } from '../api/list-roles';
import { visuallyHidden } from '../../../components/ui/visually-hidden';

type State =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'ready'; roles: Role[]; permissions: Permission[] };

function errorText(error: unknown): string {
  if (error instanceof ApiError && error.status === 403) return 'Only administrators can see roles and permissions.';
  if (error instanceof ApiError && error.status === 0)
    return 'Backend server is not reachable. Please check your server.';
  return error instanceof ApiError && error.message ? error.message : 'Roles and permissions could not be loaded.';
}

export function RolesPermissionsPage() {
  const rolesQuery = useListRolesQuery();
  const permissionsQuery = useListPermissionsQuery();
  const failure: unknown = rolesQuery.error ?? permissionsQuery.error;

  useEffect(() => {
    // `docs/product.md` › Messages and errors: a roles fetch failure is logged; the page also says so
    // instead of staying empty.
    if (failure) console.error('Failed to fetch roles and permissions', failure);
  }, [failure]);

  let state: State = { status: 'loading' };
  if (failure) state = { status: 'error', message: errorText(failure) };
  else if (rolesQuery.data && permissionsQuery.data) {
    state = { status: 'ready', roles: rolesQuery.data, permissions: permissionsQuery.data };
  }

  if (state.status === 'loading') {
    return (
      <Box sx={{ display: 'grid', placeItems: 'center', minHeight: 200 }}>
        <DelayedCircularProgress aria-label="Loading roles and permissions" />
      </Box>
    );
  }
  if (state.status === 'error') return <Alert severity="error">{state.message}</Alert>;

  const { roles, permissions } = state;
  return (
    // minmax(0, 1fr): a grid item may shrink below its table's width, so the table scrolls in its box.
    <Box sx={{ display: 'grid', gap: 4, gridTemplateColumns: 'minmax(0, 1fr)' }}>
      <section aria-labelledby="roles-heading">
        <Typography id="roles-heading" variant="h5" component="h2" sx={{ mb: 2 }}>
          Roles
        </Typography>
        <Box
          component="ul"
          sx={{
            listStyle: 'none',
            p: 0,
            m: 0,
            display: 'grid',
            gap: 2,
            gridTemplateColumns: { xs: '1fr', sm: 'repeat(auto-fill, minmax(240px, 1fr))' },
          }}
        >
          {roles.map((role) => (
            <li key={role.id}>
              <Card sx={{ height: '100%' }}>
                <CardContent>
                  <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 1 }}>
                    <Typography variant="h6" component="h3">
                      {roleLabel(role.name)}
                    </Typography>
                    <Chip
                      size="small"
                      label={`${role.permissions.length} of ${permissions.length} permissions`}
                      variant="outlined"
                    />
                  </Box>
                  <Typography variant="body2" color="text.secondary" sx={{ fontFamily: 'monospace', mb: 1 }}>
                    {role.name}
                  </Typography>
                  <Typography variant="body2">{role.description}</Typography>
                </CardContent>
              </Card>
            </li>
          ))}
        </Box>
      </section>

      <section aria-labelledby="permissions-heading">
        <Typography id="permissions-heading" variant="h5" component="h2" sx={{ mb: 0.5 }}>
          Permissions
        </Typography>
        <Typography color="text.secondary" sx={{ mb: 2 }}>
          Which role holds which permission. The server checks these permissions on every request.
        </Typography>
        <Paper variant="outlined">
          <ScrollRegion label="Permissions by role">
            {/* At 390 px the three role columns fit beside the permissions (narrow, their names wrapped):
                scrolled sideways, Health Provider and Admin were out of sight. */}
            <Table
              size="small"
              sx={{
                minWidth: { sm: 560 },
                '& .MuiTableCell-root': { px: { xs: 0.75, sm: 2 } },
              }}
            >
              <caption style={visuallyHidden}>Permissions (rows) held by each role (columns)</caption>
              <TableHead>
                <TableRow>
                  <TableCell scope="col" sx={{ fontWeight: 700 }}>
                    Permission
                  </TableCell>
                  {roles.map((role) => (
                    <TableCell
                      key={role.id}
                      scope="col"
                      align="center"
                      sx={{
                        fontWeight: 700,
                        fontSize: { xs: 13, sm: 14 },
                        whiteSpace: { sm: 'nowrap' },
                        width: { xs: 72, sm: 'auto' },
                      }}
                    >
                      {roleLabel(role.name)}
                    </TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {permissions.map((permission) => (
                  <TableRow key={permission.id} hover>
                    <TableCell component="th" scope="row" sx={{ overflowWrap: 'anywhere' }}>
                      <Typography sx={{ fontFamily: 'monospace', fontWeight: 600, fontSize: { xs: 13, sm: 14 } }}>
                        {/* A narrow column breaks the name after its colon, not inside a word. */}
                        {permission.name.split(':').map((part, i) => (
                          <Fragment key={part}>
                            {i > 0 && (
                              <>
                                :<wbr />
                              </>
                            )}
                            {part}
                          </Fragment>
                        ))}
                      </Typography>
                      <Typography variant="body2" color="text.secondary">
                        {permission.description}
                      </Typography>
                    </TableCell>
                    {roles.map((role) => {
                      const held = permission.roles.includes(role.name);
                      return (
                        <TableCell key={role.id} align="center">
                          {held ? (
                            <CheckCircleIcon color="success" aria-hidden />
                          ) : (
                            <RemoveIcon sx={{ color: 'text.disabled' }} aria-hidden />
                          )}
                          <Box component="span" sx={visuallyHidden}>
                            {held ? 'Held' : 'Not held'}
                          </Box>
                        </TableCell>
                      );
                    })}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </ScrollRegion>
        </Paper>
      </section>
    </Box>
  );
}

import HowToRegIcon from '@mui/icons-material/HowToReg';
import Avatar from '@mui/material/Avatar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Typography from '@mui/material/Typography';
import type { AdminUserSummary } from '@medshare/contracts';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { paths } from '../../../config/paths';
import { toast, toastApiError } from '../../../lib/notify';
import { useActivateProviderMutation } from '../api/activate-provider';

type Props = {
  count: number;
  items: AdminUserSummary[];
  formatDate: (iso: string) => string;
};

const initials = (u: AdminUserSummary) => `${u.firstname.charAt(0)}${u.lastname.charAt(0)}`.toUpperCase() || '?';

/**
 * Providers waiting for an admin before they can sign in; Activate (the word of `docs/product.md` ›
 * Dashboard, as in the users table) lets them in, and the summary is read again.
 */
export function PendingProviders({ count, items, formatDate }: Props) {
  const [busyId, setBusyId] = useState<string | null>(null);
  const [activateProvider] = useActivateProviderMutation();

  async function activate(user: AdminUserSummary) {
    setBusyId(user.id);
    try {
      await activateProvider(user.id).unwrap();
      toast.success(`${user.firstname} ${user.lastname} activated`);
    } catch (error) {
      toastApiError(error, 'An error occurred. Please try again.');
    } finally {
      setBusyId(null);
    }
  }

  if (items.length === 0) {
    return (
      <Box sx={{ py: 4, textAlign: 'center' }}>
        <HowToRegIcon color="success" sx={{ fontSize: 40 }} aria-hidden />
        <Typography sx={{ fontWeight: 600 }}>No providers are waiting for activation.</Typography>
      </Box>
    );
  }

  return (
    <>
      <List disablePadding aria-label="Providers awaiting activation">
        {items.map((user) => {
          const name = `${user.firstname} ${user.lastname}`;
          return (
            <ListItem
              key={user.id}
              divider
              disableGutters
              sx={{ gap: 1.5, flexWrap: 'wrap', alignItems: 'center', py: 1.5 }}
            >
              <Avatar sx={{ bgcolor: 'secondary.main', width: 38, height: 38, fontSize: 14, fontWeight: 700 }}>
                {initials(user)}
              </Avatar>
              <Box sx={{ flex: '1 1 160px', minWidth: 0 }}>
                <Typography
                  component={RouterLink}
                  to={`${paths.userProfile}/${user.id}`}
                  sx={{
                    fontWeight: 600,
                    color: 'text.primary',
                    textDecoration: 'none',
                    '&:hover': { textDecoration: 'underline' },
                  }}
                >
                  {name}
                </Typography>
                <Typography sx={{ color: 'text.secondary', fontSize: 13, overflowWrap: 'anywhere' }}>
                  {user.email} · registered {formatDate(user.createdAt)}
                </Typography>
              </Box>
              <Button
                variant="contained"
                size="small"
                onClick={() => void activate(user)}
                disabled={busyId !== null}
                aria-label={`Activate ${name}`}
              >
                Activate
              </Button>
            </ListItem>
          );
        })}
      </List>
      {count > items.length && (
        <Typography sx={{ mt: 1.5, color: 'text.secondary', fontSize: 14 }}>
          Showing the {items.length} oldest of {count} requests; activate these to see the next.
        </Typography>
      )}
    </>
  );
}

import Typography from '@mui/material/Typography';
import type { User } from '@medshare/contracts';
import { roleLabel } from '../../../lib/roles';

/** `docs/product.md` › Dashboard: first and last name, plus the role name in brackets for admins. */
export function welcomeText(user: Pick<User, 'firstname' | 'lastname' | 'role'>): string {
  const name = `${user.firstname} ${user.lastname}`.trim();
  return user.role === 'admin' ? `Welcome, ${name} (${roleLabel(user.role)})` : `Welcome, ${name}`;
}

export function WelcomeLine({ user }: { user: Pick<User, 'firstname' | 'lastname' | 'role'> }) {
  return (
    <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
      {welcomeText(user)}
    </Typography>
  );
}

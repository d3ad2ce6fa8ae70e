import Avatar from '@mui/material/Avatar';
import type { RoleName } from '@medshare/contracts';

const roleColor: Record<RoleName, string> = {
  patient: '#0a7367',
  healthProvider: '#0b5cad',
  admin: '#6a3fa0',
};

/** Initials in a circle coloured by role; decorative, the name is always written beside it. */
export function AvatarInitials({
  firstname,
  lastname,
  role,
  size = 40,
}: {
  firstname: string;
  lastname: string;
  role: RoleName;
  size?: number;
}) {
  const initials = `${firstname.charAt(0)}${lastname.charAt(0)}`.toUpperCase() || '?';
  return (
    <Avatar
      aria-hidden
      sx={{ width: size, height: size, fontSize: size * 0.38, fontWeight: 700, bgcolor: roleColor[role] }}
    >
      {initials}
    </Avatar>
  );
}

import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import EditIcon from '@mui/icons-material/Edit';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { site } from '../../../config/site';
import { DelayedLinearProgress } from '../../../components/ui/delayed-progress';
import { selectUser, selectUserComplete } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { DeleteAccountDialog } from './delete-account-dialog';
import { EditProfileDialog } from './edit-profile-dialog';
import { ProfileDetails } from './profile-details';

/** 'My Profile': the signed-in user from the session (the shell reloads it on mount). */
export function MyProfilePage() {
  const user = useAppSelector(selectUser);
  // After a reload the stored user has no personal fields until the shell's reload of the profile
  // comes: shown or edited before, they would read as empty (and an edit would clear them).
  const complete = useAppSelector(selectUserComplete);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  if (!user) return null;
  if (!complete) return <DelayedLinearProgress aria-label="Loading profile" />;

  return (
    <Stack spacing={3}>
      <title>{`My Profile · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
        My Profile
      </Typography>
      <ProfileDetails
        profile={user}
        actions={
          <>
            <Button variant="contained" startIcon={<EditIcon />} onClick={() => setEditing(true)}>
              Edit Profile
            </Button>
            <Tooltip title="Delete my account">
              <IconButton aria-label="Delete my account" color="error" onClick={() => setDeleting(true)}>
                <DeleteOutlinedIcon />
              </IconButton>
            </Tooltip>
          </>
        }
      />
      <EditProfileDialog user={user} open={editing} onClose={() => setEditing(false)} />
      <DeleteAccountDialog open={deleting} onClose={() => setDeleting(false)} />
    </Stack>
  );
}

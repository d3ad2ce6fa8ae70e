import PersonSearchIcon from '@mui/icons-material/PersonSearch';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink, Navigate, useParams } from 'react-router';
import { paths } from '../../../config/paths';
import { site } from '../../../config/site';
import { selectUser } from '../../../lib/session';
import { useAppSelector } from '../../../lib/store';
import { useUserProfile } from '../hooks/use-user-profile';
import { ProfileDetails } from './profile-details';

function BackLink() {
  const viewer = useAppSelector(selectUser);
  // Patients have no users table to go back to.
  const to = viewer?.role === 'patient' ? paths.profile : paths.dashboard;
  return (
    <Button component={RouterLink} to={to} variant="outlined">
      {viewer?.role === 'patient' ? 'Go to my profile' : 'Back to the dashboard'}
    </Button>
  );
}

/** Another user's profile, showing exactly the fields the server's view (full/care/public) carries. */
export function UserProfilePage() {
  const { id } = useParams();
  const viewer = useAppSelector(selectUser);
  const { state, reload } = useUserProfile(id);

  // No id, or one's own: the own profile, where it can be edited.
  if (!id || id === viewer?.id) return <Navigate to={paths.profile} replace />;

  const name = state.status === 'ready' ? `${state.profile.firstname} ${state.profile.lastname}` : 'User profile';

  return (
    <Stack spacing={3}>
      <title>{`${name} · ${site.name}`}</title>
      <Typography variant="h4" component="h1" sx={{ fontSize: { xs: 24, sm: 30 } }}>
        User profile
      </Typography>
      {state.status === 'loading' && (
        <Stack spacing={3} aria-busy="true" aria-label="Loading profile">
          <Skeleton variant="rounded" height={130} />
          <Skeleton variant="rounded" height={220} />
        </Stack>
      )}
      {state.status === 'ready' && <ProfileDetails profile={state.profile} />}
      {state.status === 'not-found' && (
        <Card sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
          <PersonSearchIcon color="primary" sx={{ fontSize: 44, mb: 1 }} aria-hidden />
          <Typography variant="h6" component="p">
            This user could not be found
          </Typography>
          <Typography sx={{ color: 'text.secondary', mb: 3 }}>
            The account may have been removed, or it is not visible to you.
          </Typography>
          <BackLink />
        </Card>
      )}
      {state.status === 'error' && (
        <Alert
          severity="error"
          action={
            <Button color="inherit" size="small" onClick={reload}>
              Retry
            </Button>
          }
        >
          The profile could not be loaded.
        </Alert>
      )}
      {state.status === 'ready' && (
        <div>
          <BackLink />
        </div>
      )}
    </Stack>
  );
}

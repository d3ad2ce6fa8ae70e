import LoginIcon from '@mui/icons-material/Login';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AuthMessages } from '@medshare/contracts/constants';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import { PasswordField } from '../../../components/form/password-field';
import { AuthLayout } from '../../../components/layout/auth-layout';
import { REDIRECT_AFTER_LOGIN_MS } from '../../../config/constants';
import { paths } from '../../../config/paths';
import { messageOf, toast, toastCodeStep, UNDER_REVIEW_TOAST_ID } from '../../../lib/notify';
import { usePrerenderedForm } from '../../../lib/prerendered';
import { clearSessionEnded, readSessionEnded } from '../../../lib/session-ended';
import { useLoginMutation } from '../api/login';
import { useDelayedNavigate } from '../hooks/use-delayed-navigate';
import { rememberEmail } from '../utils/remembered-email';

/** Why the session ended, as the app left it (lib/session-ended.ts); shown once. */
const SESSION_ENDED_TEXT = {
  ended: 'Your session has ended. Please log in again.',
  idle: 'You were logged out because there was no activity for a while. Please log in again.',
} as const;

export function LoginForm() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const location = useLocation();
  // The code step sends a pending provider here: the review notice comes only after the code.
  const [underReview, setUnderReview] = useState(
    () => (location.state as { underReview?: boolean } | null)?.underReview === true,
  );
  const [sessionEnded] = useState(readSessionEnded);
  const [redirecting, setRedirecting] = useState(false);
  const [login, { isLoading: isPending }] = useLoginMutation();
  const navigateLater = useDelayedNavigate();
  const form = useRef<HTMLFormElement>(null);
  // Served first as static HTML (docs/decisions.md › Static first pages): what was typed there comes along.
  usePrerenderedForm(form, { email: setEmail, password: setPassword });

  useEffect(clearSessionEnded, []);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setUnderReview(false);
    try {
      const result = await login({ email: email.trim(), password }).unwrap();
      rememberEmail(result.data.email || email.trim());
      toastCodeStep(result.message ?? AuthMessages.codeSent);
      setRedirecting(true);
      navigateLater(paths.verifyAccount, REDIRECT_AFTER_LOGIN_MS);
    } catch (error) {
      const message = messageOf(error, 'Login failed. Please try again.');
      if (message === AuthMessages.providerUnderReview) {
        setUnderReview(true);
        toast.warning(message, { autoClose: 6000, toastId: UNDER_REVIEW_TOAST_ID });
      } else {
        toast.error(message, { autoClose: 4000 });
      }
    }
  }

  return (
    <AuthLayout
      title="Welcome back! Glad to see you again!"
      pageTitle="Login"
      subtitle="Sign in with your e-mail and password. We will then e-mail you a 6-digit code."
    >
      {sessionEnded && !underReview && (
        <Alert severity="info" sx={{ mb: 3 }}>
          {SESSION_ENDED_TEXT[sessionEnded]}
        </Alert>
      )}
      {underReview && (
        <Alert severity="warning" sx={{ mb: 3 }}>
          {AuthMessages.providerUnderReview}
        </Alert>
      )}
      <Box component="form" ref={form} onSubmit={handleSubmit}>
        <Stack spacing={2.5}>
          <TextField
            label="Email"
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            autoFocus
          />
          <PasswordField
            label="Password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
          <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: '8px !important' }}>
            <Link component={RouterLink} to={paths.forgotPassword} variant="body2" sx={{ fontWeight: 600 }}>
              Forgot Password?
            </Link>
          </Box>
          <Button
            type="submit"
            variant="contained"
            size="large"
            startIcon={<LoginIcon />}
            disabled={isPending || redirecting}
          >
            {isPending ? 'Signing in…' : 'Login'}
          </Button>
        </Stack>
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 3, textAlign: 'center' }}>
        Don&apos;t have an account?{' '}
        <Link component={RouterLink} to={paths.register} sx={{ fontWeight: 600 }}>
          Register
        </Link>
      </Typography>
    </AuthLayout>
  );
}

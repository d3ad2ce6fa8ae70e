import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useEffect, useState, type FormEvent } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { PasswordField } from '../../../components/form/password-field';
import {
  PASSWORD_REFUSED,
  PasswordRules,
  passwordRulesSummaryId,
  usePasswordCheck,
} from '../../../components/form/password-rules';
import { AuthLayout } from '../../../components/layout/auth-layout';
import { REDIRECT_AFTER_RESET_MS } from '../../../config/constants';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { fieldErrorInline } from '../../../lib/error-text';
import { dismissErrorToasts, toast, toastApiError } from '../../../lib/notify';
import { useResetPasswordMutation } from '../api/reset-password';
import { useDelayedNavigate } from '../hooks/use-delayed-navigate';

const noIdentity = {};

export function ResetPasswordForm() {
  const [searchParams, setSearchParams] = useSearchParams();
  // Read once and then dropped from the address bar, so the token does not linger in history.
  const [token] = useState(() => searchParams.get('token') ?? '');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [done, setDone] = useState(false);
  const [passwordError, setPasswordError] = useState('');
  // The link does not say whose account it is, so the e-mail/username rule is left to the server.
  const check = usePasswordCheck(password, noIdentity);
  const [resetPassword, { isLoading: isPending }] = useResetPasswordMutation();
  const navigateLater = useDelayedNavigate();

  useEffect(() => {
    if (searchParams.has('token')) setSearchParams({}, { replace: true });
  }, [searchParams, setSearchParams]);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!password || !confirmPassword) {
      toast.error('Password fields cannot be empty.');
      return;
    }
    if (check.refused) {
      setPasswordError(PASSWORD_REFUSED);
      return;
    }
    if (password !== confirmPassword) {
      toast.error('Passwords do not match!');
      return;
    }
    try {
      const result = await resetPassword({ token, password }).unwrap();
      toast.success(result.message ?? 'Password reset successfully!');
      setDone(true);
      navigateLater(paths.login, REDIRECT_AFTER_RESET_MS, { replace: true });
    } catch (error) {
      toastApiError(error, 'Password reset failed. The link may have expired; request a new code.');
      // The server has the last word on the rules (the e-mail/username one is only checkable there).
      const refusal = error instanceof ApiError ? error.errors.find((item) => item.field === 'password') : undefined;
      if (refusal) setPasswordError(fieldErrorInline(refusal));
    }
  }

  if (!token) {
    return (
      <AuthLayout title="Reset Password">
        <Alert severity="error" sx={{ mb: 3 }}>
          This reset link is invalid or incomplete. Open the link from your e-mail again, or request a new code.
        </Alert>
        <Button component={RouterLink} to={paths.forgotPassword} variant="contained" fullWidth>
          Request a new code
        </Button>
      </AuthLayout>
    );
  }

  if (done) {
    return (
      <AuthLayout title="Password Changed!" pageTitle="Reset Password">
        <Box sx={{ textAlign: 'center' }}>
          <CheckCircleIcon color="success" sx={{ fontSize: 64, mb: 1 }} aria-hidden />
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            Password reset successfully! Taking you to the login page…
          </Typography>
          <Button component={RouterLink} to={paths.login} variant="contained" size="large" fullWidth>
            Back to Login
          </Button>
        </Box>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title="Reset Password" subtitle="Choose a new password for your account.">
      <Box component="form" noValidate onSubmit={handleSubmit}>
        <Stack spacing={2.5}>
          <PasswordField
            label="New password"
            name="password"
            autoComplete="new-password"
            required
            autoFocus
            value={password}
            onChange={(event) => {
              setPassword(event.target.value);
              // A refusal's toast is stale once the password is being changed.
              if (passwordError) dismissErrorToasts();
              setPasswordError('');
            }}
            error={Boolean(passwordError)}
            helperText={passwordError || undefined}
            describedBy={passwordRulesSummaryId('new-password-rules')}
          />
          <PasswordRules check={check} id="new-password-rules" />
          <PasswordField
            label="Confirm password"
            name="confirmPassword"
            autoComplete="new-password"
            required
            value={confirmPassword}
            onChange={(event) => setConfirmPassword(event.target.value)}
          />
          <Button type="submit" variant="contained" size="large" disabled={isPending}>
            {isPending ? 'Resetting…' : 'Reset Password'}
          </Button>
        </Stack>
      </Box>
    </AuthLayout>
  );
}

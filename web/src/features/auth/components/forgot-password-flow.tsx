import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import SendIcon from '@mui/icons-material/Send';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { CODE_LENGTH } from '@medshare/contracts/constants';
import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { emptyOtp, OtpInput } from '../../../components/form/otp-input';
import { PasswordField } from '../../../components/form/password-field';
import {
  PASSWORD_REFUSED,
  PasswordRules,
  passwordRulesSummaryId,
  usePasswordCheck,
} from '../../../components/form/password-rules';
import { AuthLayout } from '../../../components/layout/auth-layout';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { fieldErrorInline } from '../../../lib/error-text';
import { dismissErrorToasts, toast, toastApiError } from '../../../lib/notify';
import { useForgotPasswordMutation } from '../api/forgot-password';
import { useResetPasswordMutation } from '../api/reset-password';
import { isPlausibleEmail } from '../utils/is-plausible-email';

type Stage = 1 | 2 | 3;

const stageText: Record<Stage, { title: string; subtitle?: string }> = {
  1: {
    title: 'Forgot your password?',
    subtitle: `Enter the e-mail address of your account and we will send you a ${CODE_LENGTH}-digit code.`,
  },
  2: { title: 'Reset your password' },
  3: { title: 'Password Changed!' },
};

export function ForgotPasswordFlow() {
  const [stage, setStage] = useState<Stage>(1);
  const [email, setEmail] = useState('');
  const [sentNote, setSentNote] = useState('');
  const [digits, setDigits] = useState(() => emptyOtp(CODE_LENGTH));
  const [newPassword, setNewPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [passwordError, setPasswordError] = useState('');
  // The username is not known here; the server checks that part of the e-mail/username rule.
  const check = usePasswordCheck(newPassword, { email: email.trim() });
  const [forgotPassword, { isLoading: sending }] = useForgotPasswordMutation();
  const [resetPassword, { isLoading: resetting }] = useResetPasswordMutation();

  async function sendCode(event?: FormEvent<HTMLFormElement>) {
    event?.preventDefault();
    if (!isPlausibleEmail(email)) {
      toast.error('Please enter a valid email.');
      return;
    }
    try {
      const result = await forgotPassword({ email: email.trim() }).unwrap();
      toast.success('Reset code sent successfully!');
      setSentNote(result.message ?? '');
      setDigits(emptyOtp(CODE_LENGTH));
      setStage(2);
    } catch (error) {
      toastApiError(error, 'Something went wrong. from handleForgotPassword');
    }
  }

  async function resetWithCode(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const otp = digits.join('');
    if (!new RegExp(`^\\d{${CODE_LENGTH}}$`).test(otp)) {
      toast.error('Please enter a valid 6-digit OTP.');
      return;
    }
    if (!newPassword || !confirmPassword) {
      toast.error('Password fields cannot be empty.');
      return;
    }
    if (check.refused) {
      setPasswordError(PASSWORD_REFUSED);
      return;
    }
    if (newPassword !== confirmPassword) {
      toast.error('Passwords do not match!');
      return;
    }
    try {
      const result = await resetPassword({ email: email.trim(), otp, newPassword }).unwrap();
      toast.success(result.message ?? 'Password reset successfully!');
      setStage(3);
    } catch (error) {
      toastApiError(error, 'Something went wrong in handleResetPassword');
      // The server has the last word on the rules (the e-mail/username one is only checkable there).
      const refusal = error instanceof ApiError ? error.errors.find((item) => item.field === 'newPassword') : undefined;
      if (refusal) setPasswordError(fieldErrorInline(refusal));
    }
  }

  const { title, subtitle } = stageText[stage];

  return (
    <AuthLayout title={title} subtitle={subtitle} pageTitle="Forgot password">
      {stage < 3 && (
        <Typography variant="overline" color="primary" component="p" sx={{ mt: -1.5, mb: 2 }}>
          Step {stage} of 3
        </Typography>
      )}

      {stage === 1 && (
        <Box component="form" noValidate onSubmit={sendCode}>
          <Stack spacing={2.5}>
            <TextField
              label="Email"
              type="email"
              name="email"
              autoComplete="email"
              required
              autoFocus
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
            <Button type="submit" variant="contained" size="large" startIcon={<SendIcon />} disabled={sending}>
              {sending ? 'Sending…' : 'Send Code'}
            </Button>
          </Stack>
        </Box>
      )}

      {stage === 2 && (
        <Box component="form" noValidate onSubmit={resetWithCode}>
          <Typography color="text.secondary" sx={{ mb: 2.5 }}>
            {sentNote || 'We have sent a code to your e-mail.'} Enter it below for <strong>{email.trim()}</strong>, then
            choose a new password.
          </Typography>
          <Stack spacing={2.5}>
            <OtpInput label="Reset code" value={digits} onChange={setDigits} autoFocus />
            <PasswordField
              label="New password"
              name="newPassword"
              autoComplete="new-password"
              required
              value={newPassword}
              onChange={(event) => {
                setNewPassword(event.target.value);
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
              label="Confirm new password"
              name="confirmPassword"
              autoComplete="new-password"
              required
              value={confirmPassword}
              onChange={(event) => setConfirmPassword(event.target.value)}
            />
            <Button type="submit" variant="contained" size="large" disabled={resetting}>
              {resetting ? 'Resetting…' : 'Reset Password'}
            </Button>
          </Stack>
          <Box sx={{ display: 'flex', justifyContent: 'space-between', mt: 2.5, flexWrap: 'wrap', gap: 1 }}>
            <Link component="button" type="button" onClick={() => setStage(1)}>
              Use another e-mail
            </Link>
            <Link component="button" type="button" onClick={() => void sendCode()} disabled={sending}>
              Send a new code
            </Link>
          </Box>
        </Box>
      )}

      {stage === 3 && (
        <Box sx={{ textAlign: 'center' }}>
          <CheckCircleIcon color="success" sx={{ fontSize: 64, mb: 1 }} aria-hidden />
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            Your password has been changed and every open session was signed out. Log in with your new password.
          </Typography>
          <Button component={RouterLink} to={paths.login} variant="contained" size="large" fullWidth>
            Back to Login
          </Button>
        </Box>
      )}

      {stage === 1 && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 3, textAlign: 'center' }}>
          Remembered it?{' '}
          <Link component={RouterLink} to={paths.login} sx={{ fontWeight: 600 }}>
            Back to Login
          </Link>
        </Typography>
      )}
    </AuthLayout>
  );
}

import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import MarkEmailReadIcon from '@mui/icons-material/MarkEmailRead';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { AuthMessages, CODE_LENGTH } from '@medshare/contracts/constants';
import { useState, type FormEvent } from 'react';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import { emptyOtp, OtpInput } from '../../../components/form/otp-input';
import { AuthLayout } from '../../../components/layout/auth-layout';
import { canOpenPage } from '../../../components/layout/page-access';
import { takeReturnPath } from '../../../lib/return-path';
import { REDIRECT_AFTER_VERIFY_MS, RESEND_COOLDOWN_S } from '../../../config/constants';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { dismissCodeStep, toast, toastApiError, toastCodeStep, UNDER_REVIEW_TOAST_ID } from '../../../lib/notify';
import { setUser } from '../../../lib/session';
import { persistor, useAppDispatch } from '../../../lib/store';
import { isSession, useConfirmCodeMutation } from '../api/confirm';
import { useResendCodeMutation } from '../api/resend-code';
import { useCooldown } from '../hooks/use-cooldown';
import { useDelayedNavigate } from '../hooks/use-delayed-navigate';
import { forgetEmail, recallEmail } from '../utils/remembered-email';
import { isPlausibleEmail } from '../utils/is-plausible-email';

const FALLBACK_ERROR = 'An error occurred. Please try again.';

export function VerifyAccountForm() {
  const location = useLocation();
  const underReview = Boolean((location.state as { underReview?: boolean } | null)?.underReview);
  const [rememberedEmail] = useState(recallEmail);
  const [editingEmail, setEditingEmail] = useState(!rememberedEmail);
  const [email, setEmail] = useState(rememberedEmail);
  const [digits, setDigits] = useState(() => emptyOtp(CODE_LENGTH));
  const [done, setDone] = useState(false);
  const [confirm, { isLoading: confirming }] = useConfirmCodeMutation();
  const [resend, { isLoading: resending }] = useResendCodeMutation();
  const cooldown = useCooldown();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const navigateLater = useDelayedNavigate();

  async function handleVerify(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = digits.join('');
    if (!isPlausibleEmail(email) || !/^\d+$/.test(code) || code.length !== CODE_LENGTH) {
      toast.error('Please enter a valid email and complete the OTP.');
      return;
    }
    try {
      const result = await confirm({ email: email.trim(), code }).unwrap();
      if (isSession(result.data)) {
        const { token, user } = result.data;
        dispatch(setUser({ user, token }));
        await persistor.flush();
        forgetEmail();
        setDone(true);
        dismissCodeStep();
        toast.success(result.message ?? 'Account verified successfully!');
        // Back to the page a link opened before signing in (a share mail's Verify link), else the start page.
        const back = takeReturnPath();
        const start = user.role === 'patient' ? paths.viewImages : paths.dashboard;
        navigateLater(back && canOpenPage(user.role, back.split('?')[0]!) ? back : start, REDIRECT_AFTER_VERIFY_MS, {
          replace: true,
        });
      } else {
        toast.warning(result.message ?? AuthMessages.providerUnderReview, {
          autoClose: 6000,
          toastId: UNDER_REVIEW_TOAST_ID,
        });
        void navigate(paths.login, { state: { underReview: true } });
      }
    } catch (error) {
      toastApiError(error, FALLBACK_ERROR);
      // A locked code ends this sign-in: only the password starts a new one (resend sends nothing).
      if (error instanceof ApiError && error.message === AuthMessages.signInCodeLocked) {
        setDone(true);
        navigateLater(paths.login, REDIRECT_AFTER_VERIFY_MS, { replace: true });
      }
    }
  }

  async function handleResend() {
    if (!isPlausibleEmail(email)) {
      toast.error('Please enter a valid email.');
      setEditingEmail(true);
      return;
    }
    try {
      const result = await resend({ email: email.trim() }).unwrap();
      toastCodeStep(result.message ?? AuthMessages.codeSent);
      setDigits(emptyOtp(CODE_LENGTH));
      cooldown.start(RESEND_COOLDOWN_S);
    } catch (error) {
      toastApiError(error, FALLBACK_ERROR);
    }
  }

  return (
    <AuthLayout
      title="Verify your account"
      subtitle={
        editingEmail ? (
          `Enter your e-mail and the ${CODE_LENGTH}-digit code we sent to it.`
        ) : (
          <>
            Enter the {CODE_LENGTH}-digit code we sent to <strong>{email}</strong>.{' '}
            <Link
              component="button"
              type="button"
              onClick={() => setEditingEmail(true)}
              sx={{ verticalAlign: 'baseline' }}
            >
              Use another e-mail
            </Link>
          </>
        )
      }
    >
      {underReview && (
        <Alert severity="info" sx={{ mb: 3 }}>
          Confirm your e-mail now. An administrator then reviews your provider account; you will be informed once it is
          complete.
        </Alert>
      )}
      <Box component="form" noValidate onSubmit={handleVerify}>
        <Stack spacing={3}>
          {editingEmail && (
            <TextField
              label="Email"
              type="email"
              name="email"
              autoComplete="email"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
          )}
          <OtpInput
            label="Verification code"
            value={digits}
            onChange={setDigits}
            autoFocus={!editingEmail}
            disabled={done}
          />
          <Button
            type="submit"
            variant="contained"
            size="large"
            startIcon={<MarkEmailReadIcon />}
            disabled={confirming || done}
          >
            {confirming ? 'Verifying…' : 'Verify'}
          </Button>
        </Stack>
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 2.5, textAlign: 'center' }}>
        Didn&apos;t get a code?{' '}
        <Button
          variant="text"
          size="small"
          onClick={handleResend}
          disabled={resending || cooldown.secondsLeft > 0 || done}
          sx={{ verticalAlign: 'baseline', px: 1, minWidth: 0 }}
        >
          {cooldown.secondsLeft > 0 ? `Resend code (${cooldown.secondsLeft} s)` : 'Resend code'}
        </Button>
      </Typography>
      <Box sx={{ display: 'flex', justifyContent: 'space-between', mt: 3, flexWrap: 'wrap', gap: 1 }}>
        <Link component={RouterLink} to={paths.home} sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }}>
          <ArrowBackIcon fontSize="small" aria-hidden /> Back to home
        </Link>
        <Link component={RouterLink} to={paths.login} sx={{ fontWeight: 600 }}>
          Back to login
        </Link>
      </Box>
    </AuthLayout>
  );
}

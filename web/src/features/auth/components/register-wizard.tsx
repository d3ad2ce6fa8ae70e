import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import ArrowForwardIcon from '@mui/icons-material/ArrowForward';
import HowToRegIcon from '@mui/icons-material/HowToReg';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import Typography from '@mui/material/Typography';
import { AuthMessages } from '@medshare/contracts/constants';
import { useState, type FormEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import { PASSWORD_REFUSED, usePasswordCheck } from '../../../components/form/password-rules';
import { AuthLayout } from '../../../components/layout/auth-layout';
import { REDIRECT_AFTER_REGISTER_MS } from '../../../config/constants';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { fieldErrorInline } from '../../../lib/error-text';
import { dismissErrorToasts, toast, toastApiError, toastCodeStep, UNDER_REVIEW_TOAST_ID } from '../../../lib/notify';
import { useRegisterMutation } from '../api/register';
import { useDelayedNavigate } from '../hooks/use-delayed-navigate';
import { rememberEmail } from '../utils/remembered-email';
import { STEPS, emptyRegisterForm, stepOfField, toRegisterBody, type RegisterFormState } from './register-form-state';
import { MedicalStep, PersonalStep, RoleStep, SecurityStep } from './register-steps';

type Outcome = { pending: boolean } | null;

export function RegisterWizard() {
  const [activeStep, setActiveStep] = useState(0);
  const [form, setForm] = useState<RegisterFormState>(emptyRegisterForm);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [register, { isLoading: isPending }] = useRegisterMutation();
  const navigateLater = useDelayedNavigate();
  const lastStep = STEPS.length - 1;
  // Started on the first step, so the rules' dictionary is there by the time the user reaches the password.
  const passwordCheck = usePasswordCheck(form.password, { email: form.email.trim(), username: form.username.trim() });

  function onField<K extends keyof RegisterFormState>(name: K, value: RegisterFormState[K]) {
    setForm((current) => ({ ...current, [name]: value }));
    // The field's error is shown under it; the toast that said the same is stale once it is edited.
    if (name in errors) dismissErrorToasts();
    setErrors((current) => {
      if (!(name in current)) return current;
      const { [name]: _dropped, ...rest } = current;
      return rest;
    });
  }

  function next() {
    if (activeStep === 0 && !form.role) {
      setErrors((current) => ({ ...current, role: 'Please select a role to continue.' }));
      return;
    }
    setActiveStep((step) => Math.min(step + 1, lastStep));
  }

  async function submit() {
    if (!form.role) {
      setActiveStep(0);
      return;
    }
    if (passwordCheck.refused) {
      setErrors((current) => ({ ...current, password: PASSWORD_REFUSED }));
      return;
    }
    if (form.password !== form.confirmPassword) {
      setErrors((current) => ({ ...current, confirmPassword: 'Passwords do not match!' }));
      toast.error('Passwords do not match!');
      return;
    }
    try {
      const result = await register(toRegisterBody(form, form.role)).unwrap();
      const pending = result.data.pending || form.role === 'healthProvider';
      rememberEmail(result.data.user.email);
      // For a provider the server's message may be the review notice itself, shown just below.
      const message = result.message && result.message !== AuthMessages.providerUnderReview ? result.message : null;
      toastCodeStep(message ?? 'Registration successful!');
      if (pending) {
        toast.warning(AuthMessages.providerUnderReview, { autoClose: 6000, toastId: UNDER_REVIEW_TOAST_ID });
      }
      setOutcome({ pending });
      // A provider confirms the e-mail too; the confirm answer then says the account is pending.
      navigateLater(paths.verifyAccount, REDIRECT_AFTER_REGISTER_MS, { state: { underReview: pending } });
    } catch (error) {
      toastApiError(error, 'An error occurred. Please try again.');
      if (error instanceof ApiError && error.errors.length > 0) {
        const fieldErrors = Object.fromEntries(error.errors.map((item) => [item.field, fieldErrorInline(item)]));
        setErrors(fieldErrors);
        const steps = error.errors.map((item) => stepOfField[item.field]).filter((s) => s !== undefined);
        if (steps.length > 0) setActiveStep(Math.min(...steps));
      }
    }
  }

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // Enter in a field of an earlier step moves on instead of sending half a form.
    if (activeStep < lastStep) next();
    else void submit();
  }

  if (outcome) {
    return (
      <AuthLayout title="Registration successful!" pageTitle="Register">
        {outcome.pending ? (
          <Alert severity="warning" variant="outlined" sx={{ mb: 2, alignItems: 'flex-start' }}>
            <AlertTitle>Account under review</AlertTitle>
            {AuthMessages.providerUnderReview}
          </Alert>
        ) : null}
        <Alert severity="success" sx={{ mb: 3 }}>
          We have e-mailed you a 6-digit code. Taking you to the verification page…
        </Alert>
        <Button
          component={RouterLink}
          to={paths.verifyAccount}
          state={{ underReview: outcome.pending }}
          variant="contained"
        >
          Enter my code
        </Button>
      </AuthLayout>
    );
  }

  const stepProps = { form, errors, onField };

  return (
    <AuthLayout
      title="Create your account"
      pageTitle="Register"
      subtitle="Four short steps: your role, personal details, medical details and how you sign in."
      wide
    >
      <Stepper activeStep={activeStep} alternativeLabel sx={{ mb: 4 }}>
        {STEPS.map((label) => (
          <Step key={label}>
            <StepLabel>{label}</StepLabel>
          </Step>
        ))}
      </Stepper>
      <Box component="form" noValidate onSubmit={handleSubmit} aria-label={STEPS[activeStep]}>
        <Typography
          component="h2"
          variant="subtitle1"
          sx={{ fontWeight: 700, mb: 2, display: activeStep === 0 ? 'none' : 'block' }}
        >
          Step {activeStep + 1} of {STEPS.length}: {STEPS[activeStep]}
        </Typography>
        {activeStep === 0 && <RoleStep {...stepProps} />}
        {activeStep === 1 && <PersonalStep {...stepProps} />}
        {activeStep === 2 && <MedicalStep {...stepProps} />}
        {activeStep === 3 && <SecurityStep {...stepProps} passwordCheck={passwordCheck} />}
        <Box sx={{ display: 'flex', justifyContent: 'space-between', gap: 2, mt: 4 }}>
          <Button
            type="button"
            variant="outlined"
            startIcon={<ArrowBackIcon />}
            onClick={() => setActiveStep((step) => Math.max(step - 1, 0))}
            disabled={activeStep === 0 || isPending}
          >
            Back
          </Button>
          {activeStep < lastStep ? (
            // Distinct keys: reusing one <button> would turn it into type=submit mid-click and send the form.
            <Button key="next" type="button" variant="contained" endIcon={<ArrowForwardIcon />} onClick={next}>
              Next
            </Button>
          ) : (
            <Button key="submit" type="submit" variant="contained" startIcon={<HowToRegIcon />} disabled={isPending}>
              {isPending ? 'Registering…' : 'Register'}
            </Button>
          )}
        </Box>
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mt: 3, textAlign: 'center' }}>
        Already have an account?{' '}
        <Link component={RouterLink} to={paths.login} sx={{ fontWeight: 600 }}>
          Login
        </Link>
      </Typography>
    </AuthLayout>
  );
}

import { ForgotPasswordFlow } from '../../features/auth/components/forgot-password-flow';

export default function ForgotPasswordRoute() {
  return <ForgotPasswordFlow />;
}

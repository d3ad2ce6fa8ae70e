import { VerifyAccountForm } from '../../features/auth/components/verify-account-form';

export default function VerifyAccountRoute() {
  return <VerifyAccountForm />;
}
